import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expectedFor, type Scenario } from '@faultline/llm-mock';
import { fromDict } from '@faultline/render';
import { beforeAll, describe, expect, it } from 'vitest';
import { AI_SDK_LABELS, AI_SDK_PROVIDERS, AI_SDK_VIA } from './ai-sdk-rows.ts';
import { PROVIDER_NAMES, providerEntry } from './driver/index.ts';
import { findScenariosDirectory, loadDemoScenarios } from './scenario-source.ts';
import { ansiEscape, type CliRun, packageDirectory, runFaultline, stackTraceLine } from './test-support.ts';

const demoScenarios = loadDemoScenarios(findScenariosDirectory());

/** What the table must show for each demo scenario, derived from the scenario files. */
function expectedRows(): Array<{ provider: string; scenario: Scenario; reason: string; category: string }> {
  const rows = [];
  for (const name of PROVIDER_NAMES) {
    for (const scenario of demoScenarios.get(name) ?? []) {
      const expected = expectedFor(scenario, providerEntry(name)?.sdk ?? undefined);
      if (expected.skip !== undefined) continue;
      rows.push({ provider: name, scenario, reason: expected.reason, category: expected.category });
    }
  }
  return rows;
}

describe('faultline demo', () => {
  let table: CliRun;
  let json: CliRun;

  beforeAll(async () => {
    [table, json] = await Promise.all([
      runFaultline(['demo'], { timeoutMs: 90_000, environment: { COLUMNS: '80' } }),
      runFaultline(['demo', '--json'], { timeoutMs: 90_000 }),
    ]);
  }, 120_000);

  it('has demo scenarios for every provider in providers.json', () => {
    expect([...demoScenarios.keys()].sort()).toEqual([...PROVIDER_NAMES].sort());
  });

  it('runs to the end and exits 0', () => {
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
  });

  it('shows one table row per demo scenario, under its provider, with the reason and the retry decision', () => {
    const lines = table.stdout.split('\n');
    for (const row of expectedRows()) {
      const heading = lines.indexOf(row.provider);
      expect(heading, `a "${row.provider}" heading line`).toBeGreaterThanOrEqual(0);
      const next = lines.findIndex((line, index) => index > heading && /^\S/.test(line));
      const block = lines.slice(heading + 1, next === -1 ? undefined : next);
      const line = block.find(
        (candidate) =>
          candidate.startsWith(`  ${row.scenario.demo} `) && candidate.includes(` ${row.reason} `),
      );
      expect(
        line,
        `${row.scenario.id}: a row "${row.scenario.demo} … ${row.reason}" under ${row.provider}`,
      ).toBeDefined();
      const retry =
        row.category === 'transient' ? 'yes' : row.category === 'ambiguous' ? 'if idempotent' : 'no';
      expect(line).toContain(` ${retry}`);
    }
  });

  it('fits 80 columns: no line of the table, the summary or the panel is wider', () => {
    for (const line of table.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('sums up what a retry can fix', () => {
    const rows = expectedRows();
    const transient = rows.filter((row) => row.category === 'transient').length;
    const ambiguous = rows.filter((row) => row.category === 'ambiguous').length;
    expect(table.stdout).toContain(`${transient} transient (retry after the wait), ${ambiguous} ambiguous`);
    expect(table.stdout).toContain(`${rows.length - transient - ambiguous} that no retry can fix`);
  });

  it('shows one full panel and no colour when stdout is not a terminal', () => {
    expect(table.stdout).toContain('One of them in full');
    expect(table.stdout).toMatch(/│ where\s+provider /);
    expect(table.stdout).not.toMatch(ansiEscape);
  });

  it('prints the reports as JSON with --json', () => {
    expect(json.code).toBe(0);
    const rows = (
      JSON.parse(json.stdout) as Array<{ provider: string; scenario: string; via?: string; report: unknown }>
    ).filter((row) => row.via === undefined);
    const expected = expectedRows();
    expect(rows).toHaveLength(expected.length);
    for (const row of expected) {
      const match = rows.find((candidate) => candidate.scenario === row.scenario.id);
      expect(match, row.scenario.id).toBeDefined();
      expect(match?.provider).toBe(row.provider);
      const report = fromDict(match?.report);
      expect(report.reason).toBe(row.reason);
      expect(report.provider).toBe(row.provider);
    }
  });

  it('replays one rate limit per provider through the Vercel AI SDK, agreeing with the provider SDK row', () => {
    type Row = { provider: string; scenario: string; via?: string; report: unknown };
    const rows = JSON.parse(json.stdout) as Row[];
    const aiSdkRows = rows.filter((row) => row.via === AI_SDK_VIA);
    // A provider the AI SDK has no package for (ollama) has no AI SDK row.
    expect(aiSdkRows.map((row) => row.provider)).toEqual(
      PROVIDER_NAMES.filter((name) => AI_SDK_PROVIDERS.includes(name)),
    );
    for (const row of aiSdkRows) {
      const scenario = demoScenarios.get(row.provider)?.find((candidate) => candidate.id === row.scenario);
      expect(AI_SDK_LABELS, row.scenario).toContain(scenario?.demo);
      const sdkRow = rows.find(
        (candidate) => candidate.scenario === row.scenario && candidate.via === undefined,
      );
      const report = fromDict(row.report);
      const sdkReport = fromDict(sdkRow?.report);
      expect(report.provider).toBe(row.provider);
      expect(
        { category: report.category, reason: report.reason, retryable: report.retryable },
        row.scenario,
      ).toEqual({ category: sdkReport.category, reason: sdkReport.reason, retryable: sdkReport.retryable });
      expect(JSON.stringify(report)).not.toContain('demo-key-not-a-secret');
    }
    const tableRows = table.stdout.split('\n').filter((line) => line.includes(' rate limit (AI SDK) '));
    expect(tableRows).toHaveLength(aiSdkRows.length);
  });

  it('rejects an unknown provider with one line and exit 2', async () => {
    const run = await runFaultline(['demo', '--provider', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('unknown provider "nope"');
    expect(run.stderr).not.toMatch(stackTraceLine);
  });

  it('runs a single provider with --provider', async () => {
    const run = await runFaultline(['demo', '--provider', 'openai', '--json']);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<{ provider: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.provider))).toEqual(new Set(['openai']));
  });
});

const scriptBinary = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

describe.runIf(scriptBinary !== undefined)('faultline demo on a terminal (through script(1))', () => {
  function onTerminal(setup: string): string {
    const demo = `${JSON.stringify(process.execPath)} --conditions=@faultline/source --import tsx src/cli.ts demo --provider openai`;
    return execFileSync(scriptBinary as string, ['-qec', `${setup}${demo}`, '/dev/null'], {
      cwd: packageDirectory,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, NODE_OPTIONS: undefined },
      timeout: 80_000,
    });
  }

  it('shows progress and colours on a sized terminal', () => {
    const transcript = onTerminal('stty cols 120 rows 40; ');
    expect(transcript).toMatch(/failures classified in [\d.]+ s/);
    expect(transcript).toMatch(ansiEscape);
    expect(transcript).toContain('rate_limit');
  });

  it('finishes on a terminal that reports no width (no spinner there)', () => {
    const transcript = onTerminal('stty cols 0 rows 0; ');
    expect(transcript).not.toMatch(/failures classified in/);
    expect(transcript).toContain('rate_limit');
  });
});
