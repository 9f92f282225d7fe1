import { afterAll, describe, expect, it } from 'vitest';
import { bounded, settledHeapUsed } from './bounded.ts';
import { ENTRY_POINTS } from './entry-points.ts';
import { HOSTILE_VALUES } from './hostile-corpus.ts';
import { KNOWN_DEFECTS, knownDefectFor } from './known-defects.ts';

/** No output of any entry point may carry more than this many characters: bodies are cut first. */
const OUTPUT_LIMIT = 64 * 1024;

/** Heap growth allowed across a whole re-run of the corpus, after a full collection. */
const HEAP_GROWTH_LIMIT = 48 * 1024 * 1024;

let calls = 0;
const skipped = new Set<string>();

/** Every entry point, each with a fresh copy of the value: the problems found, as text. */
async function problemsWith(caseName: string, build: () => unknown): Promise<string[]> {
  const problems: string[] = [];
  for (const entryPoint of ENTRY_POINTS) {
    if (knownDefectFor(caseName, entryPoint.name) !== undefined) {
      skipped.add(`${caseName} × ${entryPoint.name}`);
      continue;
    }
    calls += 1;
    const outcome = await bounded(() => entryPoint.call(build()));
    if (outcome.hung)
      problems.push(`${entryPoint.name}: still running after ${Math.round(outcome.elapsedMs)} ms`);
    else if (outcome.error !== undefined || outcome.value === undefined)
      problems.push(
        `${entryPoint.name}: ${String((outcome.error as Error)?.stack ?? outcome.error).slice(0, 600)}`,
      );
    else if (outcome.value.length > OUTPUT_LIMIT)
      problems.push(`${entryPoint.name}: wrote ${outcome.value.length} characters (limit ${OUTPUT_LIMIT})`);
  }
  return problems;
}

describe(`hostile thrown values (${HOSTILE_VALUES.length} cases × ${ENTRY_POINTS.length} entry points)`, () => {
  afterAll(() => {
    console.info(
      `hostile corpus: ${HOSTILE_VALUES.length} cases, ${ENTRY_POINTS.length} entry points, ${calls} calls; ` +
        `${skipped.size} pairs skipped for ${KNOWN_DEFECTS.length} known defects in other packages:\n` +
        KNOWN_DEFECTS.map((defect) => `  - ${defect.owner}: ${defect.defect}`).join('\n'),
    );
  });

  it.each(HOSTILE_VALUES.map((hostile) => [hostile.name, hostile] as const))(
    'every entry point classifies %s, in bounded time, without throwing',
    async (_name, hostile) => {
      expect(await problemsWith(hostile.name, hostile.build)).toEqual([]);
    },
  );

  it.skip.each(KNOWN_DEFECTS.map((defect) => [defect.owner, defect.defect] as const))(
    'known defect in %s: %s',
    () => {},
  );

  it('a second and third pass over the corpus leave the heap where the first left it', async () => {
    // The first pass above warmed every cache (and built the 50 MB bodies the corpus reuses).
    const heaps: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const hostile of HOSTILE_VALUES) {
        if (!hostile.name.includes('10,000')) await problemsWith(hostile.name, hostile.build);
      }
      heaps.push(settledHeapUsed());
    }
    const [second, third] = heaps as [number, number];
    expect(third - second).toBeLessThan(HEAP_GROWTH_LIMIT);
  }, 240_000);
});
