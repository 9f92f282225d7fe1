// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import { readFileSync, writeFileSync } from 'node:fs';
import { expectedFor, loadScenarios, startLoopbackServer } from '@faultline/test-fixtures';
import {
  type CrossCheckRow,
  formatVerdict,
  renderCrossCheckTable,
  replaceCrossCheckTable,
} from '@faultline/test-fixtures/cross-check-table';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS, KNOWN_DIFFERENCES, README_PATH, TABLE_COMMAND } from './cross-check-table.ts';
import { describeOutcome, driveScenario, PROVIDERS, type Servers, verdictOf } from './test-support.ts';

let servers: Servers;
beforeAll(async () => {
  servers = {
    http1: await startLoopbackServer({ protocol: 'http1' }),
    h2c: await startLoopbackServer({ protocol: 'h2c' }),
  };
});
afterAll(async () => {
  await servers?.http1.close();
  await servers?.h2c.close();
});

const rows: CrossCheckRow[] = [];

for (const provider of PROVIDERS) {
  const scenarios = loadScenarios(provider);
  describe(`${provider}: every scenario through LangChain's chat model classifies as through the provider's SDK`, () => {
    it('has scenarios', () => {
      expect(scenarios.length).toBeGreaterThan(10);
    });
    for (const scenario of scenarios) {
      it.concurrent(scenario.id, async () => {
        const expected = expectedFor(scenario);
        const outcome = await driveScenario(provider, scenario, servers);
        const verdict = verdictOf(outcome);
        const known = KNOWN_DIFFERENCES[scenario.id];
        rows.push({
          scenario: scenario.id,
          column: 'langchain',
          expected: formatVerdict(expected),
          actual: describeOutcome(outcome),
          known: known?.why,
        });
        if (known !== undefined) {
          // A listed difference is asserted as it is: when it goes away, the list must shrink.
          expect(describeOutcome(outcome)).toBe(known.actual);
          return;
        }
        expect(verdict, `${scenario.id}: ${describeOutcome(outcome)}`).toEqual({
          category: expected.category,
          reason: expected.reason,
          retryable: expected.retryable,
        });
        // Nothing of the key or the raw body reaches the report.
        if (outcome.kind === 'error') {
          const report = JSON.stringify(outcome.error.toErrorReport());
          expect(report).not.toContain('sk-test-faultline-canary');
          expect(report).not.toContain('AKIAFAULTLINETEST0001');
          if (scenario.response.kind === 'http' && scenario.response.body.length > 60) {
            expect(report).not.toContain(scenario.response.body.slice(0, 60));
          }
        }
      });
    }
  });
}

describe('README cross-check table', () => {
  it('matches the results (regenerate with `pnpm --filter @faultline/langchain cross-check-table`)', (context) => {
    const runs =
      PROVIDERS.reduce((sum, provider) => sum + loadScenarios(provider).length, 0) * COLUMNS.length;
    // A filtered run (-t) has not driven every scenario: there is no full table to compare.
    if (rows.length !== runs) context.skip();
    const table = renderCrossCheckTable(rows, COLUMNS);
    const readme = readFileSync(README_PATH, 'utf8');
    const updated = replaceCrossCheckTable(readme, table, TABLE_COMMAND);
    if (process.env.FAULTLINE_WRITE_README === '1') {
      writeFileSync(README_PATH, updated);
      return;
    }
    expect(updated).toBe(readme);
  });
});
