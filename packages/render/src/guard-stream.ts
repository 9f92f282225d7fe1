import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ClassifyErrorOptions,
  classifyAttempt,
  errorFromMetadata,
  isCallerAbort,
  isUntouchedCallerAbort,
} from './classify-error.ts';
import { errorClassForType, type FaultlineError } from './errors.ts';
import { hasFaultlineMarker } from './identity.ts';
import { checkOptionKeys, invalidOption, isSignalOption } from './invalid-option.ts';
import { GUARD_STREAM_OPTION_KEYS } from './option-keys.ts';

export interface GuardStreamOptions<T> extends Omit<ClassifyErrorOptions, 'streaming' | 'delivered'> {
  /** The longest wait for the next chunk before the stream is abandoned. Default 60 000; 0 turns it off. */
  readonly idleTimeoutMs?: number | undefined;
  /**
   * The one per-chunk hook: what a chunk holds for the guard. `failure` is metadata when the chunk
   * is really an error (an error event, a withheld answer): it is thrown, classified. `characters`
   * counts output for `delivered`; `terminal` marks the provider's terminal event. A hook that
   * throws (or returns nothing) reads as an ordinary chunk of no characters. A string chunk is
   * text the consumer received: it counts its length whatever the hook says. Without a hook, any
   * other chunk counts one character: the guard cannot see inside it, and a chunk that reached the
   * consumer may have been output (a fallback after output would write a second answer).
   */
  readonly readChunk?: ((chunk: T) => ChunkReading | undefined) | undefined;
  /** Whether ending without a chunk read as `terminal` is an error (`interrupted`). Default false. */
  readonly requireTerminal?: boolean | undefined;
  /**
   * Whether a withheld answer (a `readChunk` failure with origin `blocked_response`: a content
   * filter, a refusal, a safety block) is thrown as `content_policy`. Default true; `false` lets
   * that chunk through as an ordinary one. Error events are thrown either way. Every provider
   * guard takes this one option under this one name.
   */
  readonly detectBlockedAnswer?: boolean | undefined;
  /**
   * Called once when the guard gives up on a source whose pull is still pending (the idle timer
   * fired, or the caller aborted and the source went on): release the request here, e.g. abort the
   * AbortController whose signal the SDK call was given. The source's `return()` is called too, but
   * an async generator stuck in a read runs it only after that read, which a stall never ends. A web
   * ReadableStream source needs no hook: the guard reads it through a reader of its own and cancels
   * it, which closes the response body.
   */
  readonly onAbandon?: (() => void) | undefined;
}

/**
 * Every adapter's `guardStream`: render's guard with the adapter's own `readChunk` (which its
 * caller cannot give) and extractor.
 */
export type AdapterStreamGuard = <S extends AsyncIterable<unknown>>(
  stream: S,
  options?: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'>,
) => GuardedStream<S>;

/** What `readChunk` finds in one chunk. */
export interface ChunkReading {
  /** Metadata when the chunk is really an error (an error event, a withheld answer). */
  failure?: ProviderErrorMetadata | undefined;
  /** Characters of output the chunk delivers. */
  characters: number;
  /** True for the provider's terminal event (`message_stop`, a finish reason ...). */
  terminal: boolean;
}

/** Tool calls read from one delta. */
const MAX_TOOL_CALLS = 64;

/**
 * Characters of output in the tool-call deltas a `readChunk` has read from its chunk (a list of
 * `{ function: { arguments } }`, the OpenAI-compatible shape several providers stream): a tool call
 * is output as much as text is (the consumer acts on it), so a stream cut after one delivered
 * output. An argument delta counts its length; arguments sent whole as an object count one. Total:
 * anything else counts nothing; a field that throws is the caller's `readChunk` failing (read as
 * an empty chunk).
 */
export function toolCallCharacters(calls: unknown): number {
  if (!Array.isArray(calls)) return 0;
  let characters = 0;
  const count = Math.min(calls.length, MAX_TOOL_CALLS);
  for (let index = 0; index < count; index += 1) {
    const call = calls[index] as { readonly function?: { readonly arguments?: unknown } | null } | null;
    if (call === null || typeof call !== 'object') continue;
    const fn = call.function;
    if (fn === null || typeof fn !== 'object') continue;
    const args = fn.arguments;
    if (typeof args === 'string') characters += args.length;
    else if (args !== null && typeof args === 'object') characters += 1;
  }
  return characters;
}

/**
 * A web ReadableStream source (the Speakeasy SDKs' `EventStream`, LangChain's stream) is read
 * through a reader of the guard's own rather than through its async iterator. That iterator queues
 * `return()` behind a pending read, so a stalled read could never be cancelled, and the SDK's signal
 * is no sure way out either: those SDKs hand fetch a `Request`, and Node's fetch stops following
 * that Request's signal once the Request object is garbage-collected, while its body is still read.
 * A reader's `cancel()` ends the pending read and cancels the stream down to the response body,
 * which closes the connection. `undefined` for anything else, or a stream already locked.
 */
function readerIterator<T>(stream: unknown): AsyncIterator<T> | undefined {
  const source = stream as { getReader?: unknown; cancel?: unknown; locked?: unknown };
  if (typeof source.getReader !== 'function' || typeof source.cancel !== 'function') return undefined;
  if (source.locked !== false) return undefined;
  const reader = (source as ReadableStream<T>).getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<T>>,
    return: async (value?: unknown) => {
      try {
        await reader.cancel();
      } finally {
        reader.releaseLock();
      }
      return { done: true, value: value as T };
    },
  };
}

/** Default idle timeout for `guardStream`. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * For streams that expose their request's AbortController as `controller` and have no `abort()` of
 * their own (the raw streams of the Stainless-generated SDKs: openai, groq-sdk, @anthropic-ai/sdk):
 * a function that aborts it, for `onAbandon`. Their iterator is an async generator, so a `return()`
 * behind a stalled read never runs; aborting the controller ends the request at once. `undefined`
 * for any other stream (helpers with `abort()` already abort on `return()`). Total.
 */
export function controllerRelease(stream: unknown): (() => void) | undefined {
  try {
    if (stream === null || typeof stream !== 'object') return undefined;
    const own = stream as { controller?: unknown; abort?: unknown };
    if (typeof own.abort === 'function') return undefined;
    const controller = own.controller as { abort?: unknown } | null | undefined;
    const abort = controller?.abort;
    if (typeof abort !== 'function') return undefined;
    return () => {
      try {
        abort.call(controller);
      } catch {
        // A controller that cannot abort: the iterator's own return() still runs.
      }
    };
  } catch {
    return undefined;
  }
}

/** The chunk type of an async iterable. */
export type StreamChunk<S> = S extends AsyncIterable<infer T> ? T : never;

/**
 * The names of a stream helper's own result methods: `finalMessage()`, `finalText()` (Anthropic's
 * MessageStream), `finalChatCompletion()`, `finalContent()`, `finalResponse()` (OpenAI's stream
 * helpers), `done()`: any method named `final…` or `done` that returns a promise.
 */
export type StreamResultMethod<S> = {
  [K in keyof S]: K extends `final${string}` | 'done'
    ? S[K] extends (...args: any[]) => Promise<unknown>
      ? K
      : never
    : never;
}[keyof S];

/**
 * What `guardStream` returns: the guarded chunks, plus the source's own result methods
 * (`finalMessage()`, `finalChatCompletion()` …) run under the guard. Calling one drains the stream
 * through the guard if nobody iterates it (or waits for the iteration under way to end), so a stall,
 * a missing terminal event or an in-stream error rejects it classified, exactly as iterating would;
 * then the source's method is called and a rejection from it is classified too.
 */
export type GuardedStream<S extends AsyncIterable<unknown>> = AsyncIterable<StreamChunk<S>> &
  Pick<S, StreamResultMethod<S>>;

const RESULT_METHOD = /^(final[A-Z]\w*|done)$/;

/** The deepest prototype chain read for result methods. */
const RESULT_METHOD_DEPTH = 8;

/**
 * The result methods a prototype and its own prototypes define, read once per prototype rather than
 * per stream. A prototype given methods after its first stream was guarded is not read again.
 */
const INHERITED_RESULT_METHODS = new WeakMap<object, readonly string[]>();

/** Adds the names of `level`'s own result methods to `names`, read without calling any getter. */
function addOwnResultMethods(level: object, names: string[]): void {
  for (const name of Object.getOwnPropertyNames(level)) {
    if (!RESULT_METHOD.test(name) || names.includes(name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(level, name);
    if (descriptor !== undefined && typeof descriptor.value === 'function') names.push(name);
  }
}

/** Names of the source's result methods, read without calling any getter. Total. */
function resultMethodsOf(source: unknown): string[] {
  const names: string[] = [];
  try {
    if (source === null || typeof source !== 'object' || source === Object.prototype) return names;
    addOwnResultMethods(source, names);
    const prototype: unknown = Object.getPrototypeOf(source);
    if (prototype === null || typeof prototype !== 'object' || prototype === Object.prototype) return names;
    let inherited = INHERITED_RESULT_METHODS.get(prototype);
    if (inherited === undefined) {
      const found: string[] = [];
      let level: unknown = prototype;
      for (
        let depth = 1;
        depth < RESULT_METHOD_DEPTH &&
        level !== null &&
        typeof level === 'object' &&
        level !== Object.prototype;
        depth += 1
      ) {
        addOwnResultMethods(level, found);
        level = Object.getPrototypeOf(level);
      }
      inherited = found;
      INHERITED_RESULT_METHODS.set(prototype, inherited);
    }
    for (const name of inherited) if (!names.includes(name)) names.push(name);
  } catch {
    // A hostile proxy: whatever was found so far.
  }
  return names;
}

/** How the guarded iteration ended: completed, failed (the error thrown), or stopped early. */
type Outcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'stopped' };

/**
 * Guards a streamed answer: chunks pass through untouched; every failure becomes a classified
 * FaultlineError carrying `delivered: { chunks, characters }`.
 *
 * - An error thrown while iterating is classified with streaming context (a transport drop is
 *   `interrupted`, `networkPhase: 'stream'`). A FaultlineError from the source is rebuilt with the
 *   same errorType and classification plus `delivered`, the original as its cause.
 * - Idle timer (measured from each pull, cleared on end, return and throw): on expiry the source's
 *   `return()` and `onAbandon` are called and an `interrupted` error (origin timeout, phase stream)
 *   is thrown.
 * - A stream that ends without its terminal event (when required) is `interrupted` (origin network).
 * - A `readChunk` failure is thrown as a classified error.
 * - The caller's abort: the source is expected to honour the signal (SDK streams do). If it throws an
 *   AbortError, that object is re-thrown untouched; if it simply ends, or yields another chunk, or
 *   stays silent until the idle timer, `signal.reason` is thrown. No race is run against the
 *   source, so that the source's own AbortError is the one the caller sees.
 * - The source's result methods (`finalMessage()` …) are offered on the result, run under the guard
 *   (see `GuardedStream`).
 */
export function guardStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  type T = StreamChunk<S>;
  validateGuardOptions(options);
  const state: GuardState = {
    started: false,
    outcome: undefined,
    waiters: [],
    delivered: { chunks: 0, characters: 0 },
  };
  const guarded: Record<string | symbol, unknown> = {};
  guarded[Symbol.asyncIterator] = (): AsyncIterator<T> => {
    const first = !state.started;
    state.started = true;
    return new GuardIterator(stream as AsyncIterable<T>, options, first ? state : undefined);
  };
  for (const name of resultMethodsOf(stream)) {
    guarded[name] = (...args: unknown[]) =>
      callResultMethod(stream, name, args, guarded as unknown as AsyncIterable<T>, state, options);
  }
  return guarded as unknown as GuardedStream<S>;
}

/** An option that cannot mean anything is a TypeError at the call, as in withClassifiedErrors. */
function validateGuardOptions(options: unknown): void {
  if (options === null || typeof options !== 'object')
    throw invalidOption('guardStream', 'options', 'an object', options);
  checkOptionKeys('guardStream', options, GUARD_STREAM_OPTION_KEYS);
  const { idleTimeoutMs, signal } = options as GuardStreamOptions<unknown>;
  if (idleTimeoutMs !== undefined && (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs >= 0)))
    throw invalidOption(
      'guardStream',
      'idleTimeoutMs',
      'a number of milliseconds ≥ 0 (0 turns the idle timer off)',
      idleTimeoutMs,
    );
  if (!isSignalOption(signal)) throw invalidOption('guardStream', 'signal', 'an AbortSignal', signal);
}

interface GuardState {
  started: boolean;
  outcome: Outcome | undefined;
  waiters: Array<(outcome: Outcome) => void>;
  /** What the first iteration delivered, for errors raised by a result method. */
  delivered: { chunks: number; characters: number };
}

function settle(state: GuardState | undefined, outcome: Outcome): void {
  if (state === undefined || state.outcome !== undefined) return;
  state.outcome = outcome;
  for (const waiter of state.waiters.splice(0)) waiter(outcome);
}

async function callResultMethod<T>(
  source: unknown,
  name: string,
  args: unknown[],
  guarded: AsyncIterable<T>,
  state: GuardState,
  options: GuardStreamOptions<T>,
): Promise<unknown> {
  if (!state.started) {
    // Nobody iterates: drain through the guard, so the idle timer and the terminal check apply.
    try {
      for await (const _chunk of guarded) {
        // The source's helper accumulates what it needs itself.
      }
    } catch {
      // Recorded in state.outcome, thrown below.
    }
  }
  const outcome = state.outcome ?? (await new Promise<Outcome>((resolve) => state.waiters.push(resolve)));
  if (outcome.kind === 'failed') throw outcome.error;
  try {
    const method = (source as Record<string, unknown>)[name] as (...parameters: unknown[]) => unknown;
    return await method.apply(source, args);
  } catch (thrown) {
    const signal = options.signal;
    if (signal?.aborted === true || isCallerAbort(thrown, signal)) throw thrown;
    if (hasFaultlineMarker(thrown)) throw withDelivered(thrown as FaultlineError, state.delivered, options);
    const error = classifyAttempt(
      thrown,
      { ...options, streaming: true, delivered: { ...state.delivered } },
      undefined,
    );
    throw isUntouchedCallerAbort(error, thrown) ? thrown : error;
  }
}

/**
 * A FaultlineError from the source (its iteration or a result method), rebuilt with the same
 * errorType and classification plus what the stream `delivered`, the original as its cause: its
 * report must say what reached the consumer, which the source did not know.
 */
function withDelivered<T>(
  source: FaultlineError,
  delivered: { chunks: number; characters: number },
  options: GuardStreamOptions<T>,
): unknown {
  try {
    const ErrorClass = errorClassForType(source.errorType);
    return new ErrorClass(source.message, {
      cause: source,
      classification: source.classification,
      metadata: { ...source.metadata, delivered: { ...delivered } },
      provider: source.provider,
      model: source.model ?? options.model,
      operation: source.operation ?? options.operation,
    });
  } catch {
    // A marked error from another copy of faultline whose fields cannot be read: as is.
    return source;
  }
}

/** A callback's answer, or `fallback` when it throws (a user callback never breaks the guard). */
function attempt<A, R>(callback: (argument: A) => R, argument: A, fallback: R): R {
  try {
    return callback(argument);
  } catch {
    return fallback;
  }
}

/** The idle check runs about this many times per idle timeout. */
const IDLE_CHECKS_PER_TIMEOUT = 4;
/** The longest period a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The guard's iterator, written by hand rather than as an async generator: a generator awaits every
 * value it yields (a thenable chunk would be unwrapped, a revoked Proxy would throw), queues
 * `return()` behind a pending read, and adds a promise round per chunk.
 *
 * Per chunk, with the idle timer off, it costs one `.then` on the source's own promise and the
 * provider's `readChunk`; the source's step object is handed on as it is (no new result object)
 * when it is an ordinary `{ done: false, value }`. With the timer on, the caller gets a promise of
 * the guard's own, so that a stall can reject it whatever the source does. The timer costs one
 * counter increment per pull: no clock read and no timer call per chunk. The handlers are made once
 * per iterator, never per `next()`.
 *
 * The idle timer is an interval that compares the pull counter (`pulls`) between its checks: a pull
 * still pending, with no pull started since, for `idleChecks` checks `idlePeriodMs` apart has
 * waited at least the timeout and at most one period more (1.25× the timeout, or 1 ms more for a
 * timeout under 4 ms). The interval stops when a check finds no pull pending, and the next pull
 * starts it again.
 */
class GuardIterator<T> implements AsyncIterator<T> {
  private readonly signal: AbortSignal | undefined;
  private readonly idleTimeoutMs: number;
  private readonly timed: boolean;
  private readonly idlePeriodMs: number;
  private readonly idleChecks: number;
  private readonly requireTerminal: boolean;
  private readonly readChunk: GuardStreamOptions<T>['readChunk'];
  private iterator: AsyncIterator<T> | undefined;
  /**
   * The source iterator's `next`, read once, when the iterator is made (as `for await` and `yield*`
   * read it once); undefined when it is not a function, and then every pull reads `next` again (and
   * throws what it always threw). An SDK's stream iterator is an async generator made by a function
   * made per stream (each Stainless `Stream` and each SDK's SSE reader), so every stream's iterator
   * has a map of its own, and a `next` read per pull would be a megamorphic load.
   */
  private sourceNext: AsyncIterator<T>['next'] | undefined;
  private chunks = 0;
  private characters = 0;
  private terminalSeen = false;
  private finished = false;
  /** next() calls not yet settled; `tail` is the last one, for a concurrent next() to wait on. */
  private queued = 0;
  private tail: Promise<IteratorResult<T>> | undefined;
  /** Pulls started on the source while the idle timer is on. */
  private pulls = 0;
  /** `pulls` at the last idle check, and how many checks in a row have seen it unchanged. */
  private checkedPulls = 0;
  private quietChecks = 0;
  private interval: ReturnType<typeof setInterval> | undefined;
  /** The pending pull's promise, handed to the caller, when the idle timer is on: set while a pull is pending. */
  private resolvePull: ((result: IteratorResult<T> | PromiseLike<IteratorResult<T>>) => void) | undefined;
  private rejectPull: ((error: unknown) => void) | undefined;

  constructor(
    private readonly stream: AsyncIterable<T>,
    private readonly options: GuardStreamOptions<T>,
    private readonly state: GuardState | undefined,
  ) {
    this.signal = options.signal;
    const requested = options.idleTimeoutMs;
    // 0 and Infinity turn the timer off (guardStream has rejected anything else).
    this.idleTimeoutMs =
      typeof requested !== 'number'
        ? DEFAULT_STREAM_IDLE_TIMEOUT_MS
        : Number.isFinite(requested)
          ? requested
          : 0;
    this.timed = this.idleTimeoutMs > 0;
    this.idlePeriodMs = Math.min(
      MAX_TIMER_MS,
      Math.max(1, Math.floor(this.idleTimeoutMs / IDLE_CHECKS_PER_TIMEOUT)),
    );
    this.idleChecks = Math.ceil(this.idleTimeoutMs / this.idlePeriodMs);
    this.requireTerminal = options.requireTerminal === true;
    this.readChunk = options.readChunk;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    // Reads run one at a time, as a generator's would: a next() called while one is under way
    // waits for it (for-await never does that, so the usual path chains nothing).
    const read =
      this.queued > 0 && this.tail !== undefined ? this.tail.then(this.readNext, this.readNext) : this.read();
    this.queued += 1;
    this.tail = read;
    return read;
  }

  private readonly readNext = () => this.read();

  async return(value?: unknown): Promise<IteratorResult<T>> {
    if (!this.finished) {
      // The consumer stopped early (break/return/throw): let the source clean up.
      this.finish({ kind: 'stopped' });
      try {
        await this.iterator?.return?.();
      } catch {
        // Cleanup failures are not the caller's failure.
      }
    }
    return { done: true, value: value as T };
  }

  async throw(error?: unknown): Promise<IteratorResult<T>> {
    await this.return();
    throw error;
  }

  private delivered() {
    return { chunks: this.chunks, characters: this.characters };
  }

  private finish(outcome: Outcome): void {
    this.finished = true;
    if (this.interval !== undefined) {
      clearInterval(this.interval);
      this.interval = undefined;
    }
    if (this.state !== undefined) {
      if (outcome.kind !== 'stopped') this.state.delivered = this.delivered();
      settle(this.state, outcome);
    }
  }

  /** Ends the stream with `error`, recorded for the result methods; returns it to be thrown. */
  private fail(error: unknown): unknown {
    this.finish({ kind: 'failed', error });
    return error;
  }

  private failWith(metadata: ProviderErrorMetadata): unknown {
    return this.fail(errorFromMetadata(metadata, { ...this.options, delivered: this.delivered() }));
  }

  private classified(thrown: unknown): unknown {
    const { signal, options } = this;
    // Once the caller's signal has fired, whatever the source threw is the caller's abort: untouched.
    if (signal?.aborted === true || isCallerAbort(thrown, signal)) return thrown;
    if (hasFaultlineMarker(thrown)) return withDelivered(thrown as FaultlineError, this.delivered(), options);
    const error = classifyAttempt(
      thrown,
      { ...options, streaming: true, delivered: this.delivered() },
      undefined,
    );
    // The caller's abort through a signal given to the SDK alone: untouched too.
    return isUntouchedCallerAbort(error, thrown) ? thrown : error;
  }

  /** The source is stuck in next(), or went on after the caller's abort: stop it, release the request. */
  private abandon(): void {
    try {
      this.iterator?.return?.()?.then(undefined, () => {});
    } catch {
      // A return() that throws changes nothing.
    }
    if (this.options.onAbandon !== undefined) attempt(this.options.onAbandon, undefined, undefined);
  }

  private startIdleCheck(): void {
    this.checkedPulls = this.pulls;
    this.quietChecks = 0;
    this.interval = setInterval(this.onIdleCheck, this.idlePeriodMs);
  }

  /** One idle check (see the class comment). */
  private readonly onIdleCheck = () => {
    const reject = this.rejectPull;
    if (reject === undefined) {
      // Between reads: the next read starts the check again.
      clearInterval(this.interval);
      this.interval = undefined;
      return;
    }
    if (this.pulls !== this.checkedPulls) {
      this.checkedPulls = this.pulls;
      this.quietChecks = 0;
      return;
    }
    this.quietChecks += 1;
    if (this.quietChecks < this.idleChecks) return;
    // Silent for the idle timeout: give up on the pull.
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    this.queued -= 1;
    this.abandon();
    reject!(this.idleError());
  };

  /** What a pull the idle timer gave up on gives: the caller's abort reason, or the idle error. */
  private idleError(): unknown {
    const { signal, options } = this;
    return signal?.aborted === true
      ? this.fail(signal.reason)
      : this.failWith({
          provider: options.provider ?? 'unknown',
          message: `stream idle for ${this.idleTimeoutMs} ms`,
          origin: 'timeout',
          networkPhase: 'stream',
        });
  }

  private readonly capturePull = (
    resolve: (result: IteratorResult<T> | PromiseLike<IteratorResult<T>>) => void,
    reject: (error: unknown) => void,
  ) => {
    this.resolvePull = resolve;
    this.rejectPull = reject;
  };

  private read(): Promise<IteratorResult<T>> {
    if (this.finished === true) {
      this.queued -= 1;
      return Promise.resolve({ done: true, value: undefined });
    }
    // Even when the caller has aborted, pull once more: an SDK stream that honours the signal
    // throws its own abort error, which is what the caller expects to see (checked in `take`).
    let pending: Promise<IteratorResult<T>>;
    try {
      let iterator = this.iterator;
      if (iterator === undefined) {
        iterator = readerIterator<T>(this.stream) ?? this.stream[Symbol.asyncIterator]();
        this.iterator = iterator;
        const next = iterator.next;
        if (typeof next === 'function') this.sourceNext = next;
      }
      const next = this.sourceNext;
      const result = next !== undefined ? next.call(iterator) : iterator.next();
      // A native promise is used as it is (Promise.resolve would check and return it). A
      // subclass's then() is the source's code, which may throw or give no promise:
      // Promise.resolve adopts it in a job of its own, as before (the constructor read is the
      // check Promise.resolve makes).
      pending =
        result instanceof Promise && result.constructor === Promise ? result : Promise.resolve(result);
    } catch (thrown) {
      this.queued -= 1;
      return Promise.reject(this.fail(this.classified(thrown)));
    }
    if (this.timed !== true) return pending.then(this.onStep, this.onError);
    this.pulls += 1;
    if (this.interval === undefined) this.startIdleCheck();
    const read = new Promise<IteratorResult<T>>(this.capturePull);
    pending.then(this.onTimedStep, this.onTimedError);
    return read;
  }

  private readonly onStep = (step: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> => {
    this.queued -= 1;
    return this.take(step);
  };

  private readonly onError = (thrown: unknown): never => {
    this.queued -= 1;
    throw this.fail(this.classified(thrown));
  };

  private readonly onTimedStep = (step: IteratorResult<T>): void => {
    const reject = this.rejectPull;
    if (reject === undefined) return; // the idle timer gave up on this pull
    const resolve = this.resolvePull!;
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    this.queued -= 1;
    try {
      resolve(this.take(step));
    } catch (error) {
      reject(error);
    }
  };

  private readonly onTimedError = (thrown: unknown): void => {
    const reject = this.rejectPull;
    if (reject === undefined) return; // the idle timer gave up on this pull
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    this.queued -= 1;
    try {
      reject(this.fail(this.classified(thrown)));
    } catch (error) {
      reject(error);
    }
  };

  /**
   * What one source step gives the caller. Throws the error to reject the read with. The usual
   * step (a chunk read by the provider's `readChunk`) stays in this method; the rest is in methods of
   * their own, so that this one stays small enough for the engine to inline into its handlers.
   */
  private take(step: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> {
    if (this.finished === true) return { done: true, value: undefined }; // return() ran while we read
    let done: unknown;
    let chunk: T;
    /** The source's step can be handed on as it is: `done` exactly false and not a thenable. */
    let asIs = false;
    try {
      if (step === null || typeof step !== 'object') {
        throw new TypeError(`Iterator result ${String(step)} is not an object`);
      }
      done = step.done;
      chunk = done === true ? (undefined as T) : step.value;
      asIs = done === false && (step as { then?: unknown }).then === undefined;
    } catch (thrown) {
      throw this.fail(this.classified(thrown));
    }
    if (this.signal?.aborted === true) return this.abortedMeanwhile(done === true);
    if (done === true) return this.end();
    let failure: unknown;
    let size: unknown = 0;
    let terminal: unknown = false;
    const readChunk = this.readChunk;
    if (readChunk === undefined) size = typeof chunk === 'string' ? chunk.length : 1;
    else {
      // A hook that throws, or a reading whose fields throw, reads as an ordinary chunk.
      try {
        const reading = readChunk(chunk);
        if (reading !== undefined && reading !== null) {
          const found = reading.failure;
          const characters = reading.characters;
          terminal = reading.terminal;
          failure = found;
          size = characters;
        }
      } catch {
        failure = undefined;
        size = 0;
        terminal = false;
      }
    }
    if (failure !== undefined && failure !== null && typeof failure === 'object' && this.throwsOn(failure))
      return this.closeAndThrow(this.failWith(failure as ProviderErrorMetadata));
    // A hook reads what is inside an object chunk; a string is the text itself (a chain that ends
    // in a string parser streams its answer so, under a hook written for the model's chunks).
    if (typeof chunk === 'string') size = chunk.length;
    this.chunks += 1;
    if (typeof size === 'number' && size > 0 && Number.isFinite(size)) this.characters += Math.floor(size);
    if (terminal === true) this.terminalSeen = true;
    return asIs ? step : { done: false, value: chunk };
  }

  /** The caller's signal fired and the source went on (or ended): stop it, throw the signal's reason. */
  private abortedMeanwhile(ended: boolean): never {
    // The source ignored the caller's abort and went on: ask it to stop, release the request.
    if (!ended) this.abandon();
    throw this.fail(this.signal?.reason);
  }

  /** The source ended: complete, or `interrupted` without the terminal event it needed. */
  private end(): IteratorResult<T> {
    if (this.requireTerminal && !this.terminalSeen) {
      throw this.failWith({
        provider: this.options.provider ?? 'unknown',
        message: 'stream ended without its terminal event',
        origin: 'network',
        networkPhase: 'stream',
      });
    }
    this.finish({ kind: 'completed' });
    return { done: true, value: undefined };
  }

  /**
   * Whether a chunk's metadata is thrown: always for an error event; for a withheld answer
   * (origin `blocked_response`) unless the caller set `detectBlockedAnswer: false`.
   */
  private throwsOn(metadata: object): boolean {
    return !(
      this.options.detectBlockedAnswer === false && safeGet(metadata, 'origin') === 'blocked_response'
    );
  }

  /** A chunk that is really an error: the source is not stuck, let it clean up, then throw. */
  private async closeAndThrow(error: unknown): Promise<never> {
    try {
      await this.iterator?.return?.();
    } catch {
      // Cleanup failures are not the caller's failure.
    }
    throw error;
  }
}
