// `pnpm bench`: the performance goals a user can feel (the first failures of a fresh process, the
// warm share of a call, the bundle, the success path, the stream guards), each a ratio or a cold
// figure measured in this one run, with the rest of the cost tables. It writes every table to
// bench/results/latest.md, the raw figures to bench/results/latest.json, and the summary table to
// docs/benchmarks.md's bench section. `pnpm bench <section> …` runs some sections only
// (first-failures, success, bundle, stream, footprint, retry, resilience, rate-limit,
// mixed-failures): their figures replace theirs in latest.json and the other sections' stay (each
// section's run is named in `sectionRuns`); both markdown files are left alone, except
// mixed-failures, whose table is one run of its own and goes to docs/benchmarks.md's
// mixed-failures section whenever it runs.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DRIVEN_PROVIDERS } from '@faultline/scenario-driver';
import { BUNDLE_GOAL_BYTES, kilobytes, measureBundles } from './bundle-size.ts';
import {
  benchFirstFailures,
  FIRST_FAILURE_SCENARIOS,
  FIRST_FAILURES_GOAL_MS,
  WARM_GOAL_SHARE,
} from './first-failures.ts';
import { benchFootprint } from './footprint.ts';
import { benchMixedFailures, mixedFailuresTable } from './mixed-failures.ts';
import { benchRateLimit } from './rate-limit.ts';
import { benchResilience } from './resilience.ts';
import { benchRetained } from './retained.ts';
import { benchRetryDecisions } from './retry-decisions.ts';
import { formatNs } from './statistics.ts';
import { benchStreamGuard, STREAM_FLOORS, STREAM_GUARD_GOAL_SHARE } from './stream-guard.ts';
import { benchSuccessPath } from './success-path.ts';

/**
 * The success path's goal: the wrapper's own cost around a resolved call in the tens of
 * nanoseconds, so that it stays invisible beside any real call.
 */
const SUCCESS_GOAL_NS = 100;

const SECTIONS = [
  'first-failures',
  'success',
  'bundle',
  'stream',
  'footprint',
  'retry',
  'resilience',
  'rate-limit',
  'mixed-failures',
];
const root = fileURLToPath(new URL('../..', import.meta.url));
const only = new Set(process.argv.slice(2));
for (const name of only)
  if (!SECTIONS.includes(name))
    throw new TypeError(`bench: no section "${name}" (sections: ${SECTIONS.join(', ')})`);
const wants = (section: string) => only.size === 0 || only.has(section);
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(2)} %`;
const share = (value: number) => `${(value * 100).toFixed(2)} %`;
const verdict = (met: boolean) => (met ? 'met' : 'not met');
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Every table (bench/results/latest.md), echoed to stdout as it is measured. */
const details: string[] = [];
const detail = (line = '') => {
  details.push(line);
  console.log(line);
};
/** docs/benchmarks.md's summary: one row per goal. */
const summary: string[] = [];
const goalRow = (what: string, measured: string, goal: string, met: boolean) =>
  summary.push(`| ${what} | ${measured} | ${goal} | ${verdict(met)} |`);

const commit = (() => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root })
      .toString()
      .trim();
    return dirty === '' ? head : `${head} with uncommitted changes`;
  } catch {
    return 'an unknown commit';
  }
})();
const loadAtStart = loadavg()[0]!;
const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  commit,
  node: process.version,
  cpu: cpus()[0]?.model,
  cores: availableParallelism(),
  loadAverageAtStart: loadAtStart,
};
const sectionSeconds: Record<string, number> = {};
results.sectionSeconds = sectionSeconds;
const started = performance.now();

/** Runs a section when it is wanted, timing it. */
async function section(name: string, body: () => Promise<void> | void): Promise<void> {
  if (!wants(name)) return;
  const start = performance.now();
  await body();
  sectionSeconds[name] = (performance.now() - start) / 1000;
}

await section('first-failures', async () => {
  const cold = await benchFirstFailures();
  results.firstFailures = cold;
  const range = (spread: { q1: number; q3: number; min: number; max: number }) =>
    `IQR ${spread.q1.toFixed(1)}–${spread.q3.toFixed(1)}, min–max ${spread.min.toFixed(1)}–${spread.max.toFixed(1)}`;
  detail(
    `\n### First failures in a fresh process (goal: the first five, classified and reported, in at most ${FIRST_FAILURES_GOAL_MS} ms of CPU)\n`,
  );
  detail(
    `How it is measured: ${cold.processes} fresh Node processes, one after another, each running bench/src/first-failures-worker.mjs on the built packages (what a user installs). Each imports openai, @anthropic-ai/sdk and @google/genai, then faultline's three adapters; makes five calls that fail through the real SDKs against the loopback server (@faultline/llm-mock, in the bench's process); and only then starts the clocks on faultline's work: each failure passed through its adapter's \`withClassifiedErrors\` (retries off) and \`toErrorReport()\` called, one after another, as a serverless function or a CLI meets its first failures. CPU time is the process's (every thread); the goal is judged on its median over the processes. Each report is checked to give the scenario's expected reason.\n`,
  );
  detail('| failure (scenario) | reason | CPU, median over processes | min–max |');
  detail('|---|---|---|---|');
  cold.scenarios.forEach((scenario, index) => {
    const spread = cold.perFailureCpuMs[index]!;
    detail(
      `| ${index + 1}. \`${scenario.id}\` | ${scenario.reason} | ${ms(spread.median)} | ${spread.min.toFixed(1)}–${spread.max.toFixed(1)} ms |`,
    );
  });
  detail(
    `| **all five** |  | **${ms(cold.totalCpuMs.median)}** (${range(cold.totalCpuMs)}) | wall ${ms(cold.totalWallMs.median)} (${range(cold.totalWallMs)}) |`,
  );
  detail(
    `\nGoal (at most ${FIRST_FAILURES_GOAL_MS} ms of CPU for the five): ${verdict(cold.met)}. Beside it, not part of it: importing the three adapters took ${ms(cold.importCpuMs.median)} of CPU (median; ${range(cold.importCpuMs)}), so that work moved from the first failure to import time still shows.`,
  );
  goalRow(
    'First five failures in a fresh process (3 SDKs, adapters imported), classified and reported',
    `${ms(cold.totalCpuMs.median)} CPU (IQR ${cold.totalCpuMs.q1.toFixed(1)}–${cold.totalCpuMs.q3.toFixed(1)}, ${cold.processes} processes); wall ${ms(cold.totalWallMs.median)}`,
    `≤ ${FIRST_FAILURES_GOAL_MS} ms`,
    cold.met,
  );

  const { warm } = cold;
  detail(
    `\n### Warm: error and decision against the fastest real call (goal: under ${WARM_GOAL_SHARE * 100} %)\n`,
  );
  detail(
    `In the last of those processes, once its first failures were done: ${warm.rounds} rounds, each running every failure's path (classified and reported through its adapter's \`withClassifiedErrors\`, batches of calls) and a healthy chat completion through the real openai SDK from the loopback server, the fastest real call in the bench. The share (the slowest failure against the call, wall time, what the caller waits) is taken within each round; its median over the rounds is reported, beside the medians of the parts.\n`,
  );
  detail('| failure | wall, per failure | CPU, per failure |');
  detail('|---|---|---|');
  FIRST_FAILURE_SCENARIOS.forEach((id, index) => {
    detail(
      `| \`${id}\` | ${formatNs(warm.failureWallMs[index]! * 1e6)} | ${formatNs(warm.failureCpuMs[index]! * 1e6)} |`,
    );
  });
  detail(
    `\nThe loopback call: ${formatNs(warm.callMs * 1e6)} (median). The slowest failure's share of it: ${share(warm.share)}; goal (under ${WARM_GOAL_SHARE * 100} %): ${verdict(warm.met)}.`,
  );
  goalRow(
    'Warm: one failure classified and reported, against the fastest real call (loopback, openai SDK)',
    `${share(warm.share)} (slowest of five ${formatNs(Math.max(...warm.failureWallMs) * 1e6)}; call ${formatNs(warm.callMs * 1e6)})`,
    `< ${WARM_GOAL_SHARE * 100} %`,
    warm.met,
  );
});

await section('success', async () => {
  const success = await benchSuccessPath();
  results.successPath = success;
  const ownCostNs = success.bare.ownCostNs;
  const ofCall = ownCostNs / success.sdk.direct.medianNs;
  const met = ownCostNs < SUCCESS_GOAL_NS;
  results.successPathOwnCostNs = ownCostNs;
  detail(
    `\n### Success path: \`withClassifiedErrors(fn)\` around a resolved call (goal: its own cost in the tens of nanoseconds, under ${SUCCESS_GOAL_NS} ns)\n`,
  );
  detail(
    "The bare function: CPU time, batches of calls in interleaved rounds (the last round shown; the overhead and the own cost are medians over the rounds of each round's figure). The real call: wall time, tinybench, 5 paired rounds.\n",
  );
  detail('| call | direct (median ± IQR) | wrapped (median ± IQR) | overhead (median over rounds) |');
  detail('|---|---|---|---|');
  for (const [label, row] of [
    ['a bare `async () => 42`', success.bare],
    ['a real openai chat call to the loopback server', success.sdk],
  ] as const) {
    detail(
      `| ${label} | ${formatNs(row.direct.medianNs)} ± ${formatNs(row.direct.iqrNs)} | ${formatNs(row.wrapped.medianNs)} ± ${formatNs(row.wrapped.iqrNs)} | ${percent(row.ratio)} |`,
    );
  }
  // The wrapper's own cost is measured exactly on the bare function; on a real call it drowns in
  // the call's own spread, so it is also given against the call's median.
  detail(
    `\nThe wrapper's own cost (bare wrapped − bare direct, median over rounds): ${formatNs(ownCostNs)}, ×${success.bare.ratio.toFixed(2)} the bare call, ${(ofCall * 100).toFixed(3)} % of the real call's median; goal: ${verdict(met)}. The paired real-call ratio above lies within that call's own spread.`,
  );
  goalRow(
    'Success path: `withClassifiedErrors` around a resolved call',
    `+${formatNs(ownCostNs)} (×${success.bare.ratio.toFixed(2)} a bare \`async () => 42\`; ${(ofCall * 100).toFixed(3)} % of the loopback call)`,
    `tens of ns (< ${SUCCESS_GOAL_NS} ns)`,
    met,
  );
});

await section('bundle', async () => {
  const rows = await measureBundles();
  results.bundle = rows;
  detail(
    `\n### Bundle: what wrapping one openai call adds to an app (goal: at most ${kilobytes(BUNDLE_GOAL_BYTES)} gzipped)\n`,
  );
  detail(
    "A minimal app (`new OpenAI()` and one exported function calling `chat.completions.create`) bundled by esbuild, minified ESM, with and without `withClassifiedErrors` around the call, from the built packages; `openai` is external in both, so the difference is faultline's weight alone. CI runs the same check (bench/src/check-bundle-size.ts) and fails above the goal.\n",
  );
  detail(
    '| platform | app alone, gzipped | app wrapped, gzipped | added, gzipped | added, minified | goal | heaviest inputs (minified) |',
  );
  detail('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    detail(
      `| ${row.platform} | ${kilobytes(row.bareGzipBytes)} | ${kilobytes(row.wrappedGzipBytes)} | ${kilobytes(row.addedGzipBytes)} | ${kilobytes(row.wrappedBytes - row.bareBytes)} | ${verdict(row.met)} | ${row.packages
        .slice(0, 5)
        .map((entry) => `${entry.name} ${kilobytes(entry.bytes)}`)
        .join(', ')} |`,
    );
  }
  goalRow(
    'Bundle: a minimal app wrapping one openai call (esbuild, minified ESM, openai external)',
    rows.map((row) => `+${kilobytes(row.addedGzipBytes)} gzipped (${row.platform})`).join(', '),
    `≤ ${kilobytes(BUNDLE_GOAL_BYTES)}`,
    rows.every((row) => row.met),
  );
});

await section('stream', async () => {
  const stream = await benchStreamGuard();
  results.streamGuard = stream;
  const { rows } = stream;
  const goal = `${(STREAM_GUARD_GOAL_SHARE * 100).toFixed(0)} %`;
  const perChunk = (row: { medianNs: number; iqrNs: number }, chunks: number) =>
    `${formatNs(row.medianNs / chunks)} ± ${formatNs(row.iqrNs / chunks)}`;
  const floorOf = (row: (typeof rows)[number], wrapper: string) =>
    row.floors.find((floor) => floor.wrapper === wrapper)!.addedNsPerChunk;
  detail(
    `\n### Stream guards: \`guardXStream(stream)\` against the stream alone (goal: under ${goal} of its SDK's own cost per chunk, every provider, idle timer on)\n`,
  );
  detail(
    `How it is measured: each provider in a Node process of its own that loads only its SDK and its guard (what an application using that SDK runs: every call site sees that one SDK's shapes), the providers one after another. In that process, each of ${stream.rounds} rounds runs, interleaved (order rotated from round to round): the real SDK's streams, the provider's chunks through the guard in memory, and the floors. The guard's share is taken within each round (its added cost per chunk in that round against the SDK's cost per chunk in that round, so that a slow round moves both) and the median of the rounds' shares is reported; every other figure is a median over the rounds too. Times are the process's CPU time (what its code did, not the moments another process held the core).\n`,
  );
  detail(
    `In memory: each provider's complete stream (${rows[0]?.chunks.toLocaleString('en')} chunks in its SDK's shape, ending with its terminal event) replayed by an async generator and drained; for the Stainless SDKs (${rows
      .filter((row) => row.source === 'sdk-stream')
      .map((row) => row.provider)
      .join(
        ', ',
      )}) the generator runs inside the SDK's own raw \`Stream\`, holding an AbortController whose abort ends the replay as the SDK's fetch ends the body it reads: what \`create({ stream: true })\` gives a user. Guarded: default options, idle timer on (${stream.idleTimeoutMs.toLocaleString('en')} ms); the chunks that come out are checked to be the very objects that went in. Per chunk: the last round's drain, median ± IQR over its chunks; added and ratio: medians over the rounds.\n`,
  );
  detail(
    '| provider | guard | unguarded, per chunk | guarded, per chunk | added per chunk | ratio | added, idle timer off |',
  );
  detail('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    detail(
      `| ${row.provider} | \`${row.guard}\` | ${perChunk(row.unguarded, row.chunks)} | ${perChunk(row.guarded, row.chunks)} | ${formatNs(row.addedNsPerChunk)} | ×${row.ratio.toFixed(2)} | ${formatNs(row.addedNsPerChunkTimerOff)} |`,
    );
  }
  detail(
    `\nThe floors, measured in each provider's process in the same rounds, over the same replay: wrappers that do nothing a guard does beyond looking at each step (none reads a chunk). Added per chunk:\n`,
  );
  detail(`| wrapper | ${rows.map((row) => row.provider).join(' | ')} |`);
  detail(`|---|${rows.map(() => '---|').join('')}`);
  for (const { wrapper, description } of STREAM_FLOORS) {
    detail(`| ${description} | ${rows.map((row) => formatNs(floorOf(row, wrapper))).join(' | ')} |`);
  }
  detail(
    `\nEach real SDK: a complete stream from a loopback server in a child process that writes it at once (SSE over HTTP/1.1; Bedrock's event stream over h2c), so that a chunk costs the SDK's own work (socket reads, parsing, JSON, iteration) rather than a model's pace; the server's work is in its own process, so the measuring process's CPU time is the SDK's. The SDK's own cost of one more chunk is (long stream − shortest stream) / (their difference in chunks), so the request's fixed cost is left out. Share: the guard's in-memory added cost per chunk against that, per round; floor share: the rejectable floor's, the same way.\n`,
  );
  detail(
    '| SDK | stream, unguarded (median ± IQR) | guarded | shortest stream | SDK cost per chunk | guard per chunk | share | goal | floor share | guarded on the real stream |',
  );
  detail('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    detail(
      `| \`${row.sdk}\` | ${formatNs(row.sdkUnguarded.medianNs)} ± ${formatNs(row.sdkUnguarded.iqrNs)} (${row.sdkChunks} chunks) | ${formatNs(row.sdkGuarded.medianNs)} ± ${formatNs(row.sdkGuarded.iqrNs)} | ${formatNs(row.shortStream.medianNs)} (${row.shortChunks} chunks) | ${formatNs(row.sdkNsPerChunk)} | ${formatNs(row.addedNsPerChunk)} | ${(row.share * 100).toFixed(2)} % | ${row.met ? 'met' : 'missed'} | ${(row.floorShare * 100).toFixed(2)} % | ${percent(row.streamRatio)} |`,
    );
  }
  const missed = rows.filter((row) => !row.met).map((row) => row.provider);
  // Where even the floor is above the goal, say what the goal asks for in nanoseconds.
  const unreachable = rows
    .filter((row) => row.floorShare >= STREAM_GUARD_GOAL_SHARE)
    .map(
      (row) =>
        `For ${row.provider}, ${goal} of its ${formatNs(row.sdkNsPerChunk)} per chunk is ${formatNs(row.sdkNsPerChunk * STREAM_GUARD_GOAL_SHARE)}: ${row.thenFloorShare >= STREAM_GUARD_GOAL_SHARE ? `less than one \`.then\` per \`next()\` (${formatNs(floorOf(row, 'then'))}), which any guard that classifies an error needs` : `less than a promise of its own per \`next()\` (${formatNs(floorOf(row, 'rejectable'))}), which any guard whose idle timer rejects a stalled read needs`}, so no async-iterator guard can meet it with the idle timer on by default (the least is ${formatNs(floorOf(row, 'rejectable'))}, ${(row.floorShare * 100).toFixed(2)} %).`,
    );
  // Where the rejectable floor fits the goal but reading the text on top of it does not: no guard
  // that counts delivered characters (every faultline guard does) can meet it in this run.
  const unreadable = rows
    .filter(
      (row) => row.floorShare < STREAM_GUARD_GOAL_SHARE && row.readingFloorShare >= STREAM_GUARD_GOAL_SHARE,
    )
    .map(
      (row) =>
        `For ${row.provider}, ${goal} of its ${formatNs(row.sdkNsPerChunk)} per chunk is ${formatNs(row.sdkNsPerChunk * STREAM_GUARD_GOAL_SHARE)}: the rejectable floor fits (${(row.floorShare * 100).toFixed(2)} %), but it plus reading the text each chunk delivers does not (${formatNs(floorOf(row, 'reading'))}, ${(row.readingFloorShare * 100).toFixed(2)} %), so no guard that counts delivered characters with the idle timer on can meet it in this run.`,
    );
  const aboveReading = rows
    .map((row) => `${row.provider} ${formatNs(row.addedNsPerChunk - floorOf(row, 'reading'))}`)
    .join(', ');
  results.streamGuardGoalMet = missed.length === 0;
  detail(
    `\nGoal (every guard under ${goal} of its SDK's cost per chunk): ${missed.length === 0 ? 'met' : `missed (${missed.join(', ')})`}. The floor share is the least any async-iterator guard whose idle timer rejects a stalled read can add on that SDK's stream (the rejectable floor: every guard's default), against the SDK's cost per chunk. ${[...unreachable, ...unreadable].join(' ')}${unreachable.length + unreadable.length === 0 ? '' : ' '}Each guard above the reading floor (the rejectable floor plus reading the chunk's text, which counting delivered characters needs): ${aboveReading}. The last column, guarded against unguarded on the real stream itself, lies within that stream's own spread.`,
  );
  const paced = rows[0]?.paced;
  detail(
    `\nThe same SDKs at a model's pace: the server writes one chunk a millisecond (${paced?.sdkChunks ?? 0}-chunk and ${paced?.shortChunks ?? 0}-chunk streams; ${paced?.samples ?? 0} of each kind a round, taking turns, in the same ${paced?.rounds ?? 0} rounds' process), so that every chunk reaches the client in a read of its own, as a model's tokens do (20–100 a second): the SDK then spends a socket read, a body-stream read, decoding and parsing on every chunk, where a stream written at once shares each read among many chunks. The waits cost the client no CPU time. SDK cost per chunk and share as above; the guard's added cost is the in-memory figure above.\n`,
  );
  detail(
    '| SDK | stream, unguarded (median ± IQR) | guarded | shortest stream | SDK cost per chunk | guard per chunk | share | goal | floor share | guarded on the real stream |',
  );
  detail('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const { paced: at } = row;
    detail(
      `| \`${row.sdk}\` | ${formatNs(at.long.medianNs)} ± ${formatNs(at.long.iqrNs)} (${at.sdkChunks} chunks) | ${formatNs(at.guarded.medianNs)} ± ${formatNs(at.guarded.iqrNs)} | ${formatNs(at.short.medianNs)} (${at.shortChunks} chunks) | ${formatNs(at.sdkNsPerChunk)} | ${formatNs(row.addedNsPerChunk)} | ${(at.share * 100).toFixed(2)} % | ${at.share < STREAM_GUARD_GOAL_SHARE ? 'met' : 'missed'} | ${(at.floorShare * 100).toFixed(2)} % | ${percent(at.streamRatio)} |`,
    );
  }
  const pacedMissed = rows
    .filter((row) => !(row.paced.share < STREAM_GUARD_GOAL_SHARE))
    .map((row) => row.provider);
  results.streamGuardGoalMetAtPace = pacedMissed.length === 0;
  const worst = rows.reduce((most, row) => (row.paced.share > most.paced.share ? row : most));
  goalRow(
    "Stream guards at a model's pace (one chunk a millisecond), against the SDK's own cost per chunk",
    `${share(worst.paced.share)} at most (${worst.provider}; ${formatNs(worst.addedNsPerChunk)} a chunk); written at once: ${rows.length - missed.length} of ${rows.length} under ${goal}`,
    `< ${goal}, every provider`,
    pacedMissed.length === 0,
  );
  detail(
    `\nAt a model's pace, the goal: ${pacedMissed.length === 0 ? 'met, every provider' : `missed (${pacedMissed.join(', ')})`}. Written at once, each chunk costs its SDK the least it can (the strict reading of the goal, the first table); at a model's pace, what it costs in a real stream.`,
  );
});

await section('footprint', () => {
  const footprint = benchFootprint([
    'packages/classify',
    'packages/render',
    'packages/stainless',
    ...DRIVEN_PROVIDERS.map((name) => `packages/extract-${name}`),
  ]);
  results.footprint = footprint;
  detail('\n### Install footprint (goal: no SDK, nothing but faultline and valibot)\n');
  detail('| package | packed | unpacked |');
  detail('|---|---|---|');
  for (const row of footprint.packed) {
    detail(
      `| \`${row.name}\` | ${(row.packedBytes / 1024).toFixed(1)} kB | ${(row.unpackedBytes / 1024).toFixed(1)} kB |`,
    );
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;
  detail(
    `\n\`npm install @faultline/extract-openai\` gives ${footprint.extractOpenai.packages.length} packages (${kb(footprint.extractOpenai.bytes)}): ${footprint.extractOpenai.packages.map((name) => `\`${name}\``).join(', ')}.`,
  );
  detail(
    `The openai SDK alone, for scale: ${footprint.openaiSdk.packages.length} packages (${kb(footprint.openaiSdk.bytes)}).`,
  );
  const retained = benchRetained();
  results.retained = retained;
  detail(
    `\n### Retained memory per error (goal: a FaultlineError and its report retain no more than the SDK error already does)\n`,
  );
  detail(
    `In a fresh process with \`--expose-gc\`: ${retained[0]?.errors.toLocaleString('en')} real SDK errors of each provider (rebuilt by the SDK from what it threw for the provider's rate-limit scenario) held alive, heap measured after a full GC; then a FaultlineError and its report for each, the SDK error (their cause) still held, so that the second figure is faultline's own.\n`,
  );
  detail(
    "The floor is the same facts as the smallest plain data, measured the same way beside them: the report, its provider metadata when it holds a request id, the error's metadata and an Error with the error's fields, each object exactly its members in size, every value shared with the real ones (bench/src/retained-floor.ts). Where the floor alone is above the SDK error, no design that keeps those facts meets the goal.\n",
  );
  detail('| provider | SDK error, retained | FaultlineError + report, retained | floor | ratio | goal |');
  detail('|---|---|---|---|---|---|');
  for (const row of retained) {
    const verdict = row.met ? 'met' : row.floorAboveGoal ? 'missed (floor above the SDK error)' : 'missed';
    detail(
      `| ${row.provider} | ${row.sdkBytesPerError.toFixed(0)} B | ${row.faultlineBytesPerError.toFixed(0)} B | ${row.floorBytesPerError.toFixed(0)} B | ×${row.ratio.toFixed(2)} | ${verdict} |`,
    );
  }
});

await section('retry', async () => {
  const decisions = await benchRetryDecisions();
  results.retryDecisions = decisions;
  detail('\n### Retry decisions over every fixture scenario\n');
  detail(
    'Each scenario is played to each policy by the loopback server; retries are counted at the server and the backoff each policy asked for is recorded (and skipped, so no real time passes). Wasted: retries of a failure no retry can fix. Missed: a transient failure not retried. Deferred: handed back at once because the provider asked for a wait longer than the 60 s cap, for a scheduler to honour.\n',
  );
  detail('| provider | policy | scenarios | wasted retries | wasted backoff | missed retries | deferred |');
  detail('|---|---|---|---|---|---|---|');
  for (const row of decisions) {
    detail(
      `| ${row.provider} | ${row.policy} | ${row.scenarios} | ${row.wastedRetries} | ${row.wastedBackoffSeconds.toFixed(1)} s | ${row.missedRetries} | ${row.deferred} |`,
    );
  }
});

await section('resilience', async () => {
  // RESILIENCE_SCALE compresses time (0.1: a simulated second lasts 100 ms); default 1, real time.
  const scale = Number(process.env.RESILIENCE_SCALE ?? '1');
  const resilience = await benchResilience(Number.isFinite(scale) && scale > 0 ? scale : 1);
  results.resilience = resilience;
  const [before, outage, after] = resilience.phasesSeconds;
  detail(`\n### A provider outage under load: ${resilience.callers} concurrent callers, two candidates\n`);
  detail(
    `The primary answers 503 (OpenAI's overloaded body) for ${outage} s, after ${before} s of health, then is healthy for ${after} s; the backup stays healthy. Each caller calls, waits ${resilience.thinkSeconds} s, and calls again. Requests are counted at the loopback server; latency is per call (retries and fallback included)${resilience.scale === 1 ? '' : `; time compressed ×${(1 / resilience.scale).toFixed(0)} (phases, think time, faultline's backoff and breaker windows scaled; the SDK's own backoff is not, latencies are given in simulated time)`}.\n`,
  );
  detail(
    '| policy | calls | success rate | requests to the failing provider | total requests | primary requests after it recovered | p50 | p99 |',
  );
  detail('|---|---|---|---|---|---|---|---|');
  for (const row of resilience.rows) {
    detail(
      `| ${row.policy} | ${row.calls.toLocaleString('en')} | ${(row.successRate * 100).toFixed(1)} % | ${row.requestsToFailingProvider.toLocaleString('en')} | ${row.totalRequests.toLocaleString('en')} | ${row.primaryRequestsAfterOutage.toLocaleString('en')} | ${row.p50Ms.toFixed(0)} ms | ${row.p99Ms.toFixed(0)} ms |`,
    );
  }
});

await section('rate-limit', async () => {
  const rateLimit = await benchRateLimit();
  results.rateLimit = rateLimit;
  const before = rateLimit.rows.find((row) => row.policy.includes('before the budget'));
  const best = rateLimit.rows.find((row) => row.policy.includes('(the default)'));
  if (before !== undefined && best !== undefined)
    goalRow(
      "share of a rate-limited primary's capacity it serves (faultline chain, default options)",
      `${(best.capacityShare * 100).toFixed(1)} % (${(best.capacityShare / before.capacityShare).toFixed(2)}× the chain before the budget; 429s ${best.rateLimited} vs ${before.rateLimited}; p99 ${best.p99Ms.toFixed(0)} vs ${before.p99Ms.toFixed(0)} ms)`,
      '≥ 90 %',
      best.capacityShare >= 0.9,
    );
  detail(
    `\n### A rate-limited primary: ${rateLimit.callers} concurrent callers, ${rateLimit.limitPerSecond} requests a second admitted\n`,
  );
  detail(
    `The primary (@faultline/llm-mock, \`rateLimit\`) admits ${rateLimit.limitPerSecond} requests per one-second window and answers 429 beyond that, with a whole-second \`retry-after\` and OpenAI's \`x-ratelimit-*\` headers (the reset in milliseconds); the backup is healthy. Each caller calls through the real openai SDK, waits ${rateLimit.thinkMs} ms, and calls again, for ${rateLimit.seconds} s (about twice what the primary admits). The primary's answers and 429s are counted at its server within the run's whole windows, against what it could have admitted over those windows (a window in which the callers began fewer calls than the limit is counted, so that a machine too busy to offer the load shows); latency is per call (retries, waits and fallback included). "Before the budget" is the same chain with the rate-limit headers withheld from it and no wait for a reset: the whole-second retry-after cools the key and a cooling key is skipped, as the chain did before it read budgets.\n`,
  );
  detail(
    '| policy | calls | primary served | share of its capacity | 429s sent | backup served | windows under-offered | p50 | p99 |',
  );
  detail('|---|---|---|---|---|---|---|---|---|');
  for (const row of rateLimit.rows) {
    detail(
      `| ${row.policy} | ${row.calls.toLocaleString('en')} | ${row.primaryServed.toLocaleString('en')} of ${row.primaryCapacity.toLocaleString('en')} | ${(row.capacityShare * 100).toFixed(1)} % | ${row.rateLimited} | ${row.backupServed.toLocaleString('en')} | ${row.underOfferedWindows} | ${row.p50Ms.toFixed(0)} ms | ${row.p99Ms.toFixed(0)} ms |`,
    );
  }
});

await section('mixed-failures', async () => {
  const mixed = await benchMixedFailures();
  results.mixedFailures = mixed;
  const table = mixedFailuresTable(mixed);
  for (const line of table) detail(line);
  // One run of its own, so its table is written whenever it runs, alone or with the rest.
  const date = new Date().toISOString().slice(0, 10);
  const path = `${root}docs/benchmarks.md`;
  const page = readFileSync(path, 'utf8');
  const start = '<!-- mixed-failures:start -->';
  const end = '<!-- mixed-failures:end -->';
  const block = [
    start,
    `_Generated by \`pnpm bench mixed-failures\` (bench/src/mixed-failures.ts) on ${commit}, ${date}; Node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)} at the end (latencies are this machine's, under that load; compare them within the table)._`,
    ...table,
    end,
  ].join('\n');
  const at = page.indexOf(start);
  writeFileSync(
    path,
    at >= 0
      ? page.slice(0, at) + block + page.slice(page.indexOf(end) + end.length)
      : page.replace('<!-- corpus:start -->', `${block}\n\n<!-- corpus:start -->`),
  );
});

/** The run's own facts in latest.json; every other key is a section's figures. */
const RUN_KEYS = new Set([
  'date',
  'commit',
  'node',
  'cpu',
  'cores',
  'loadAverageAtStart',
  'loadAverageAtEnd',
  'totalSeconds',
  'sectionSeconds',
  'sectionRuns',
]);
const latestJson = new URL('../results/latest.json', import.meta.url);

/**
 * What latest.json holds after this run: a whole run's figures as they are; a partial run's
 * sections over the last file's (its run facts stay those of the run that wrote it), so that
 * `pnpm bench <section>` never drops the figures of the sections it did not run. `sectionRuns`
 * names the run each section's figures come from.
 */
function latestFigures(): Record<string, unknown> {
  const run = {
    date: results.date,
    commit,
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: results.loadAverageAtEnd,
  };
  const runs = Object.fromEntries(Object.keys(sectionSeconds).map((name) => [name, run]));
  if (only.size === 0) return { ...results, sectionRuns: runs };
  let previous: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(latestJson, 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      previous = parsed as Record<string, unknown>;
  } catch {
    // No file yet, or one that is not JSON: this run's sections are all there is.
  }
  const asRecord = (value: unknown) =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = { ...previous };
  for (const [key, value] of Object.entries(results)) if (!RUN_KEYS.has(key)) merged[key] = value;
  if (Object.keys(previous).length === 0)
    for (const key of RUN_KEYS) if (key in results) merged[key] = results[key];
  merged.sectionSeconds = { ...asRecord(previous.sectionSeconds), ...sectionSeconds };
  merged.sectionRuns = { ...asRecord(previous.sectionRuns), ...runs };
  return merged;
}

const totalSeconds = (performance.now() - started) / 1000;
results.totalSeconds = totalSeconds;
results.loadAverageAtEnd = loadavg()[0]!;
const machine = `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadAtStart.toFixed(1)} at the start and ${(results.loadAverageAtEnd as number).toFixed(1)} at the end`;
const took = `${totalSeconds.toFixed(0)} s (${Object.entries(sectionSeconds)
  .map(([name, seconds]) => `${name} ${seconds.toFixed(0)} s`)
  .join(', ')})`;
console.log(`\nbench: ${took}`);
writeFileSync(latestJson, `${JSON.stringify(latestFigures(), null, 2)}\n`);
if (only.size === 0) {
  const date = new Date().toISOString().slice(0, 10);
  writeFileSync(
    new URL('../results/latest.md', import.meta.url),
    `# Cost tables\n\n_Generated by \`pnpm bench\` (bench/src/run.ts) on ${commit}, ${date}; ${machine}; the run took ${took}. Raw figures: [latest.json](latest.json); the summary is in [docs/benchmarks.md](../../docs/benchmarks.md)._\n${details.join('\n')}\n`,
  );
  const readmePath = `${root}docs/benchmarks.md`;
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const section = [
    start,
    `_Generated by \`pnpm bench\` on ${commit}, ${date} (${machine}). Every table, and how each figure is measured: [bench/results/latest.md](../bench/results/latest.md)._`,
    '',
    '| what a user pays | measured | goal | |',
    '|---|---|---|---|',
    ...summary,
    '',
    'Also in the tables: the stream guards written at once and their floors, the install footprint, the memory each error retains, the retries each policy wastes or misses over every fixture scenario, a provider outage under load, and a rate-limited primary. Mixed failures beside ai-fallback, ai-retry and the AI SDK retry have their own section below (`pnpm bench mixed-failures`).',
    end,
  ].join('\n');
  const at = readme.indexOf(start);
  const updated =
    at >= 0
      ? readme.slice(0, at) + section + readme.slice(readme.indexOf(end) + end.length)
      : `${readme.trimEnd()}\n\n${section}\n`;
  writeFileSync(readmePath, updated);
}
