import { describe, expect, it } from 'vitest';
import providers from '../../../providers.json' with { type: 'json' };
import { loadCorpus, loadFloor, loadKnownDisagreements } from './case.ts';
import { loadHistory } from './history.ts';
import { PATHS, pathCovers } from './paths.ts';
import { runCorpus } from './run.ts';
import { checkFloors, missLines, ofPath, pathDifferences, rowsOf, textTable } from './summary.ts';

// The field corpus (corpus/cases) replayed through the real SDKs, the AI SDK and LangChain: CI fails
// when any path's accuracy falls below its floor in corpus/floor.json. Misses are printed, so a
// regression names its cases and its path.
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

  it('keeps the accuracy floor of every path', async () => {
    const results = await runCorpus(cases, { paths: PATHS });
    const check = checkFloors(results, known, loadFloor());
    console.log(textTable(rowsOf(ofPath(results))));
    for (const path of PATHS)
      expect(ofPath(results, path)).toHaveLength(cases.filter((entry) => pathCovers(path, entry)).length);
    if (check.failures.length > 0) {
      console.error(missLines(results, known).join('\n'));
      console.error(pathDifferences(results).join('\n'));
    }
    expect(check.failures).toEqual([]);
  }, 300_000);
});
