import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ClassifyErrorOptions,
  classifyError,
  errorFromMetadata,
  isCallerAbort,
  isUntouchedCallerAbort,
} from './classify-error.ts';
import { errorClassForType, type FaultlineError } from './errors.ts';
import { hasFaultlineMarker } from './identity.ts';
import { invalidOption, isSignalOption } from './invalid-option.ts';

export interface GuardStreamOptions<T> extends Omit<ClassifyErrorOptions, 'streaming' | 'delivered'> {
  /** The longest wait for the next chunk before the stream is abandoned. Default 60 000; 0 turns it off. */
  readonly idleTimeoutMs?: number | undefined;
  /** True for the provider's terminal event (`message_stop`, `[DONE]`, a finish reason ...). */
  readonly isTerminal?: ((chunk: T) => boolean) | undefined;
  /** Whether ending without a terminal event is an error. Default: true when `isTerminal` is given. */
  readonly requireTerminal?: boolean | undefined;
  /** Metadata for a chunk that is really an error (an error event, a blocked answer): thrown. */
  readonly inspectChunk?: ((chunk: T) => ProviderErrorMetadata | undefined | null) | undefined;
  /**
   * Whether a withheld answer (`inspectChunk` metadata with origin `blocked_response`: a content
   * filter, a refusal, a safety block) is thrown as `content_policy`. Default true; `false` lets
   * that chunk through as an ordinary one. Error events are thrown either way. Every provider
   * guard takes this one option under this one name.
   */
  readonly detectBlockedAnswer?: boolean | undefined;
  /** Characters of output in a chunk, for `delivered`. Default: the length of a string chunk, else 0. */
  readonly measure?: ((chunk: T) => number) | undefined;
  /**
   * Called once when the guard gives up on a source whose pull is still pending (the idle timer
   * fired, or the caller aborted and the source went on): release the request here, e.g. abort the
   * AbortController whose signal the SDK call was given. The source's `return()` is called too, but
   * an async generator stuck in a read runs it only after that read, which a stall never ends.
   */
  readonly onAbandon?: (() => void) | undefined;
}

/** Default idle timeout for `guardStream`. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

const IDLE = Symbol('idle');

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

/** Names of the source's result methods, read without calling any getter. Total. */
function resultMethodsOf(source: unknown): string[] {
  const names: string[] = [];
  try {
    let level: unknown = source;
    for (let depth = 0; depth < 8 && level !== null && typeof level === 'object'; depth += 1) {
      if (level === Object.prototype) break;
      for (const name of Object.getOwnPropertyNames(level)) {
        if (!RESULT_METHOD.test(name) || names.includes(name)) continue;
        const descriptor = Object.getOwnPropertyDescriptor(level, name);
        if (descriptor !== undefined && typeof descriptor.value === 'function') names.push(name);
      }
      level = Object.getPrototypeOf(level);
    }
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
 * - `inspectChunk` metadata is thrown as a classified error.
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
  const guarded: Record<string | symbol, unknown> = {
    [Symbol.asyncIterator]: (): AsyncIterator<T> => {
      const first = !state.started;
      state.started = true;
      return new GuardIterator(stream as AsyncIterable<T>, options, first ? state : undefined);
    },
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
    if (signal?.aborted === true || isCallerAbort(thrown, signal) || hasFaultlineMarker(thrown)) throw thrown;
    const error = classifyError(thrown, { ...options, streaming: true, delivered: { ...state.delivered } });
    throw isUntouchedCallerAbort(error, thrown) ? thrown : error;
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

const clock = () => Date.now();

/**
 * The guard's iterator, written by hand rather than as an async generator: a generator awaits every
 * value it yields (a thenable chunk would be unwrapped, a revoked Proxy would throw), queues
 * `return()` behind a pending read, and costs a promise round more per chunk. One idle timer per
 * stream is re-armed lazily (at most once per idle period), never per chunk.
 */
class GuardIterator<T> implements AsyncIterator<T> {
  private readonly signal: AbortSignal | undefined;
  private readonly idleTimeoutMs: number;
  private readonly requireTerminal: boolean;
  private iterator: AsyncIterator<T> | undefined;
  private chunks = 0;
  private characters = 0;
  private terminalSeen = false;
  private finished = false;
  /** next() calls not yet settled; `tail` is the last one, for a concurrent next() to wait on. */
  private queued = 0;
  private tail: Promise<IteratorResult<T>> | undefined;
  private pullStarted = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private resolveIdle: ((step: typeof IDLE) => void) | undefined;

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
    this.requireTerminal = options.requireTerminal ?? typeof options.isTerminal === 'function';
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    // Reads run one at a time, as a generator's would: a next() called while one is under way
    // waits for it (for-await never does that, so the usual path chains nothing).
    this.queued += 1;
    const read =
      this.queued > 1 && this.tail !== undefined ? this.tail.then(this.readNext, this.readNext) : this.read();
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
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.resolveIdle = undefined;
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
    if (hasFaultlineMarker(thrown)) {
      const source = thrown as FaultlineError;
      try {
        const ErrorClass = errorClassForType(source.errorType);
        return new ErrorClass(source.message, {
          cause: source,
          classification: source.classification,
          metadata: { ...source.metadata, delivered: this.delivered() },
          provider: source.provider,
          model: source.model ?? options.model,
          operation: source.operation ?? options.operation,
        });
      } catch {
        // A marked error from another copy of faultline whose fields cannot be read: as is.
        return thrown;
      }
    }
    const error = classifyError(thrown, { ...options, streaming: true, delivered: this.delivered() });
    // The caller's abort through a signal given to the SDK alone: untouched too.
    return isUntouchedCallerAbort(error, thrown) ? thrown : error;
  }

  /** The idle timer fired: give up on the read if it has waited long enough, else wait the rest. */
  private readonly onTimer = () => {
    this.timer = undefined;
    if (this.resolveIdle === undefined) return; // between reads: re-armed by the next read
    const waited = clock() - this.pullStarted;
    if (waited >= this.idleTimeoutMs) this.resolveIdle(IDLE);
    else this.timer = setTimeout(this.onTimer, this.idleTimeoutMs - waited);
  };

  /** The source's next step, or IDLE once it has been silent for the idle timeout. */
  private pull(iterator: AsyncIterator<T>): Promise<IteratorResult<T> | typeof IDLE> {
    if (this.idleTimeoutMs === 0) return iterator.next();
    return new Promise((resolve, reject) => {
      this.pullStarted = clock();
      this.resolveIdle = resolve;
      if (this.timer === undefined) this.timer = setTimeout(this.onTimer, this.idleTimeoutMs);
      iterator.next().then(
        (step) => {
          this.resolveIdle = undefined;
          resolve(step);
        },
        (error: unknown) => {
          this.resolveIdle = undefined;
          reject(error);
        },
      );
    });
  }

  private async read(): Promise<IteratorResult<T>> {
    try {
      if (this.finished) return { done: true, value: undefined };
      const { options, signal } = this;
      let iterator = this.iterator;
      if (iterator === undefined) {
        try {
          iterator = this.stream[Symbol.asyncIterator]();
          this.iterator = iterator;
        } catch (thrown) {
          throw this.fail(this.classified(thrown));
        }
      }
      // Even when the caller has aborted, pull once more: an SDK stream that honours the signal
      // throws its own abort error, which is what the caller expects to see (checked below).
      let step: IteratorResult<T> | typeof IDLE;
      try {
        step = await this.pull(iterator);
      } catch (thrown) {
        throw this.fail(this.classified(thrown));
      }
      if (this.finished) return { done: true, value: undefined }; // return() ran while we read
      if (step === IDLE || (signal?.aborted === true && step.done !== true)) {
        // The source is stuck in next(), or it ignored the caller's abort and went on: ask it to
        // stop without waiting for it, and let the caller release the request.
        try {
          iterator.return?.()?.then(undefined, () => {});
        } catch {
          // A return() that throws changes nothing.
        }
        if (options.onAbandon !== undefined) attempt(options.onAbandon, undefined, undefined);
        if (signal?.aborted === true) throw this.fail(signal.reason);
        throw this.failWith({
          provider: options.provider ?? 'unknown',
          message: `stream idle for ${this.idleTimeoutMs} ms`,
          origin: 'timeout',
          networkPhase: 'stream',
        });
      }
      if (step.done === true) {
        if (signal?.aborted === true) throw this.fail(signal.reason);
        if (this.requireTerminal && !this.terminalSeen) {
          throw this.failWith({
            provider: options.provider ?? 'unknown',
            message: 'stream ended without its terminal event',
            origin: 'network',
            networkPhase: 'stream',
          });
        }
        this.finish({ kind: 'completed' });
        return { done: true, value: undefined };
      }
      const chunk = step.value;
      const { inspectChunk, measure, isTerminal } = options;
      if (inspectChunk !== undefined) {
        const metadata = attempt(inspectChunk, chunk, undefined);
        if (
          metadata !== undefined &&
          metadata !== null &&
          typeof metadata === 'object' &&
          !(options.detectBlockedAnswer === false && safeGet(metadata, 'origin') === 'blocked_response')
        ) {
          const error = this.failWith(metadata);
          // A chunk that is really an error: the source is not stuck, let it clean up.
          try {
            await iterator.return?.();
          } catch {
            // Cleanup failures are not the caller's failure.
          }
          throw error;
        }
      }
      this.chunks += 1;
      const size =
        measure !== undefined ? attempt(measure, chunk, 0) : typeof chunk === 'string' ? chunk.length : 0;
      if (typeof size === 'number' && size > 0 && Number.isFinite(size)) this.characters += Math.floor(size);
      if (isTerminal !== undefined && attempt(isTerminal, chunk, false) === true) this.terminalSeen = true;
      return { done: false, value: chunk };
    } finally {
      this.queued -= 1;
    }
  }
}
