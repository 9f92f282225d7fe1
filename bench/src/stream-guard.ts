import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/streaming';
import { BedrockRuntimeClient, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { guardAnthropicStream } from '@faultline/extract-anthropic';
import { guardBedrockStream } from '@faultline/extract-bedrock';
import { guardGeminiStream } from '@faultline/extract-google-genai';
import { guardGroqStream } from '@faultline/extract-groq';
import { guardMistralStream } from '@faultline/extract-mistral';
import { guardOpenAIStream } from '@faultline/extract-openai';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from '@faultline/render/toolkit';
import { GoogleGenAI } from '@google/genai';
import { Mistral } from '@mistralai/mistralai';
import Groq from 'groq-sdk';
import { Stream as GroqStream } from 'groq-sdk/core/streaming';
import OpenAI from 'openai';
import { Stream as OpenAIStream } from 'openai/streaming';
import { cpuRounds, type Measured, median } from './statistics.ts';
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
  /**
   * The source the chunks are replayed through: `sdk-stream` for the Stainless SDKs (their own
   * `Stream` class, with the AbortController a request has, whose abort ends the replay as the
   * SDK's fetch ends the body it reads: what a user's `create({ stream: true })` gives), else
   * `generator` (an async generator, which is what those SDKs' streams iterate with).
   */
  readonly source: 'sdk-stream' | 'generator';
  /**
   * Stainless only: the same guard opted in with `abandonEndsPull: true` on the same Stream class,
   * whose controller is listened to: the idle timer stops a stall by aborting the request, so a
   * pull costs one `.then` instead of a promise of the guard's own (the default).
   */
  readonly addedNsPerChunkAbortive?: number | undefined;
}

export interface StreamGuardSdkResult {
  readonly provider: string;
  readonly sdk: string;
  readonly guard: string;
  /** Chunks the SDK yielded for the long stream, and for the shortest one. */
  readonly chunks: number;
  readonly shortChunks: number;
  /** One whole stream (request, response, every chunk), from a loopback server; last paired round. */
  readonly unguarded: Measured;
  readonly guarded: Measured;
  /** The same request for the shortest complete stream, unguarded. */
  readonly shortStream: Measured;
  /** Median over the paired rounds of guarded / unguarded. */
  readonly ratio: number;
  /** Median over the paired rounds of (guarded − unguarded) / chunks: the guard's cost on this stream. */
  readonly streamAddedNsPerChunk: number;
  /**
   * The SDK's own cost of one more chunk: (unguarded − short stream) / (chunks − shortChunks), median
   * over the paired rounds. The request's fixed cost is left out, so this is the stricter denominator.
   */
  readonly sdkNsPerChunk: number;
  /** This provider's guard's in-memory added cost per chunk (idle timer on, from the in-memory rows). */
  readonly guardNsPerChunk: number;
  /** guardNsPerChunk / sdkNsPerChunk. */
  readonly share: number;
  /**
   * The least any guard with an idle timer adds per chunk on this SDK's stream, in memory, against
   * sdkNsPerChunk: the `rejectable` floor (a promise of the guard's own per pull, which the idle
   * timer rejects: what every guard does by default). Below the goal only where a guard can meet it.
   */
  readonly floorShare: number;
  /** Which floor `floorShare` is. */
  readonly floor: 'then' | 'rejectable';
  readonly goalShare: number;
  readonly met: boolean;
}

/** A wrapper that does nothing a guard does beyond what its name says: the floor under every guard. */
export interface StreamFloorRow {
  readonly wrapper: 'forward' | 'then' | 'rejectable' | 'yield*';
  readonly description: string;
  /** Median over the paired rounds of (wrapped − unwrapped) / chunks. */
  readonly addedNsPerChunk: number;
}

export interface StreamGuardResult {
  readonly idleTimeoutMs: number;
  readonly rounds: number;
  readonly inMemory: StreamGuardRow[];
  /** Measured in the same run as `inMemory`, on openai's chunks (no floor reads a chunk). */
  readonly floors: StreamFloorRow[];
  readonly sdk: StreamGuardSdkResult[];
}

type Guard = (
  stream: AsyncIterable<object>,
  options: { idleTimeoutMs: number; abandonEndsPull?: boolean },
) => AsyncIterable<object>;

interface Subject {
  readonly provider: string;
  readonly guard: string;
  readonly chunks: (count: number) => object[];
  readonly wrap: Guard;
  /** The SDK's own raw `Stream` class (the Stainless SDKs): the in-memory replay goes through it. */
  readonly streamClass?: StainlessStreamClass | undefined;
}

/** A Stainless SDK's raw `Stream`: `new Stream(iterator, controller)`, iterated by `iterator()`. */
type StainlessStreamClass = new (
  iterator: () => AsyncIterator<object>,
  controller: AbortController,
) => AsyncIterable<object>;

const subjects: Subject[] = [
  {
    provider: 'openai',
    guard: 'guardOpenAIStream',
    chunks: openaiChunks,
    wrap: (stream, options) => guardOpenAIStream(stream, options),
    streamClass: OpenAIStream as unknown as StainlessStreamClass,
  },
  {
    provider: 'anthropic',
    guard: 'guardAnthropicStream',
    chunks: anthropicEvents,
    wrap: (stream, options) => guardAnthropicStream(stream, options),
    streamClass: AnthropicStream as unknown as StainlessStreamClass,
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
    streamClass: GroqStream as unknown as StainlessStreamClass,
  },
];

async function* replay(chunks: readonly object[]): AsyncGenerator<object, void, undefined> {
  for (const chunk of chunks) yield chunk;
}

/**
 * The chunks through a Stainless SDK's own `Stream`, as `create({ stream: true })` returns it: the
 * Stream holds the request's AbortController, and the abort ends the replay, as the SDK's fetch,
 * listening to that signal, ends the body it reads. By default the guard keeps a promise of its
 * own per pull; opted in (`abandonEndsPull: true`), it sees the listener and stops a stall by
 * aborting (one `.then` per pull). A replay never stalls: the listener only has to exist.
 */
function sdkReplay(StreamClass: StainlessStreamClass, chunks: readonly object[]): AsyncIterable<object> {
  const controller = new AbortController();
  let aborted = false;
  controller.signal.addEventListener('abort', () => (aborted = true), { once: true });
  return new StreamClass(async function* () {
    for (const chunk of chunks) {
      if (aborted) return;
      yield chunk;
    }
  }, controller);
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

type Step = IteratorResult<object>;

/** Hands on the source's own promise: sees nothing, so it can classify nothing. */
class ForwardingIterator {
  constructor(private readonly source: AsyncIterator<object>) {}
  next(): Promise<Step> {
    return this.source.next();
  }
}

/**
 * One `.then` per `next()`, the step handed on as it is: sees every step and every error, the
 * least any guard adds that classifies an error or reads a chunk (a guard without an idle timer).
 */
class ThenIterator {
  constructor(private readonly source: AsyncIterator<object>) {}
  private readonly pass = (step: Step): Step => step;
  private readonly fail = (error: unknown): never => {
    throw error;
  };
  next(): Promise<Step> {
    return this.source.next().then(this.pass, this.fail);
  }
}

/**
 * The same, handing the caller a promise of its own per `next()` that a stalled read could be
 * rejected through: the least any guard with an idle timer adds (the source's promise cannot be
 * rejected from outside, and a promise from `.then` settles only when the source's does).
 */
class RejectableIterator {
  private resolve: ((step: Step) => void) | undefined;
  private reject: ((error: unknown) => void) | undefined;
  constructor(private readonly source: AsyncIterator<object>) {}
  private readonly capture = (resolve: (step: Step) => void, reject: (error: unknown) => void) => {
    this.resolve = resolve;
    this.reject = reject;
  };
  private readonly pass = (step: Step): void => this.resolve!(step);
  private readonly fail = (error: unknown): void => this.reject!(error);
  next(): Promise<Step> {
    const read = new Promise<Step>(this.capture);
    this.source.next().then(this.pass, this.fail);
    return read;
  }
}

async function* yieldAll(source: AsyncIterable<object>): AsyncGenerator<object, void, undefined> {
  yield* source;
}

const iterableOf = (iterator: { next(): Promise<Step> }): AsyncIterable<object> => ({
  [Symbol.asyncIterator]: () => iterator as AsyncIterator<object>,
});

const floorWrappers: ReadonlyArray<{
  readonly wrapper: StreamFloorRow['wrapper'];
  readonly description: string;
  readonly wrap: (source: AsyncIterable<object>) => AsyncIterable<object>;
}> = [
  {
    wrapper: 'forward',
    description: "`next()` returns the source's own promise (sees nothing)",
    wrap: (source) => iterableOf(new ForwardingIterator(source[Symbol.asyncIterator]())),
  },
  {
    wrapper: 'then',
    description:
      'one `.then` per `next()`, the step handed on (sees every step: the least a guard without an idle timer adds)',
    wrap: (source) => iterableOf(new ThenIterator(source[Symbol.asyncIterator]())),
  },
  {
    wrapper: 'rejectable',
    description:
      'the same plus a promise of its own per `next()` that a stalled read can be rejected through (the least a guard with an idle timer adds when it cannot end a stalled read by aborting its request)',
    wrap: (source) => iterableOf(new RejectableIterator(source[Symbol.asyncIterator]())),
  },
  {
    wrapper: 'yield*',
    description: 'an `async function*` pass-through (`yield* source`)',
    wrap: yieldAll,
  },
];

/** What a wrapper costs that does nothing a guard does: the floor under the guards' figures. */
async function benchFloors(count: number, rounds: number): Promise<StreamFloorRow[]> {
  const chunks = openaiChunks(count);
  for (const { wrapper, wrap } of floorWrappers) {
    checkUntouched(`the ${wrapper} floor`, chunks, await drain(wrap(replay(chunks))));
  }
  const perRound = await cpuRounds(
    [
      ['floor: unwrapped', () => consume(replay(chunks))],
      ...floorWrappers.map(
        ({ wrapper, wrap }) => [`floor: ${wrapper}`, () => consume(wrap(replay(chunks)))] as const,
      ),
    ],
    rounds,
    200,
  );
  return floorWrappers.map(({ wrapper, description }, index) => ({
    wrapper,
    description,
    addedNsPerChunk: median(
      perRound.map((round) => (round[index + 1]!.medianNs - round[0]!.medianNs) / count),
    ),
  }));
}

async function benchInMemory(
  subject: Subject,
  count: number,
  idleTimeoutMs: number,
  rounds: number,
): Promise<StreamGuardRow> {
  const chunks = subject.chunks(count);
  const label = `${subject.guard} (in memory)`;
  const { streamClass } = subject;
  const source = (): AsyncIterable<object> =>
    streamClass === undefined ? replay(chunks) : sdkReplay(streamClass, chunks);
  checkUntouched(label, chunks, await drain(subject.wrap(source(), { idleTimeoutMs })));
  checkUntouched(label, chunks, await drain(subject.wrap(source(), { idleTimeoutMs: 0 })));
  const abortiveOptions = { idleTimeoutMs, abandonEndsPull: true };
  if (streamClass !== undefined) {
    checkUntouched(label, chunks, await drain(subject.wrap(source(), abortiveOptions)));
  }
  const abortive =
    streamClass === undefined
      ? []
      : ([
          [
            `${subject.provider}: guarded, abandonEndsPull`,
            () => consume(subject.wrap(source(), abortiveOptions)),
          ],
        ] as const);
  const perRound = await cpuRounds(
    [
      [`${subject.provider}: unguarded`, () => consume(source())],
      [`${subject.provider}: guarded`, () => consume(subject.wrap(source(), { idleTimeoutMs }))],
      [
        `${subject.provider}: guarded, idle timer off`,
        () => consume(subject.wrap(source(), { idleTimeoutMs: 0 })),
      ],
      ...abortive,
    ],
    rounds,
    200,
  );
  const [unguarded, guarded, guardedTimerOff] = perRound.at(-1)!;
  return {
    source: streamClass === undefined ? 'generator' : 'sdk-stream',
    ...(streamClass === undefined
      ? {}
      : {
          addedNsPerChunkAbortive: median(
            perRound.map(([base, , , abortiveRun]) => (abortiveRun!.medianNs - base!.medianNs) / count),
          ),
        }),
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

interface StreamServer {
  readonly port: number;
  readonly h2cPort: number;
  close(): Promise<void>;
}

/** The child process serving the streams (stream-server-worker.ts), through the bench's tsx loader. */
async function startStreamServer(): Promise<StreamServer> {
  const worker: ChildProcess = fork(
    fileURLToPath(new URL('./stream-server-worker.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const ports = await new Promise<{ port: number; h2cPort: number }>((resolve, reject) => {
    worker.once('message', (message: { port: number; h2cPort: number }) => resolve(message));
    worker.once('exit', (code) => reject(new Error(`bench: the stream server exited (${code})`)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.send({ kind: 'close' });
    });
  return { ...ports, close };
}

/** Opens a real SDK stream of `count` chunks from the stream server. */
type OpenStream = (count: number) => Promise<AsyncIterable<unknown>>;

interface SdkSubject {
  readonly provider: string;
  readonly sdk: string;
  /** Clients are made once per length, outside the timed task. */
  readonly opener: (server: StreamServer) => OpenStream;
  readonly close?: () => void;
}

const origin = (port: number) => `http://127.0.0.1:${port}`;
const prompt = 'Hello';

const sdkSubjects: SdkSubject[] = [
  {
    provider: 'openai',
    sdk: 'openai',
    opener: (server) => {
      const clients = new Map<number, OpenAI>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new OpenAI({
            apiKey: 'sk-bench',
            baseURL: `${origin(server.port)}/openai/${count}/v1`,
            maxRetries: 0,
          });
          clients.set(count, client);
        }
        return client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: prompt }],
          stream: true,
        });
      };
    },
  },
  {
    provider: 'anthropic',
    sdk: '@anthropic-ai/sdk',
    opener: (server) => {
      const clients = new Map<number, Anthropic>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new Anthropic({
            apiKey: 'sk-ant-bench',
            baseURL: `${origin(server.port)}/anthropic/${count}`,
            maxRetries: 0,
          });
          clients.set(count, client);
        }
        return client.messages.create({
          model: 'claude-sonnet-4-6',
          max_tokens: 64,
          messages: [{ role: 'user', content: prompt }],
          stream: true,
        });
      };
    },
  },
  {
    provider: 'google-genai',
    sdk: '@google/genai',
    opener: (server) => {
      const clients = new Map<number, GoogleGenAI>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new GoogleGenAI({
            apiKey: 'bench-key',
            httpOptions: { baseUrl: `${origin(server.port)}/google-genai/${count}` },
          });
          clients.set(count, client);
        }
        return client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: prompt });
      };
    },
  },
  {
    provider: 'bedrock',
    sdk: '@aws-sdk/client-bedrock-runtime',
    opener: (server) => {
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const clients = new Map<number, BedrockRuntimeClient>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new BedrockRuntimeClient({
            region: 'us-east-1',
            endpoint: `${origin(server.h2cPort)}/bedrock/${count}`,
            maxAttempts: 1,
            credentials: {
              accessKeyId: 'AKIABENCHBENCHBENCH0',
              secretAccessKey: 'bench-secret-not-a-secret',
            },
          });
          clients.set(count, client);
        }
        const response = await client.send(
          new ConverseStreamCommand({
            modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
            messages: [{ role: 'user', content: [{ text: prompt }] }],
          }),
        );
        if (response.stream === undefined) throw new Error('bench: the Bedrock answer has no stream');
        return response.stream;
      };
    },
  },
  {
    provider: 'mistral',
    sdk: '@mistralai/mistralai',
    opener: (server) => {
      const clients = new Map<number, Mistral>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new Mistral({
            apiKey: 'bench-key',
            serverURL: `${origin(server.port)}/mistral/${count}`,
            retryConfig: { strategy: 'none' },
          });
          clients.set(count, client);
        }
        return client.chat.stream({
          model: 'mistral-small-latest',
          messages: [{ role: 'user', content: prompt }],
        });
      };
    },
  },
  {
    provider: 'groq',
    sdk: 'groq-sdk',
    opener: (server) => {
      const clients = new Map<number, Groq>();
      return async (count) => {
        let client = clients.get(count);
        if (client === undefined) {
          client = new Groq({
            apiKey: 'gsk_bench',
            baseURL: `${origin(server.port)}/groq/${count}`,
            maxRetries: 0,
          });
          clients.set(count, client);
        }
        return client.chat.completions.create({
          model: 'llama-3.3-70b-versatile',
          messages: [{ role: 'user', content: prompt }],
          stream: true,
        });
      };
    },
  },
];

/** The shortest complete stream the bench asks for (the chunks the SDK then yields are counted). */
const SHORT_STREAM_CHUNKS = 4;

async function benchSdkStream(
  server: StreamServer,
  sdkSubject: SdkSubject,
  subject: Subject,
  count: number,
  idleTimeoutMs: number,
  rounds: number,
  guardNsPerChunk: number,
  floor: { readonly wrapper: 'then' | 'rejectable'; readonly addedNsPerChunk: number },
): Promise<StreamGuardSdkResult> {
  const open = sdkSubject.opener(server);
  const unguarded = async () => consume(await open(count));
  const guarded = async () =>
    consume(subject.wrap((await open(count)) as AsyncIterable<object>, { idleTimeoutMs }));
  const short = async () => consume(await open(SHORT_STREAM_CHUNKS));
  const chunks = await unguarded();
  const shortChunks = await short();
  const guardedChunks = await guarded();
  if (!(chunks > shortChunks) || guardedChunks !== chunks) {
    throw new Error(
      `bench: the ${sdkSubject.sdk} streams gave ${chunks} chunks (guarded ${guardedChunks}), short ${shortChunks}`,
    );
  }
  const perRound = await cpuRounds(
    [
      [`${sdkSubject.sdk} stream: unguarded`, unguarded],
      [`${sdkSubject.sdk} stream: guarded`, guarded],
      [`${sdkSubject.sdk} stream: short`, short],
    ],
    rounds,
    500,
  );
  const [direct, wrapped, shortStream] = perRound.at(-1)!;
  // The request and response cost the same for any length: a chunk costs the difference.
  const sdkNsPerChunk = median(
    perRound.map(([base, , two]) => (base!.medianNs - two!.medianNs) / (chunks - shortChunks)),
  );
  const share = guardNsPerChunk / sdkNsPerChunk;
  return {
    provider: sdkSubject.provider,
    sdk: sdkSubject.sdk,
    guard: subject.guard,
    chunks,
    shortChunks,
    unguarded: direct!,
    guarded: wrapped!,
    shortStream: shortStream!,
    ratio: median(perRound.map(([base, on]) => on!.medianNs / base!.medianNs)),
    streamAddedNsPerChunk: median(perRound.map(([base, on]) => (on!.medianNs - base!.medianNs) / chunks)),
    sdkNsPerChunk,
    guardNsPerChunk,
    share,
    floorShare: floor.addedNsPerChunk / sdkNsPerChunk,
    floor: floor.wrapper,
    goalShare: STREAM_GUARD_GOAL_SHARE,
    met: share < STREAM_GUARD_GOAL_SHARE,
  };
}

/**
 * The stream guards' cost. In memory: each provider's complete stream replayed from an array
 * (through the SDK's own raw `Stream` for the Stainless SDKs, openai, anthropic and groq, since
 * their guard's idle timer works through that Stream's controller), drained unguarded and guarded
 * (default options, idle timer on, and with it off; for the Stainless SDKs also opted in with
 * `abandonEndsPull: true`, one `.then` per pull), in paired rounds; then the
 * floors, wrappers that do nothing a guard does beyond looking at each step. Against
 * each real SDK: a stream from a loopback server in a child process, unguarded and guarded; each
 * guard's in-memory added cost per chunk is set against its SDK's own cost per chunk.
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
  // More rounds than a guard's row: each floor stands for every provider, and one noisy round
  // would move every floor share.
  const floors = await benchFloors(inMemoryChunks, rounds * 2 - 1);
  const floorOf = (wrapper: 'then' | 'rejectable') => floors.find((floor) => floor.wrapper === wrapper)!;
  const server = await startStreamServer();
  const sdk: StreamGuardSdkResult[] = [];
  try {
    for (const sdkSubject of sdkSubjects) {
      const subject = subjects.find((candidate) => candidate.provider === sdkSubject.provider)!;
      const row = inMemory.find((candidate) => candidate.provider === sdkSubject.provider)!;
      sdk.push(
        await benchSdkStream(
          server,
          sdkSubject,
          subject,
          sdkChunks,
          idleTimeoutMs,
          rounds,
          row.addedNsPerChunk,
          // Every guard's default keeps a promise of its own per pull for the idle timer to reject.
          floorOf('rejectable') as {
            wrapper: 'then' | 'rejectable';
            addedNsPerChunk: number;
          },
        ),
      );
    }
  } finally {
    await server.close();
  }
  return { idleTimeoutMs, rounds, inMemory, floors, sdk };
}
