// The success path's cost, piece by piece: each thing a bound `withClassifiedErrors` (an adapter's)
// does around a resolved call, timed alone in CPU time against an empty loop of the same shape, in
// interleaved rounds. `tsx src/success-suspects.ts` (reads the packages' sources with
// `--conditions=@faultline/source`, or their builds without it).
import { detectBlockedAnswer, withClassifiedErrors } from '@faultline/extract-openai';
import { checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import { cpuRounds, formatNs, median } from './statistics.ts';

const BATCH = 2000;
const ROUNDS = 9;

const bare = async () => 42;
const defaults = { provider: 'openai', extractors: [() => undefined], inspectResult: detectBlockedAnswer };
const KEYS = {
  extractors: true,
  signal: true,
  model: true,
  provider: true,
  operation: true,
  family: true,
  override: true,
  idempotent: true,
  now: true,
  retry: true,
  deadlineMs: true,
  inspectResult: true,
  detectBlockedAnswer: true,
} as const;

let sink: unknown;
const sync = (body: () => unknown) => async () => {
  for (let index = 0; index < BATCH; index += 1) sink = body();
};
const batch = (call: () => Promise<unknown>) => async () => {
  for (let index = 0; index < BATCH; index += 1) await call();
};

const suspects: Array<[string, () => Promise<unknown>]> = [
  ['sync baseline (an empty body)', sync(() => 42)],
  [
    'defaults merge: { ...defaults, ...{}, extractors, inspectResult }',
    sync(() => {
      const options: Record<string, unknown> = {};
      const extractors = options.extractors === undefined ? defaults.extractors : options.extractors;
      const inspectResult = 'inspectResult' in options ? options.inspectResult : defaults.inspectResult;
      return { ...defaults, ...options, extractors, inspectResult };
    }),
  ],
  [
    'option-key check of the merged options (for…in)',
    sync(() => {
      checkOptionKeys('withClassifiedErrors', defaults, KEYS);
      checkOptionKeys('withClassifiedErrors', undefined, RETRY_OPTION_KEYS, 'retry');
      return 0;
    }),
  ],
  ['inspectResult: detectBlockedAnswer(42)', sync(() => detectBlockedAnswer(42 as never))],
  ['async baseline: await fn()', batch(bare)],
  [
    'one async layer more: (async () => await fn())()',
    batch(async () => {
      const result = await bare();
      return result;
    }),
  ],
  [
    'a .then layer instead (keeps no async stack for a failure’s call site)',
    batch(() =>
      bare().then(
        (result) => result,
        (thrown) => Promise.reject(thrown),
      ),
    ),
  ],
  ['whole: withClassifiedErrors(fn) (the adapter’s)', batch(() => withClassifiedErrors(bare))],
];

// A build of render to compare with, in the same run (`SUCCESS_BEFORE=<render's dist/toolkit.js>`).
const before = process.env.SUCCESS_BEFORE;
if (before !== undefined) {
  const { bindWithClassifiedErrors } = (await import(before)) as typeof import('@faultline/render/toolkit');
  const { extractor, inspectResult } = await import('@faultline/extract-openai');
  const old = bindWithClassifiedErrors({ provider: 'openai', extractors: [extractor], inspectResult });
  suspects.push([`whole, render from ${before}`, batch(() => old(bare))]);
}

const rounds = await cpuRounds(suspects, ROUNDS, 150);
const perCall = (index: number) => median(rounds.map((round) => round[index]!.medianNs / BATCH));
const syncBase = perCall(0);
const asyncBase = perCall(4);
console.log('| piece | per call, over its baseline (median of rounds) |');
console.log('|---|---|');
for (const [index, [name]] of suspects.entries()) {
  if (index === 0 || index === 4) continue;
  const base = index < 4 ? syncBase : asyncBase;
  console.log(`| ${name} | ${formatNs(perCall(index) - base)} |`);
}
console.log(`\nbaselines: sync ${formatNs(syncBase)}, async ${formatNs(asyncBase)}; sink ${typeof sink}`);
