// One provider's stream-guard measurement, in a process of its own (forked by stream-guard.ts): only
// that provider's SDK and guard are loaded, so every call site in the guard and the SDK sees the
// shapes an application using that one SDK sees (in one process shared by six providers, the
// guard's `take()` and the consumer's `for await` see six kinds of chunk and source, and run
// slower than in any real application). In each round the SDK's own streams, the in-memory
// guarded and unguarded drains and the floors run interleaved, so that a slow round (another
// process on the core, a GC) moves the SDK's cost and the guard's together; each round gives its
// own share, and the parent reports their median.
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from '@faultline/render/toolkit';
import { countedCpuRounds, cpuRounds, type Measured, median } from './statistics.ts';
import {
  anthropicEvents,
  bedrockEvents,
  geminiChunks,
  groqChunks,
  mistralEvents,
  openaiChunks,
} from './stream-chunks.ts';

export interface WorkerRequest {
  readonly provider: string;
  readonly port: number;
  readonly h2cPort: number;
  readonly inMemoryChunks: number;
  readonly sdkChunks: number;
  readonly rounds: number;
}

export type FloorWrapper = 'forward' | 'then' | 'rejectable' | 'reading' | 'yield*';

/** What one provider's process measured; every ratio is the median of the rounds' own ratios. */
export interface WorkerResult {
  readonly provider: string;
  readonly sdk: string;
  readonly guard: string;
  readonly source: 'sdk-stream' | 'generator';
  readonly idleTimeoutMs: number;
  readonly rounds: number;
  /** In memory: chunks per drain; the last round's drains. */
  readonly chunks: number;
  readonly unguarded: Measured;
  readonly guarded: Measured;
  readonly guardedTimerOff: Measured;
  /** In memory, medians over the rounds of (guarded − unguarded) / chunks. */
  readonly addedNsPerChunk: number;
  readonly addedNsPerChunkTimerOff: number;
  /** In memory, median over the rounds of guarded / unguarded. */
  readonly ratio: number;
  /** The floors over the same in-memory source: medians over the rounds of (wrapped − unwrapped) / chunks. */
  readonly floors: ReadonlyArray<{ readonly wrapper: FloorWrapper; readonly addedNsPerChunk: number }>;
  /** The real SDK stream: chunks the SDK yielded for the long and the shortest stream; last round's drains. */
  readonly sdkChunks: number;
  readonly shortChunks: number;
  readonly sdkUnguarded: Measured;
  readonly sdkGuarded: Measured;
  readonly shortStream: Measured;
  /** Median over the rounds of (long − short) / (sdkChunks − shortChunks): the SDK's own cost of a chunk. */
  readonly sdkNsPerChunk: number;
  /** Median over the rounds of guarded / unguarded on the real stream. */
  readonly streamRatio: number;
  /**
   * The real SDK stream paced (each chunk in a read of its own, as at a model's pace): chunks of the
   * long and the shortest stream, their last round's CPU time, and the SDK's own cost of a chunk
   * ((long − short) / their difference in chunks, median over the paced rounds).
   */
  readonly paced: {
    readonly sdkChunks: number;
    readonly shortChunks: number;
    readonly rounds: number;
    readonly samples: number;
    readonly long: Measured;
    readonly short: Measured;
    readonly guarded: Measured;
    readonly sdkNsPerChunk: number;
    /** Median over the paced rounds of guarded / unguarded. */
    readonly streamRatio: number;
    /** The guard's in-memory added cost per chunk (median over the rounds) against the paced SDK cost per chunk of each paced round, median. */
    readonly share: number;
    /** The same for the rejectable floor. */
    readonly floorShare: number;
  };
  /** Median over the rounds of that round's guard added per chunk / that round's SDK cost per chunk. */
  readonly share: number;
  /** The same for the rejectable floor (what any guard whose idle timer rejects a stalled read adds). */
  readonly floorShare: number;
  /** The same for the `.then` floor (what any guard that classifies an error adds). */
  readonly thenFloorShare: number;
  /** The same for the reading floor (the rejectable floor plus reading each chunk's text). */
  readonly readingFloorShare: number;
}

type Guard = (stream: AsyncIterable<object>, options: { idleTimeoutMs: number }) => AsyncIterable<object>;

/** A Stainless SDK's raw `Stream`: `new Stream(iterator, controller)`, iterated by `iterator()`. */
type StainlessStreamClass = new (
  iterator: () => AsyncIterator<object>,
  controller: AbortController,
) => AsyncIterable<object>;

/**
 * A stream's length on the stream server: `n` chunks written at once, or `p<n>`, the same chunks
 * paced, each in a read of its own (stream-server-worker.ts).
 */
type StreamLength = number | `p${number}`;

/** Opens a real SDK stream of that length from the stream server. */
type OpenStream = (length: StreamLength) => Promise<AsyncIterable<object>>;

interface Provider {
  readonly sdk: string;
  readonly guard: string;
  readonly chunks: (count: number) => object[];
  readonly wrap: Guard;
  /** The SDK's own raw `Stream` class (the Stainless SDKs): the in-memory replay goes through it. */
  readonly streamClass?: StainlessStreamClass | undefined;
  readonly open: OpenStream;
  /**
   * The characters of text one chunk delivers, read by the shortest path to them in the bench's
   * chunks (no checks a guard needs for odd chunks): what the `reading` floor reads.
   */
  readonly text: (chunk: any) => number;
}

const origin = (port: number) => `http://127.0.0.1:${port}`;
const prompt = 'Hello';

/** One client per stream length, made outside the timed task. */
function perLength<C>(make: (count: StreamLength) => C): (count: StreamLength) => C {
  const clients = new Map<StreamLength, C>();
  return (count) => {
    let client = clients.get(count);
    if (client === undefined) {
      client = make(count);
      clients.set(count, client);
    }
    return client;
  };
}

/** The provider's SDK and guard, imported here alone: the other five are never loaded. */
async function providerOf(name: string, port: number, h2cPort: number): Promise<Provider> {
  switch (name) {
    case 'openai': {
      const [{ default: OpenAI }, { Stream }, { guardOpenAIStream }] = await Promise.all([
        import('openai'),
        import('openai/streaming'),
        import('@faultline/extract-openai'),
      ]);
      const client = perLength(
        (count) =>
          new OpenAI({ apiKey: 'sk-bench', baseURL: `${origin(port)}/openai/${count}/v1`, maxRetries: 0 }),
      );
      return {
        sdk: 'openai',
        guard: 'guardOpenAIStream',
        chunks: openaiChunks,
        wrap: (stream, options) => guardOpenAIStream(stream, options),
        text: (chunk) => chunk.choices[0]?.delta?.content?.length ?? 0,
        streamClass: Stream as unknown as StainlessStreamClass,
        open: (count) =>
          client(count).chat.completions.create({
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: prompt }],
            stream: true,
          }),
      };
    }
    case 'anthropic': {
      const [{ default: Anthropic }, { Stream }, { guardAnthropicStream }] = await Promise.all([
        import('@anthropic-ai/sdk'),
        import('@anthropic-ai/sdk/streaming'),
        import('@faultline/extract-anthropic'),
      ]);
      const client = perLength(
        (count) =>
          new Anthropic({
            apiKey: 'sk-ant-bench',
            baseURL: `${origin(port)}/anthropic/${count}`,
            maxRetries: 0,
          }),
      );
      return {
        sdk: '@anthropic-ai/sdk',
        guard: 'guardAnthropicStream',
        chunks: anthropicEvents,
        wrap: (stream, options) => guardAnthropicStream(stream, options),
        text: (event) => event.delta?.text?.length ?? 0,
        streamClass: Stream as unknown as StainlessStreamClass,
        open: (count) =>
          client(count).messages.create({
            model: 'claude-sonnet-4-6',
            max_tokens: 64,
            messages: [{ role: 'user', content: prompt }],
            stream: true,
          }),
      };
    }
    case 'google-genai': {
      const [{ GoogleGenAI }, { guardGeminiStream }] = await Promise.all([
        import('@google/genai'),
        import('@faultline/extract-google-genai'),
      ]);
      const client = perLength(
        (count) =>
          new GoogleGenAI({
            apiKey: 'bench-key',
            httpOptions: { baseUrl: `${origin(port)}/google-genai/${count}` },
          }),
      );
      return {
        sdk: '@google/genai',
        guard: 'guardGeminiStream',
        chunks: geminiChunks,
        wrap: (stream, options) => guardGeminiStream(stream, options),
        text: (chunk) => chunk.candidates[0]?.content?.parts?.[0]?.text?.length ?? 0,
        open: (count) =>
          client(count).models.generateContentStream({ model: 'gemini-2.5-flash', contents: prompt }),
      };
    }
    case 'bedrock': {
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const [{ BedrockRuntimeClient, ConverseStreamCommand }, { guardBedrockStream }] = await Promise.all([
        import('@aws-sdk/client-bedrock-runtime'),
        import('@faultline/extract-bedrock'),
      ]);
      const client = perLength(
        (count) =>
          new BedrockRuntimeClient({
            region: 'us-east-1',
            endpoint: `${origin(h2cPort)}/bedrock/${count}`,
            maxAttempts: 1,
            credentials: {
              accessKeyId: 'AKIABENCHBENCHBENCH0',
              secretAccessKey: 'bench-secret-not-a-secret',
            },
          }),
      );
      return {
        sdk: '@aws-sdk/client-bedrock-runtime',
        guard: 'guardBedrockStream',
        chunks: bedrockEvents,
        wrap: (stream, options) => guardBedrockStream(stream, options),
        text: (event) => event.contentBlockDelta?.delta?.text?.length ?? 0,
        open: async (count) => {
          const response = await client(count).send(
            new ConverseStreamCommand({
              modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
              messages: [{ role: 'user', content: [{ text: prompt }] }],
            }),
          );
          if (response.stream === undefined) throw new Error('bench: the Bedrock answer has no stream');
          return response.stream;
        },
      };
    }
    case 'mistral': {
      const [{ Mistral }, { guardMistralStream }] = await Promise.all([
        import('@mistralai/mistralai'),
        import('@faultline/extract-mistral'),
      ]);
      const client = perLength(
        (count) =>
          new Mistral({
            apiKey: 'bench-key',
            serverURL: `${origin(port)}/mistral/${count}`,
            retryConfig: { strategy: 'none' },
          }),
      );
      return {
        sdk: '@mistralai/mistralai',
        guard: 'guardMistralStream',
        chunks: mistralEvents,
        wrap: (stream, options) => guardMistralStream(stream, options),
        text: (event) => event.data.choices[0]?.delta?.content?.length ?? 0,
        open: (count) =>
          client(count).chat.stream({
            model: 'mistral-small-latest',
            messages: [{ role: 'user', content: prompt }],
          }),
      };
    }
    case 'groq': {
      const [{ default: Groq }, { Stream }, { guardGroqStream }] = await Promise.all([
        import('groq-sdk'),
        import('groq-sdk/core/streaming'),
        import('@faultline/extract-groq'),
      ]);
      const client = perLength(
        (count) => new Groq({ apiKey: 'gsk_bench', baseURL: `${origin(port)}/groq/${count}`, maxRetries: 0 }),
      );
      return {
        sdk: 'groq-sdk',
        guard: 'guardGroqStream',
        chunks: groqChunks,
        wrap: (stream, options) => guardGroqStream(stream, options),
        text: (chunk) => chunk.choices[0]?.delta?.content?.length ?? 0,
        streamClass: Stream as unknown as StainlessStreamClass,
        open: (count) =>
          client(count).chat.completions.create({
            model: 'llama-3.3-70b-versatile',
            messages: [{ role: 'user', content: prompt }],
            stream: true,
          }),
      };
    }
    default:
      throw new Error(`bench: no stream-guard subject for ${name}`);
  }
}

async function* replay(chunks: readonly object[]): AsyncGenerator<object, void, undefined> {
  for (const chunk of chunks) yield chunk;
}

/**
 * The chunks through a Stainless SDK's own `Stream`, as `create({ stream: true })` returns it: the
 * Stream holds the request's AbortController, and the abort ends the replay, as the SDK's fetch,
 * listening to that signal, ends the body it reads. A replay never stalls: the listener only has
 * to exist.
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

type Consume = (stream: AsyncIterable<unknown>) => Promise<number>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  parameter: string,
  body: string,
) => Consume;

/**
 * A drain loop of its own for each task: a fresh function per call, so that its `for await` call
 * sites learn only the one iterator that task drains, as an application's loop over a guarded
 * stream does (one shared loop would see the guard, the bare source and every floor wrapper, and
 * charge each the cost of a polymorphic call). Built with the AsyncFunction constructor because
 * closures of one function literal share their feedback; a new source text does not.
 */
const newConsumer = (): Consume =>
  new AsyncFunction('stream', 'let count = 0;\nfor await (const _ of stream) count += 1;\nreturn count;');

/** Reads a stream to its end; the chunks, so that the check can compare them. */
async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const chunk of stream) seen.push(chunk);
  return seen;
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

/**
 * The rejectable floor that also reads the text each chunk delivers (`Provider.text`): the least a
 * guard adds that has an idle timer and counts the characters delivered, as every faultline guard
 * does. Reading a chunk is reading objects nothing else in the pull touches (the chunk, its
 * arrays, the delta, the string), which is most of what a guard adds above the rejectable floor.
 */
class ReadingIterator {
  private resolve: ((step: Step) => void) | undefined;
  private reject: ((error: unknown) => void) | undefined;
  characters = 0;
  constructor(
    private readonly source: AsyncIterator<object>,
    private readonly text: (chunk: object) => number,
  ) {}
  private readonly capture = (resolve: (step: Step) => void, reject: (error: unknown) => void) => {
    this.resolve = resolve;
    this.reject = reject;
  };
  private readonly pass = (step: Step): void => {
    if (step.done !== true) this.characters += this.text(step.value);
    this.resolve!(step);
  };
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

const floorWrappersOf = (
  text: (chunk: object) => number,
): ReadonlyArray<readonly [FloorWrapper, (source: AsyncIterable<object>) => AsyncIterable<object>]> => [
  ['forward', (source) => iterableOf(new ForwardingIterator(source[Symbol.asyncIterator]()))],
  ['then', (source) => iterableOf(new ThenIterator(source[Symbol.asyncIterator]()))],
  ['rejectable', (source) => iterableOf(new RejectableIterator(source[Symbol.asyncIterator]()))],
  ['reading', (source) => iterableOf(new ReadingIterator(source[Symbol.asyncIterator](), text))],
  ['yield*', yieldAll],
];

/** The shortest complete stream the bench asks for (the chunks the SDK then yields are counted). */
const SHORT_STREAM_CHUNKS = 4;

/**
 * The paced long stream's chunks: the server writes one a millisecond, so a long stream is mostly
 * waiting, which costs the client no CPU time.
 */
const PACED_CHUNKS = 50;
/** Paced streams of each kind a round (few: each one waits a millisecond a chunk). */
const PACED_SAMPLES = 5;

async function measure(request: WorkerRequest): Promise<WorkerResult> {
  const { provider: name, inMemoryChunks: count, sdkChunks: longCount, rounds } = request;
  const provider = await providerOf(name, request.port, request.h2cPort);
  const idleTimeoutMs = DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const chunks = provider.chunks(count);
  const { streamClass, wrap, open } = provider;
  const floorWrappers = floorWrappersOf(provider.text);
  const source = (): AsyncIterable<object> =>
    streamClass === undefined ? replay(chunks) : sdkReplay(streamClass, chunks);
  const timerOn = { idleTimeoutMs };
  const timerOff = { idleTimeoutMs: 0 };

  // Every path hands over the very chunks that went in.
  const label = `${provider.guard} (in memory)`;
  checkUntouched(label, chunks, await drain(wrap(source(), timerOn)));
  checkUntouched(label, chunks, await drain(wrap(source(), timerOff)));
  for (const [wrapper, wrapWith] of floorWrappers) {
    checkUntouched(`the ${wrapper} floor`, chunks, await drain(wrapWith(source())));
  }

  const drainLong = newConsumer();
  const drainShort = newConsumer();
  const drainLongGuarded = newConsumer();
  const sdkLong = async () => drainLong(await open(longCount));
  const sdkShort = async () => drainShort(await open(SHORT_STREAM_CHUNKS));
  const sdkGuarded = async () => drainLongGuarded(wrap(await open(longCount), timerOn));
  const sdkChunks = await sdkLong();
  const shortChunks = await sdkShort();
  const guardedChunks = await sdkGuarded();
  if (!(sdkChunks > shortChunks) || guardedChunks !== sdkChunks) {
    throw new Error(
      `bench: the ${provider.sdk} streams gave ${sdkChunks} chunks (guarded ${guardedChunks}), short ${shortChunks}`,
    );
  }

  const bare = newConsumer();
  const guarded = newConsumer();
  const off = newConsumer();
  const tasks: Array<readonly [string, () => Promise<unknown>, number]> = [
    ['sdk: long', sdkLong, 500],
    ['sdk: short', sdkShort, 500],
    ['sdk: long, guarded', sdkGuarded, 500],
    ['memory: unguarded', () => bare(source()), 200],
    ['memory: guarded', () => guarded(wrap(source(), timerOn)), 200],
    ['memory: guarded, idle timer off', () => off(wrap(source(), timerOff)), 200],
    ...floorWrappers.map(([wrapper, wrapWith]) => {
      const floor = newConsumer();
      return [`floor: ${wrapper}`, () => floor(wrapWith(source())), 200] as const;
    }),
  ];
  const perRound = await cpuRounds(tasks, rounds);

  // The same SDK at a model's pace: every chunk in a read of its own (stream-server-worker.ts).
  const pacedLong = newConsumer();
  const pacedShort = newConsumer();
  const pacedGuarded = newConsumer();
  const pacedTasks = [
    ['paced: long', async () => pacedLong(await open(`p${PACED_CHUNKS}`))],
    ['paced: short', async () => pacedShort(await open(`p${SHORT_STREAM_CHUNKS}`))],
    ['paced: long, guarded', async () => pacedGuarded(wrap(await open(`p${PACED_CHUNKS}`), timerOn))],
  ] as const;
  const pacedChunks = (await pacedTasks[0][1]()) as number;
  const pacedShortChunks = (await pacedTasks[1][1]()) as number;
  if (!(pacedChunks > pacedShortChunks) || (await pacedTasks[2][1]()) !== pacedChunks) {
    throw new Error(
      `bench: the paced ${provider.sdk} streams gave ${pacedChunks} chunks, short ${pacedShortChunks}`,
    );
  }
  const pacedPerRound = await countedCpuRounds(pacedTasks, rounds, PACED_SAMPLES);
  const at = (round: Measured[], name: string) => round[tasks.findIndex(([task]) => task === name)]!;
  const addedPerChunk = (round: Measured[], name: string) =>
    (at(round, name).medianNs - at(round, 'memory: unguarded').medianNs) / count;
  const sdkPerChunk = (round: Measured[]) =>
    (at(round, 'sdk: long').medianNs - at(round, 'sdk: short').medianNs) / (sdkChunks - shortChunks);
  const medianOf = (perRoundValue: (round: Measured[]) => number) => median(perRound.map(perRoundValue));
  const last = perRound.at(-1)!;
  const addedNsPerChunk = medianOf((round) => addedPerChunk(round, 'memory: guarded'));
  function pacedResult(): WorkerResult['paced'] {
    const pacedAt = (round: Measured[], name: string) =>
      round[pacedTasks.findIndex(([task]) => task === name)]!;
    const pacedPerChunk = (round: Measured[]) =>
      (pacedAt(round, 'paced: long').medianNs - pacedAt(round, 'paced: short').medianNs) /
      (pacedChunks - pacedShortChunks);
    const floor = medianOf((round) => addedPerChunk(round, 'floor: rejectable'));
    const pacedLast = pacedPerRound.at(-1)!;
    return {
      sdkChunks: pacedChunks,
      shortChunks: pacedShortChunks,
      rounds,
      samples: PACED_SAMPLES,
      long: pacedAt(pacedLast, 'paced: long'),
      short: pacedAt(pacedLast, 'paced: short'),
      guarded: pacedAt(pacedLast, 'paced: long, guarded'),
      sdkNsPerChunk: median(pacedPerRound.map(pacedPerChunk)),
      streamRatio: median(
        pacedPerRound.map(
          (round) => pacedAt(round, 'paced: long, guarded').medianNs / pacedAt(round, 'paced: long').medianNs,
        ),
      ),
      share: median(pacedPerRound.map((round) => addedNsPerChunk / pacedPerChunk(round))),
      floorShare: median(pacedPerRound.map((round) => floor / pacedPerChunk(round))),
    };
  }
  return {
    provider: name,
    sdk: provider.sdk,
    guard: provider.guard,
    source: streamClass === undefined ? 'generator' : 'sdk-stream',
    idleTimeoutMs,
    rounds,
    chunks: count,
    unguarded: at(last, 'memory: unguarded'),
    guarded: at(last, 'memory: guarded'),
    guardedTimerOff: at(last, 'memory: guarded, idle timer off'),
    addedNsPerChunk,
    addedNsPerChunkTimerOff: medianOf((round) => addedPerChunk(round, 'memory: guarded, idle timer off')),
    ratio: medianOf(
      (round) => at(round, 'memory: guarded').medianNs / at(round, 'memory: unguarded').medianNs,
    ),
    floors: floorWrappers.map(([wrapper]) => ({
      wrapper,
      addedNsPerChunk: medianOf((round) => addedPerChunk(round, `floor: ${wrapper}`)),
    })),
    sdkChunks,
    shortChunks,
    sdkUnguarded: at(last, 'sdk: long'),
    sdkGuarded: at(last, 'sdk: long, guarded'),
    shortStream: at(last, 'sdk: short'),
    sdkNsPerChunk: medianOf(sdkPerChunk),
    streamRatio: medianOf(
      (round) => at(round, 'sdk: long, guarded').medianNs / at(round, 'sdk: long').medianNs,
    ),
    paced: pacedResult(),
    share: medianOf((round) => addedPerChunk(round, 'memory: guarded') / sdkPerChunk(round)),
    floorShare: medianOf((round) => addedPerChunk(round, 'floor: rejectable') / sdkPerChunk(round)),
    thenFloorShare: medianOf((round) => addedPerChunk(round, 'floor: then') / sdkPerChunk(round)),
    readingFloorShare: medianOf((round) => addedPerChunk(round, 'floor: reading') / sdkPerChunk(round)),
  };
}

process.once('message', (request: WorkerRequest) => {
  measure(request).then(
    // Exit once sent: the SDK clients' keep-alive sockets would hold the process open.
    (result) => process.send!({ result }, () => process.exit(0)),
    (error: unknown) => {
      process.send!({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () =>
        process.exit(1),
      );
    },
  );
});
process.send!({ ready: true });
