import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { guardAnthropicStream } from '@faultline/extract-anthropic';
import { guardBedrockStream } from '@faultline/extract-bedrock';
import { guardGeminiStream } from '@faultline/extract-google-genai';
import { guardGroqStream } from '@faultline/extract-groq';
import { guardMistralStream } from '@faultline/extract-mistral';
import { guardOpenAIStream } from '@faultline/extract-openai';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from '@faultline/render/toolkit';
import OpenAI from 'openai';
import { Bench } from 'tinybench';
import { type Measured, measured, median } from './statistics.ts';
import {
  anthropicEvents,
  bedrockEvents,
  geminiChunks,
  groqChunks,
  mistralEvents,
  openaiChunks,
} from './stream-chunks.ts';

/** The goal: the guard adds less than this share of a real SDK stream's per-chunk cost. */
export const STREAM_GUARD_GOAL_SHARE = 0.01;

export interface StreamGuardRow {
  readonly provider: string;
  readonly guard: string;
  readonly chunks: number;
  /** Draining the whole stream (`chunks` chunks), last paired round. */
  readonly unguarded: Measured;
  /** Guarded with the default options (idle timer on). */
  readonly guarded: Measured;
  /** Guarded with `idleTimeoutMs: 0`: what the per-chunk idle timer costs. */
  readonly guardedTimerOff: Measured;
  /** Median over the paired rounds of (guarded − unguarded) / chunks. */
  readonly addedNsPerChunk: number;
  readonly addedNsPerChunkTimerOff: number;
  /** Median over the paired rounds of guarded / unguarded. */
  readonly ratio: number;
}

export interface StreamGuardSdkResult {
  readonly sdk: string;
  readonly chunks: number;
  /** One whole stream (request, response, every chunk), from a loopback server; last paired round. */
  readonly unguarded: Measured;
  readonly guarded: Measured;
  /** Median over the paired rounds of guarded / unguarded. */
  readonly ratio: number;
  /** Median over the paired rounds of (guarded − unguarded) / chunks: the guard's cost on this stream. */
  readonly streamAddedNsPerChunk: number;
  /** The same request for the shortest complete stream (2 chunks), unguarded. */
  readonly shortStream: Measured;
  /** The unguarded stream's median over its chunks, request and response included. */
  readonly wholeNsPerChunk: number;
  /**
   * The SDK's own cost of one more chunk: (unguarded − 2-chunk stream) / (chunks − 2), median over
   * the paired rounds. The request's fixed cost is left out, so this is the stricter denominator.
   */
  readonly sdkNsPerChunk: number;
  /** The openai guard's in-memory added cost per chunk (from the in-memory rows). */
  readonly guardNsPerChunk: number;
  /** guardNsPerChunk / sdkNsPerChunk. */
  readonly share: number;
  readonly goalShare: number;
  readonly met: boolean;
}

export interface StreamGuardResult {
  readonly idleTimeoutMs: number;
  readonly rounds: number;
  readonly inMemory: StreamGuardRow[];
  readonly sdk: StreamGuardSdkResult;
}

type Guard = (stream: AsyncIterable<object>, options: { idleTimeoutMs: number }) => AsyncIterable<object>;

interface Subject {
  readonly provider: string;
  readonly guard: string;
  readonly chunks: (count: number) => object[];
  readonly wrap: Guard;
}

const subjects: Subject[] = [
  {
    provider: 'openai',
    guard: 'guardOpenAIStream',
    chunks: openaiChunks,
    wrap: (stream, options) => guardOpenAIStream(stream, options),
  },
  {
    provider: 'anthropic',
    guard: 'guardAnthropicStream',
    chunks: anthropicEvents,
    wrap: (stream, options) => guardAnthropicStream(stream, options),
  },
  {
    provider: 'google-genai',
    guard: 'guardGeminiStream',
    chunks: geminiChunks,
    wrap: (stream, options) => guardGeminiStream(stream, options),
  },
  {
    provider: 'bedrock',
    guard: 'guardBedrockStream',
    chunks: bedrockEvents,
    wrap: (stream, options) => guardBedrockStream(stream, options),
  },
  {
    provider: 'mistral',
    guard: 'guardMistralStream',
    chunks: mistralEvents,
    wrap: (stream, options) => guardMistralStream(stream, options),
  },
  {
    provider: 'groq',
    guard: 'guardGroqStream',
    chunks: groqChunks,
    wrap: (stream, options) => guardGroqStream(stream, options),
  },
];

async function* replay(chunks: readonly object[]): AsyncGenerator<object, void, undefined> {
  for (const chunk of chunks) yield chunk;
}

/** Reads a stream to its end; the chunks, so that the check can compare them. */
async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const chunk of stream) seen.push(chunk);
  return seen;
}

/** Reads a stream to its end, keeping nothing: what is timed. */
async function consume(stream: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _chunk of stream) count += 1;
  return count;
}

/** The guard must hand over the very same chunks, in order, and end without throwing. */
function checkUntouched(label: string, expected: readonly unknown[], actual: readonly unknown[]): void {
  if (actual.length !== expected.length || actual.some((chunk, index) => chunk !== expected[index])) {
    throw new Error(`bench: ${label} did not pass the chunks through untouched`);
  }
}

/**
 * Runs the tasks in `rounds` rounds, rotating their order each round so that none always runs
 * on a warmer machine. Returns every round's measurements, in the tasks' own order.
 */
async function pairedRounds(
  tasks: ReadonlyArray<readonly [string, () => Promise<unknown>]>,
  rounds: number,
  time: number,
): Promise<Measured[][]> {
  const results: Measured[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    const bench = new Bench({ time, warmupTime: Math.min(200, time / 2) });
    for (let index = 0; index < tasks.length; index += 1) {
      const [name, task] = tasks[(index + round) % tasks.length]!;
      bench.add(name, task);
    }
    await bench.run();
    const byName = new Map(measured(bench).map((row) => [row.name, row]));
    results.push(tasks.map(([name]) => byName.get(name)!));
  }
  return results;
}

async function benchInMemory(
  subject: Subject,
  count: number,
  idleTimeoutMs: number,
  rounds: number,
): Promise<StreamGuardRow> {
  const chunks = subject.chunks(count);
  const label = `${subject.guard} (in memory)`;
  checkUntouched(label, chunks, await drain(subject.wrap(replay(chunks), { idleTimeoutMs })));
  checkUntouched(label, chunks, await drain(subject.wrap(replay(chunks), { idleTimeoutMs: 0 })));
  const perRound = await pairedRounds(
    [
      [`${subject.provider}: unguarded`, () => consume(replay(chunks))],
      [`${subject.provider}: guarded`, () => consume(subject.wrap(replay(chunks), { idleTimeoutMs }))],
      [
        `${subject.provider}: guarded, idle timer off`,
        () => consume(subject.wrap(replay(chunks), { idleTimeoutMs: 0 })),
      ],
    ],
    rounds,
    200,
  );
  const [unguarded, guarded, guardedTimerOff] = perRound.at(-1)!;
  return {
    provider: subject.provider,
    guard: subject.guard,
    chunks: count,
    unguarded: unguarded!,
    guarded: guarded!,
    guardedTimerOff: guardedTimerOff!,
    addedNsPerChunk: median(perRound.map(([base, on]) => (on!.medianNs - base!.medianNs) / count)),
    addedNsPerChunkTimerOff: median(
      perRound.map(([base, , off]) => (off!.medianNs - base!.medianNs) / count),
    ),
    ratio: median(perRound.map(([base, on]) => on!.medianNs / base!.medianNs)),
  };
}

/** The child process serving the stream (stream-server-worker.ts), through the bench's tsx loader. */
async function startStreamServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const worker: ChildProcess = fork(
    fileURLToPath(new URL('./stream-server-worker.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port));
    worker.once('exit', (code) => reject(new Error(`bench: the stream server exited (${code})`)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.send({ kind: 'close' });
    });
  return { port, close };
}

/** The shortest complete openai stream: the role chunk and the finish chunk. */
const SHORT_STREAM_CHUNKS = 2;

async function benchSdkStream(
  count: number,
  idleTimeoutMs: number,
  rounds: number,
  guardNsPerChunk: number,
): Promise<StreamGuardSdkResult> {
  const server = await startStreamServer();
  try {
    const clientFor = (chunks: number) =>
      new OpenAI({
        apiKey: 'sk-bench',
        baseURL: `http://127.0.0.1:${server.port}/chunks/${chunks}/v1`,
        maxRetries: 0,
      });
    const client = clientFor(count);
    const shortClient = clientFor(SHORT_STREAM_CHUNKS);
    const request = {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user' as const, content: 'Hello' }],
      stream: true as const,
    };
    const unguarded = async () => consume(await client.chat.completions.create(request));
    const guarded = async () =>
      consume(guardOpenAIStream(await client.chat.completions.create(request), { idleTimeoutMs }));
    const short = async () => consume(await shortClient.chat.completions.create(request));
    for (const [label, run, expected] of [
      ['the unguarded openai stream', unguarded, count],
      ['the guarded openai stream', guarded, count],
      ['the short openai stream', short, SHORT_STREAM_CHUNKS],
    ] as const) {
      const received = await run();
      if (received !== expected) throw new Error(`bench: ${label} gave ${received} chunks, not ${expected}`);
    }
    const perRound = await pairedRounds(
      [
        ['openai SDK stream: unguarded', unguarded],
        ['openai SDK stream: guarded', guarded],
        ['openai SDK stream: 2 chunks', short],
      ],
      rounds,
      1000,
    );
    const [direct, wrapped, shortStream] = perRound.at(-1)!;
    const wholeNsPerChunk = median(perRound.map(([base]) => base!.medianNs)) / count;
    // The request and response cost the same for any length: a chunk costs the difference.
    const sdkNsPerChunk = median(
      perRound.map(([base, , two]) => (base!.medianNs - two!.medianNs) / (count - SHORT_STREAM_CHUNKS)),
    );
    const share = guardNsPerChunk / sdkNsPerChunk;
    return {
      sdk: 'openai',
      chunks: count,
      unguarded: direct!,
      guarded: wrapped!,
      shortStream: shortStream!,
      ratio: median(perRound.map(([base, on]) => on!.medianNs / base!.medianNs)),
      streamAddedNsPerChunk: median(perRound.map(([base, on]) => (on!.medianNs - base!.medianNs) / count)),
      wholeNsPerChunk,
      sdkNsPerChunk,
      guardNsPerChunk,
      share,
      goalShare: STREAM_GUARD_GOAL_SHARE,
      met: share < STREAM_GUARD_GOAL_SHARE,
    };
  } finally {
    await server.close();
  }
}

/**
 * The stream guards' cost. In memory: each provider's complete stream replayed from an array,
 * drained unguarded and guarded (default idle timer, and with it off), in paired rounds. Against
 * a real SDK: an openai stream from a loopback server in a child process, unguarded and guarded;
 * the guard's in-memory added cost per chunk is set against the SDK's own cost per chunk.
 */
export async function benchStreamGuard({
  inMemoryChunks = 1000,
  sdkChunks = 200,
  rounds = 5,
} = {}): Promise<StreamGuardResult> {
  const idleTimeoutMs = DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const inMemory: StreamGuardRow[] = [];
  for (const subject of subjects) {
    inMemory.push(await benchInMemory(subject, inMemoryChunks, idleTimeoutMs, rounds));
  }
  const openai = inMemory.find((row) => row.provider === 'openai')!;
  const sdk = await benchSdkStream(sdkChunks, idleTimeoutMs, rounds, openai.addedNsPerChunk);
  return { idleTimeoutMs, rounds, inMemory, sdk };
}
