import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { historyEntryOf, historyText, loadHistory, withEntry, writeHistory } from './history.ts';

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function result(group: string, source: string, [decision, reason]: [boolean, boolean]) {
  return { case: { group, source }, hits: { decision, reason, userAction: reason, nextStep: reason } };
}

describe('first-sight history', () => {
  const facts = { date: new Date('2026-11-28T12:00:00Z'), commit: '5db6480abcde' };

  it('scores every case of the batch, counting its groups and distinct sources', () => {
    const entry = historyEntryOf(
      'b1',
      [
        result('vllm', 'https://a.invalid/1', [true, true]),
        result('vllm', 'https://a.invalid/1', [true, false]),
        result('llama-cpp', 'https://a.invalid/2', [false, false]),
      ],
      facts,
    );
    expect(entry).toEqual({
      date: '2026-11-28',
      batch: 'b1',
      commit: '5db6480abcde',
      groups: ['llama-cpp', 'vllm'],
      sources: 2,
      cases: 3,
      decision: 66.7,
      reason: 33.3,
      userAction: 33.3,
      nextStep: 33.3,
    });
    expect(() => historyEntryOf('b2', [], facts)).toThrow(/no case carries "batch": "b2"/);
  });

  it('records a batch once and reads back what it wrote', () => {
    directory = mkdtempSync(join(tmpdir(), 'history-'));
    const entry = historyEntryOf('b1', [result('vllm', 'https://a.invalid/1', [true, true])], facts);
    const once = withEntry(loadHistory(directory), entry);
    writeHistory(once, directory);
    expect(loadHistory(directory).batches).toEqual([entry]);
    expect(() => withEntry(loadHistory(directory), entry)).toThrow(/already has its first-sight score/);
  });

  it('writes a short list of groups on one line and a long one a name per line, as biome formats it', () => {
    const short = historyEntryOf('b1', [result('vllm', 'https://a.invalid/1', [true, true])], facts);
    const groups = Array.from({ length: 12 }, (_, index) => `provider-group-${index}`);
    const long = { ...short, batch: 'b2', groups };
    directory = mkdtempSync(join(tmpdir(), 'history-'));
    const text = historyText(withEntry(withEntry(loadHistory(directory), short), long));
    expect(text).toContain('      "groups": ["vllm"],\n');
    expect(text).toContain('      "groups": [\n        "provider-group-0",\n');
    expect(text.split('\n').every((line) => line.length <= 110 || line.includes('$comment'))).toBe(true);
    expect(JSON.parse(text).batches.map((entry: { groups: string[] }) => entry.groups)).toEqual([
      ['vllm'],
      groups,
    ]);
  });
});
