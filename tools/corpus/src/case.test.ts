import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus } from './case.ts';

// The loader is what keeps the corpus honest: a label that contradicts the taxonomy, a duplicate
// case or a misnamed file must stop the run with a message naming the file, never be scored.
let directory: string | undefined;
function reset(): void {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
}
afterEach(reset);

const aCase = (overrides: Record<string, unknown> = {}) => ({
  name: 'quota',
  source: 'https://example.invalid/issue/1',
  http: { status: 429, body: { error: { message: 'You exceeded your current quota' } } },
  label: { category: 'capacity', reason: 'quota', retryable: false },
  ...overrides,
});

function write(group: string, cases: unknown[], file = group, sdk = 'openai'): string {
  directory ??= mkdtempSync(join(tmpdir(), 'corpus-'));
  writeFileSync(join(directory, `${file}.json`), JSON.stringify({ group, description: 'test', sdk, cases }));
  return directory;
}

describe('loadCorpus', () => {
  it('builds the scenario the loopback server plays and fills userAction and nextStep from the taxonomy', () => {
    const [loaded] = loadCorpus(write('gw', [aCase()]));
    expect(loaded?.id).toBe('gw/quota');
    expect(loaded?.label).toEqual({
      category: 'capacity',
      reason: 'quota',
      retryable: false,
      userAction: 'check_billing',
      nextStep: 'fallback',
    });
    expect(loaded?.kind).toBe('provider');
    const scenario = loaded?.kind === 'provider' ? loaded.scenario : undefined;
    expect(scenario?.provider).toBe('openai');
    expect(scenario?.response).toEqual({
      kind: 'http',
      status: 429,
      body: '{"error":{"message":"You exceeded your current quota"}}',
    });
  });

  it('rejects a label whose category or retryable contradicts the reason', () => {
    const bad = aCase({ label: { category: 'transient', reason: 'quota', retryable: true } });
    expect(() => loadCorpus(write('gw', [bad]))).toThrow(/gw\/quota: reason quota is capacity/);
  });

  it('rejects a duplicate case name, a file named after another group and a case without a response', () => {
    expect(() => loadCorpus(write('gw', [aCase(), aCase()]))).toThrow(/appears twice/);
    reset();
    expect(() => loadCorpus(write('gw', [aCase()], 'other'))).toThrow(/expected "other"/);
    reset();
    expect(() => loadCorpus(write('gw', [aCase({ http: undefined })]))).toThrow(/exactly one of/);
  });

  it('loads an MCP case for the MCP client only, with exactly one answer', () => {
    const mcpCase = (mcp: unknown) =>
      aCase({
        http: undefined,
        mcp,
        label: { category: 'content', reason: 'invalid_request', retryable: false },
      });
    const error = { code: -32602, message: 'Invalid arguments for tool search' };
    const [loaded] = loadCorpus(write('tools', [mcpCase({ error })], 'tools', 'mcp'));
    expect(loaded).toMatchObject({ kind: 'mcp', sdk: 'mcp', mcp: { error } });
    reset();
    expect(() => loadCorpus(write('tools', [mcpCase({ error })]))).toThrow(/played by the sdk "mcp"/);
    reset();
    // biome-ignore lint/suspicious/noThenProperty: the case format's field name (data, never awaited)
    const twoAnswers = { error, then: 'exit' };
    expect(() => loadCorpus(write('tools', [mcpCase(twoAnswers)], 'tools', 'mcp'))).toThrow(
      /exactly one of error, result, then, http/,
    );
    reset();
    expect(() => loadCorpus(write('tools', [aCase()], 'tools', 'mcp'))).toThrow(/played by the sdk "mcp"/);
  });
});
