import { describe, expect, it } from 'vitest';
import providers from '../../../providers.json' with { type: 'json' };
import { loadCorpus, loadFloor, loadKnownDisagreements } from './case.ts';
import { loadHistory } from './history.ts';
import { runCorpus } from './run.ts';
import { checkFloor, missLines, rowsOf, textTable } from './summary.ts';

// The field corpus (corpus/cases) replayed through the real SDKs: CI fails when the classifier's
// accuracy falls below corpus/floor.json. Misses are printed, so a regression names its cases.
const cases = loadCorpus();
const known = loadKnownDisagreements();

describe('field corpus', () => {
  it('is valid, large enough, and covers every provider of providers.json', () => {
    expect(cases.length).toBeGreaterThanOrEqual(250);
    const sdks = new Set(cases.map((entry) => entry.sdk));
    expect(
      providers.providers.map((provider) => provider.name).filter((name) => !sdks.has(name as never)),
    ).toEqual([]);
  });

  it('lists only existing cases as known disagreements', () => {
    const ids = new Set(cases.map((entry) => entry.id));
    expect(Object.keys(known).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('records first sight only for batches whose cases are in the corpus', () => {
    const batches = new Set(cases.map((entry) => entry.batch));
    expect(
      loadHistory()
        .batches.map((entry) => entry.batch)
        .filter((batch) => !batches.has(batch)),
    ).toEqual([]);
  });

  it('keeps the accuracy floor', async () => {
    const results = await runCorpus(cases);
    const check = checkFloor(results, known, loadFloor());
    console.log(textTable(rowsOf(results)));
    if (check.failures.length > 0) console.error(missLines(results, known).join('\n'));
    expect(check.failures).toEqual([]);
  }, 300_000);
});
