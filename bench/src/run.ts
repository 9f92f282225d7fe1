// `pnpm bench`: every figure of the cost-and-accuracy benchmark, as a markdown table on stdout,
// JSON in bench/results/latest.json, and docs/benchmarks.md's bench section regenerated.
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DRIVEN_PROVIDERS, startScenarioServers } from '@faultline/scenario-driver';
import { benchClassifyThroughput, CLASSIFY_GOAL_PER_SECOND } from './classify-throughput.ts';
import { benchErrorPath, ERROR_PATH_GOAL_SHARE } from './error-path.ts';
import { benchFootprint } from './footprint.ts';
import {
  APPLICATION_CHARACTERS,
  BARE_NODE,
  benchImportCost,
  IMPORT_ROUNDS,
  REFERENCE_ROUNDS,
} from './import-cost.ts';
import { benchResilience } from './resilience.ts';
import { benchRetained } from './retained.ts';
import { benchRetryDecisions } from './retry-decisions.ts';
import { formatNs } from './statistics.ts';
import { benchStreamGuard, STREAM_FLOORS, STREAM_GUARD_GOAL_SHARE } from './stream-guard.ts';
import { benchSuccessPath } from './success-path.ts';

/** The import goal: an adapter's cold import at most this far above a bare Node process. */
const IMPORT_GOAL_MS = 20;

const root = fileURLToPath(new URL('../..', import.meta.url));
const only = new Set(process.argv.slice(2));
const wants = (section: string) => only.size === 0 || only.has(section);
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(2)} %`;
const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};
const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  cores: availableParallelism(),
};

say(
  `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${new Date().toISOString().slice(0, 10)}.`,
);

if (wants('success')) {
  const success = await benchSuccessPath();
  results.successPath = success;
  say('\n### Success path: `withClassifiedErrors(fn)` against `fn` alone (goal: within 2 %)\n');
  say('| call | direct (median ± IQR) | wrapped (median ± IQR) | overhead (median of 5 paired rounds) |');
  say('|---|---|---|---|');
  for (const [label, row] of [
    ['a bare `async () => 42`', success.bare],
    ['a real openai chat call to the loopback server', success.sdk],
  ] as const) {
    say(
      `| ${label} | ${formatNs(row.direct.medianNs)} ± ${formatNs(row.direct.iqrNs)} | ${formatNs(row.wrapped.medianNs)} ± ${formatNs(row.wrapped.iqrNs)} | ${percent(row.ratio)} |`,
    );
  }
  // The wrapper's own cost is measured exactly on the bare function; on a real call it drowns in
  // the call's own spread, so it is reported as that absolute cost against the call's median.
  const ownCostNs = success.bare.wrapped.medianNs - success.bare.direct.medianNs;
  const share = ownCostNs / success.sdk.direct.medianNs;
  results.successPathOverheadShare = share;
  say(
    `\nThe wrapper's own cost (bare wrapped − bare direct) is ${formatNs(ownCostNs)}: ${(share * 100).toFixed(3)} % of the real call's median (goal: within 2 %). The paired real-call ratio above lies within that call's own spread.`,
  );
}

if (wants('stream')) {
  const stream = await benchStreamGuard();
  results.streamGuard = stream;
  const { rows } = stream;
  const goal = `${(STREAM_GUARD_GOAL_SHARE * 100).toFixed(0)} %`;
  const perChunk = (row: { medianNs: number; iqrNs: number }, chunks: number) =>
    `${formatNs(row.medianNs / chunks)} ± ${formatNs(row.iqrNs / chunks)}`;
  const floorOf = (row: (typeof rows)[number], wrapper: string) =>
    row.floors.find((floor) => floor.wrapper === wrapper)!.addedNsPerChunk;
  say(
    `\n### Stream guards: \`guardXStream(stream)\` against the stream alone (goal: under ${goal} of its SDK's own cost per chunk, every provider, idle timer on)\n`,
  );
  say(
    `How it is measured: each provider in a Node process of its own that loads only its SDK and its guard (what an application using that SDK runs: every call site sees that one SDK's shapes), the providers one after another. In that process, each of ${stream.rounds} rounds runs, interleaved (order rotated from round to round): the real SDK's streams, the provider's chunks through the guard in memory, and the floors. The guard's share is taken within each round (its added cost per chunk in that round against the SDK's cost per chunk in that round, so that a slow round moves both) and the median of the rounds' shares is reported; every other figure is a median over the rounds too. Times are the process's CPU time (what its code did, not the moments another process held the core).\n`,
  );
  say(
    `In memory: each provider's complete stream (${rows[0]?.chunks.toLocaleString('en')} chunks in its SDK's shape, ending with its terminal event) replayed by an async generator and drained; for the Stainless SDKs (${rows
      .filter((row) => row.source === 'sdk-stream')
      .map((row) => row.provider)
      .join(
        ', ',
      )}) the generator runs inside the SDK's own raw \`Stream\`, holding an AbortController whose abort ends the replay as the SDK's fetch ends the body it reads: what \`create({ stream: true })\` gives a user. Every guard keeps a promise of its own per pull for the idle timer to reject. Guarded: default options, idle timer on (${stream.idleTimeoutMs.toLocaleString('en')} ms); the chunks that come out are checked to be the very objects that went in. Per chunk: the last round's drain, median ± IQR over its chunks; added and ratio: medians over the rounds.\n`,
  );
  say(
    '| provider | guard | unguarded, per chunk | guarded, per chunk | added per chunk | ratio | added, idle timer off |',
  );
  say('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    say(
      `| ${row.provider} | \`${row.guard}\` | ${perChunk(row.unguarded, row.chunks)} | ${perChunk(row.guarded, row.chunks)} | ${formatNs(row.addedNsPerChunk)} | ×${row.ratio.toFixed(2)} | ${formatNs(row.addedNsPerChunkTimerOff)} |`,
    );
  }
  say(
    `\nThe floors, measured in each provider's process in the same rounds, over the same replay: wrappers that do nothing a guard does beyond looking at each step (none reads a chunk). Added per chunk:\n`,
  );
  say(`| wrapper | ${rows.map((row) => row.provider).join(' | ')} |`);
  say(`|---|${rows.map(() => '---|').join('')}`);
  for (const { wrapper, description } of STREAM_FLOORS) {
    say(`| ${description} | ${rows.map((row) => formatNs(floorOf(row, wrapper))).join(' | ')} |`);
  }
  say(
    `\nEach real SDK: a complete stream from a loopback server in a child process that writes it at once (SSE over HTTP/1.1; Bedrock's event stream over h2c), so that a chunk costs the SDK's own work (socket reads, parsing, JSON, iteration) rather than a model's pace; the server's work is in its own process, so the measuring process's CPU time is the SDK's. The SDK's own cost of one more chunk is (long stream − shortest stream) / (their difference in chunks), so the request's fixed cost is left out. Share: the guard's in-memory added cost per chunk against that, per round; floor share: the rejectable floor's, the same way.\n`,
  );
  say(
    '| SDK | stream, unguarded (median ± IQR) | guarded | shortest stream | SDK cost per chunk | guard per chunk | share | goal | floor share | guarded on the real stream |',
  );
  say('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    say(
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
  say(
    `\nGoal (every guard under ${goal} of its SDK's cost per chunk): ${missed.length === 0 ? 'met' : `missed (${missed.join(', ')})`}. The floor share is the least any async-iterator guard whose idle timer rejects a stalled read can add on that SDK's stream (the rejectable floor: every guard's default), against the SDK's cost per chunk. ${[...unreachable, ...unreadable].join(' ')}${unreachable.length + unreadable.length === 0 ? '' : ' '}Each guard above the reading floor (the rejectable floor plus reading the chunk's text, which counting delivered characters needs): ${aboveReading}. The last column, guarded against unguarded on the real stream itself, lies within that stream's own spread.`,
  );
  const paced = rows[0]?.paced;
  say(
    `\nThe same SDKs at a model's pace: the server writes one chunk a millisecond (${paced?.sdkChunks ?? 0}-chunk and ${paced?.shortChunks ?? 0}-chunk streams; ${paced?.samples ?? 0} of each kind a round, taking turns, in the same ${paced?.rounds ?? 0} rounds' process), so that every chunk reaches the client in a read of its own, as a model's tokens do (20–100 a second): the SDK then spends a socket read, a body-stream read, decoding and parsing on every chunk, where a stream written at once shares each read among many chunks. The waits cost the client no CPU time. SDK cost per chunk and share as above; the guard's added cost is the in-memory figure above.\n`,
  );
  say(
    '| SDK | stream, unguarded (median ± IQR) | guarded | shortest stream | SDK cost per chunk | guard per chunk | share | goal | floor share | guarded on the real stream |',
  );
  say('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const { paced: at } = row;
    say(
      `| \`${row.sdk}\` | ${formatNs(at.long.medianNs)} ± ${formatNs(at.long.iqrNs)} (${at.sdkChunks} chunks) | ${formatNs(at.guarded.medianNs)} ± ${formatNs(at.guarded.iqrNs)} | ${formatNs(at.short.medianNs)} (${at.shortChunks} chunks) | ${formatNs(at.sdkNsPerChunk)} | ${formatNs(row.addedNsPerChunk)} | ${(at.share * 100).toFixed(2)} % | ${at.share < STREAM_GUARD_GOAL_SHARE ? 'met' : 'missed'} | ${(at.floorShare * 100).toFixed(2)} % | ${percent(at.streamRatio)} |`,
    );
  }
  const pacedMissed = rows
    .filter((row) => !(row.paced.share < STREAM_GUARD_GOAL_SHARE))
    .map((row) => row.provider);
  results.streamGuardGoalMetAtPace = pacedMissed.length === 0;
  say(
    `\nAt a model's pace, the goal: ${pacedMissed.length === 0 ? 'met, every provider' : `missed (${pacedMissed.join(', ')})`}. Written at once, each chunk costs its SDK the least it can (the strict reading of the goal, the first table); at a model's pace, what it costs in a real stream.`,
  );
}

if (wants('error') || wants('retry')) {
  const servers = await startScenarioServers();
  try {
    if (wants('error')) {
      const errorPath = await benchErrorPath(servers);
      results.errorPath = errorPath;
      say(
        `\n### Error path: a real SDK error classified, against the SDK constructing it (goal: the error at throw time within ${ERROR_PATH_GOAL_SHARE * 100} %)\n`,
      );
      say(
        'The sample is what the real SDK threw for the provider\'s rate-limit scenario against the loopback server; the baseline is the SDK building that same error again, measured in the same run. "At throw" is `classifyError(thrown)`: what a throw site (and `withClassifiedErrors` without retries) pays, a stack-less FaultlineError built with its extraction, classification and message. The goal is judged on it. "Error and decision" adds reading `classification` (what a retry loop reads before deciding); "whole path" adds `toErrorReport()` too: both are shown with their own ratios.\n',
      );
      say(
        '| provider | SDK error | SDK constructs it | at throw | ratio | goal | error and decision | ratio | whole path | ratio | whole paths per second (one core) |',
      );
      say('|---|---|---|---|---|---|---|---|---|---|---|');
      for (const row of errorPath) {
        say(
          `| ${row.provider} | ${row.sdkError} | ${formatNs(row.construct.medianNs)} ± ${formatNs(row.construct.iqrNs)} | ${formatNs(row.atThrow.medianNs)} ± ${formatNs(row.atThrow.iqrNs)} | ${(row.atThrowRatio * 100).toFixed(0)} % | ${row.met ? 'met' : 'missed'} | ${formatNs(row.decide.medianNs)} ± ${formatNs(row.decide.iqrNs)} | ${(row.decideRatio * 100).toFixed(0)} % | ${formatNs(row.classify.medianNs)} ± ${formatNs(row.classify.iqrNs)} | ${(row.ratio * 100).toFixed(0)} % | ${Math.round(row.perSecond).toLocaleString('en')} |`,
        );
      }
      const throughput = await benchClassifyThroughput(servers);
      results.classifyThroughput = throughput;
      say(
        `\n\`classify\` alone on ${throughput.messages} real provider messages of 300–500 characters (corpus cases played through their SDKs and extractors; mean ${throughput.meanMessageLength} characters): ${formatNs(throughput.classify.medianNs)} ± ${formatNs(throughput.classify.iqrNs)} a call, ${Math.round(throughput.perSecond).toLocaleString('en')} a second on one core, ×${throughput.ratioToGoal.toFixed(2)} the goal of ${CLASSIFY_GOAL_PER_SECOND.toLocaleString('en')}: ${throughput.met ? 'met' : 'missed'}. Measured as a batch rate: CPU time over batches of about 1,000 calls cycling through the messages, the median over 9 rounds (± the rounds' IQR). For scale, in the same rounds, lower-casing each message and reading its characters once costs ${formatNs(throughput.onePass.medianNs)} a message on this machine.`,
      );
    }
  } finally {
    await servers.close();
  }
}

if (wants('import')) {
  const adapters: ReadonlyArray<readonly [string, string]> = [
    ['@faultline/extract-openai', 'openai'],
    ['@faultline/extract-anthropic', '@anthropic-ai/sdk'],
    ['@faultline/extract-google-genai', '@google/genai'],
    ['@faultline/extract-bedrock', '@aws-sdk/client-bedrock-runtime'],
    ['@faultline/extract-mistral', '@mistralai/mistralai'],
    ['@faultline/extract-groq', 'groq-sdk'],
  ];
  // The entries an adapter loads (classify/toolkit, render/toolkit) and the adapters, then the
  // references: the application entries, and the SDKs.
  const specifiers = [
    '@faultline/classify/toolkit',
    '@faultline/render/toolkit',
    ...adapters.map(([adapter]) => adapter),
  ];
  const references = ['@faultline/classify', '@faultline/render', ...adapters.map(([, sdk]) => sdk)];
  const mappedSpecifiers = adapters.map(([adapter]) => adapter);
  const imports = benchImportCost(specifiers, references, mappedSpecifiers);
  results.importCost = imports;
  const plain = imports.filter((row) => !row.sourceMaps && !row.afterApplication);
  const mapped = imports.filter((row) => row.sourceMaps && !row.afterApplication);
  const inApplication = imports.filter((row) => row.afterApplication);
  const bare = plain.find((row) => row.specifier === BARE_NODE)!;
  const mappedBare = mapped.find((row) => row.specifier === BARE_NODE)!;
  const applicationBare = (sourceMaps: boolean) =>
    inApplication.find((row) => row.specifier === BARE_NODE && row.sourceMaps === sourceMaps)!;
  say(
    `\n### Cold import time (fresh Node process, built packages; ${IMPORT_ROUNDS} interleaved rounds, ${REFERENCE_ROUNDS} for zod, the SDKs and the zod-loading entries)\n`,
  );
  say(
    `CPU time is what the import itself costs (user + system, every thread). Wall-clock time adds the waits for a core, which on a shared machine move a median by several milliseconds between runs; the goal is judged on CPU time. Rows marked \`--enable-source-maps\` ran with that flag (what many TypeScript applications run with: Node then reads and parses the source map of every file it loads), measured in the same rounds and set against a bare process run with the flag too. Rows marked \`after the application\` ran after a ${(APPLICATION_CHARACTERS / 1000).toFixed(0)} kB module with its own map had loaded (untimed), set against a process that loads only that module: what an adapter adds to an application, which has imported before (a warm loader) and, with the flag, whose own mapped code has already paid Node's first-map cost (see import-cost.ts).\n`,
  );
  say(
    '| module | CPU median | above a bare process (CPU) | wall median | wall min–max | wall, above bare | against zod (wall) |',
  );
  say('|---|---|---|---|---|---|---|');
  // Shown as before: the zod-loading entries beside the adapter's, each adapter beside its SDK.
  const shown = [
    BARE_NODE,
    'zod',
    references[0],
    specifiers[0],
    references[1],
    specifiers[1],
    ...adapters.flat(),
  ];
  for (const row of [
    ...shown.map((specifier) => plain.find((candidate) => candidate.specifier === specifier)!),
    ...mapped,
    ...inApplication,
  ]) {
    const base = row.afterApplication ? applicationBare(row.sourceMaps) : row.sourceMaps ? mappedBare : bare;
    const flag = `${row.sourceMaps ? ', `--enable-source-maps`' : ''}${row.afterApplication ? ', after the application' : ''}`;
    const name = `\`${row.specifier}\`${flag}`;
    say(
      `| ${name} | ${row.cpuMedianMs.toFixed(1)} ms | ${(row.cpuMedianMs - base.cpuMedianMs).toFixed(1)} ms | ${row.medianMs.toFixed(1)} ms | ${row.minMs.toFixed(1)}–${row.maxMs.toFixed(1)} ms | ${(row.medianMs - base.medianMs).toFixed(1)} ms | ×${row.ratioToZod.toFixed(2)} |`,
    );
  }
  const importGoals = adapters.map(([adapter, sdk]) => {
    const own = plain.find((row) => row.specifier === adapter)!;
    const served = plain.find((row) => row.specifier === sdk)!;
    const above = own.cpuMedianMs - bare.cpuMedianMs;
    return {
      adapter,
      sdk,
      aboveBareMs: above,
      sdkMs: served.cpuMedianMs,
      wallAboveBareMs: own.medianMs - bare.medianMs,
      met: above <= IMPORT_GOAL_MS && own.cpuMedianMs < served.cpuMedianMs,
    };
  });
  results.importGoals = importGoals;
  say(
    `\nGoal: an adapter's cold import at most ${IMPORT_GOAL_MS} ms of CPU time above the bare process (the script importing nothing, measured in the same run) and below its SDK's. ${importGoals.map((row) => `\`${row.adapter}\`: ${row.aboveBareMs.toFixed(1)} ms above (wall median ${row.wallAboveBareMs.toFixed(1)} ms), against \`${row.sdk}\` ${row.sdkMs.toFixed(1)} ms, ${row.met ? 'met' : 'missed'}`).join('; ')}.`,
  );
  // The same goal under `--enable-source-maps`, against the bare process run with that flag. The
  // SDK is measured without it; with the flag, an SDK that ships maps only costs more.
  const mappedImportGoals = adapters.map(([adapter, sdk]) => {
    const own = mapped.find((row) => row.specifier === adapter)!;
    const served = plain.find((row) => row.specifier === sdk)!;
    const above = own.cpuMedianMs - mappedBare.cpuMedianMs;
    return {
      adapter,
      aboveBareMs: above,
      wallAboveBareMs: own.medianMs - mappedBare.medianMs,
      met: above <= IMPORT_GOAL_MS && own.cpuMedianMs < served.cpuMedianMs,
    };
  });
  results.mappedImportGoals = mappedImportGoals;
  say(
    `\nThe same goal with \`--enable-source-maps\` (above a bare process run with the flag; the SDK measured without it): ${mappedImportGoals.map((row) => `\`${row.adapter}\`: ${row.aboveBareMs.toFixed(1)} ms above (wall median ${row.wallAboveBareMs.toFixed(1)} ms), ${row.met ? 'met' : 'missed'}`).join('; ')}.`,
  );
  // Not a goal line: what the adapter adds under the flag to a process whose own mapped module
  // loaded first (import-cost.ts, APPLICATION_CHARACTERS), beside the row above.
  const applicationCosts = adapters.map(([adapter]) => {
    const above = (sourceMaps: boolean) =>
      inApplication.find((row) => row.specifier === adapter && row.sourceMaps === sourceMaps)!.cpuMedianMs -
      applicationBare(sourceMaps).cpuMedianMs;
    return { adapter, plainMs: above(false), mappedMs: above(true) };
  });
  results.importAfterApplication = applicationCosts;
  say(
    `\nIn a process that had loaded an application's own mapped module first, an adapter's import added, with the flag (without): ${applicationCosts.map((row) => `\`${row.adapter}\` ${row.mappedMs.toFixed(1)} ms (${row.plainMs.toFixed(1)} ms)`).join(', ')} of CPU.`,
  );
}

if (wants('footprint')) {
  const footprint = benchFootprint([
    'packages/classify',
    'packages/render',
    'packages/stainless',
    ...DRIVEN_PROVIDERS.map((name) => `packages/extract-${name}`),
  ]);
  results.footprint = footprint;
  say('\n### Install footprint (goal: no SDK, nothing but faultline and zod)\n');
  say('| package | packed | unpacked |');
  say('|---|---|---|');
  for (const row of footprint.packed) {
    say(
      `| \`${row.name}\` | ${(row.packedBytes / 1024).toFixed(1)} kB | ${(row.unpackedBytes / 1024).toFixed(1)} kB |`,
    );
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;
  say(
    `\n\`npm install @faultline/extract-openai\` gives ${footprint.extractOpenai.packages.length} packages (${kb(footprint.extractOpenai.bytes)}): ${footprint.extractOpenai.packages.map((name) => `\`${name}\``).join(', ')}.`,
  );
  say(
    `The openai SDK alone, for scale: ${footprint.openaiSdk.packages.length} packages (${kb(footprint.openaiSdk.bytes)}).`,
  );
  const retained = benchRetained();
  results.retained = retained;
  say(
    `\n### Retained memory per error (goal: a FaultlineError and its report retain no more than the SDK error already does)\n`,
  );
  say(
    `In a fresh process with \`--expose-gc\`: ${retained[0]?.errors.toLocaleString('en')} real SDK errors of each provider (rebuilt by the SDK from what it threw for the provider's rate-limit scenario) held alive, heap measured after a full GC; then a FaultlineError and its report for each, the SDK error (their cause) still held, so that the second figure is faultline's own.\n`,
  );
  say(
    "The floor is the same facts as the smallest plain data, measured the same way beside them: the report, its provider metadata when it holds a request id, the error's metadata and an Error with the error's fields, each object exactly its members in size, every value shared with the real ones (bench/src/retained-floor.ts). Where the floor alone is above the SDK error, no design that keeps those facts meets the goal.\n",
  );
  say('| provider | SDK error, retained | FaultlineError + report, retained | floor | ratio | goal |');
  say('|---|---|---|---|---|---|');
  for (const row of retained) {
    const verdict = row.met ? 'met' : row.floorAboveGoal ? 'missed (floor above the SDK error)' : 'missed';
    say(
      `| ${row.provider} | ${row.sdkBytesPerError.toFixed(0)} B | ${row.faultlineBytesPerError.toFixed(0)} B | ${row.floorBytesPerError.toFixed(0)} B | ×${row.ratio.toFixed(2)} | ${verdict} |`,
    );
  }
}

if (wants('retry')) {
  const decisions = await benchRetryDecisions();
  results.retryDecisions = decisions;
  say('\n### Retry decisions over every fixture scenario\n');
  say(
    'Each scenario is played to each policy by the loopback server; retries are counted at the server and the backoff each policy asked for is recorded (and skipped, so no real time passes). Wasted: retries of a failure no retry can fix. Missed: a transient failure not retried. Deferred: handed back at once because the provider asked for a wait longer than the 60 s cap, for a scheduler to honour.\n',
  );
  say('| provider | policy | scenarios | wasted retries | wasted backoff | missed retries | deferred |');
  say('|---|---|---|---|---|---|---|');
  for (const row of decisions) {
    say(
      `| ${row.provider} | ${row.policy} | ${row.scenarios} | ${row.wastedRetries} | ${row.wastedBackoffSeconds.toFixed(1)} s | ${row.missedRetries} | ${row.deferred} |`,
    );
  }
}

if (wants('resilience')) {
  // RESILIENCE_SCALE compresses time (0.1: a simulated second lasts 100 ms); default 1, real time.
  const scale = Number(process.env.RESILIENCE_SCALE ?? '1');
  const resilience = await benchResilience(Number.isFinite(scale) && scale > 0 ? scale : 1);
  results.resilience = resilience;
  const [before, outage, after] = resilience.phasesSeconds;
  say(`\n### A provider outage under load: ${resilience.callers} concurrent callers, two candidates\n`);
  say(
    `The primary answers 503 (OpenAI's overloaded body) for ${outage} s, after ${before} s of health, then is healthy for ${after} s; the backup stays healthy. Each caller calls, waits ${resilience.thinkSeconds} s, and calls again. Requests are counted at the loopback server; latency is per call (retries and fallback included)${resilience.scale === 1 ? '' : `; time compressed ×${(1 / resilience.scale).toFixed(0)} (phases, think time, faultline's backoff and breaker windows scaled; the SDK's own backoff is not, latencies are given in simulated time)`}.\n`,
  );
  say(
    '| policy | calls | success rate | requests to the failing provider | total requests | primary requests after it recovered | p50 | p99 |',
  );
  say('|---|---|---|---|---|---|---|---|');
  for (const row of resilience.rows) {
    say(
      `| ${row.policy} | ${row.calls.toLocaleString('en')} | ${(row.successRate * 100).toFixed(1)} % | ${row.requestsToFailingProvider.toLocaleString('en')} | ${row.totalRequests.toLocaleString('en')} | ${row.primaryRequestsAfterOutage.toLocaleString('en')} | ${row.p50Ms.toFixed(0)} ms | ${row.p99Ms.toFixed(0)} ms |`,
    );
  }
}

writeFileSync(new URL('../results/latest.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
if (only.size === 0) {
  const readmePath = `${root}docs/benchmarks.md`;
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const section = `${start}\n_Generated by \`pnpm bench\` (bench/src/run.ts); raw figures in bench/results/latest.json._\n\n${lines.join('\n')}\n${end}`;
  const at = readme.indexOf(start);
  const updated =
    at >= 0
      ? readme.slice(0, at) + section + readme.slice(readme.indexOf(end) + end.length)
      : `${readme.trimEnd()}\n\n${section}\n`;
  writeFileSync(readmePath, updated);
}
