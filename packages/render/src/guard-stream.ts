import type { ProviderErrorMetadata } from '@faultline/classify';
import {
  type ClassifyErrorOptions,
  classifyError,
  errorFromMetadata,
  isCallerAbort,
} from './classify-error.ts';
import { errorClassForType, type FaultlineError } from './errors.ts';
import { hasFaultlineMarker } from './identity.ts';

export interface GuardStreamOptions<T> extends Omit<ClassifyErrorOptions, 'streaming' | 'delivered'> {
  /** The longest wait for the next chunk before the stream is abandoned. Default 60 000; 0 turns it off. */
  readonly idleTimeoutMs?: number | undefined;
  /** True for the provider's terminal event (`message_stop`, `[DONE]`, a finish reason ...). */
  readonly isTerminal?: ((chunk: T) => boolean) | undefined;
  /** Whether ending without a terminal event is an error. Default: true when `isTerminal` is given. */
  readonly requireTerminal?: boolean | undefined;
  /** Metadata for a chunk that is really an error (an error event, a blocked answer): thrown. */
  readonly inspectChunk?: ((chunk: T) => ProviderErrorMetadata | undefined | null) | undefined;
  /** Characters of output in a chunk, for `delivered`. Default: the length of a string chunk, else 0. */
  readonly measure?: ((chunk: T) => number) | undefined;
}

/** Default idle timeout for `guardStream`. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

const IDLE = Symbol('idle');

function safeCall<R>(callback: (() => R) | undefined, fallback: R): R {
  if (callback === undefined) return fallback;
  try {
    return callback();
  } catch {
    return fallback;
  }
}

function nextWithin<T>(
  iterator: AsyncIterator<T>,
  timeoutMs: number,
): Promise<IteratorResult<T> | typeof IDLE> {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return iterator.next();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(IDLE), timeoutMs);
    iterator.next().then(
      (step) => {
        clearTimeout(timer);
        resolve(step);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Guards a streamed answer: chunks pass through untouched; every failure becomes a classified
 * FaultlineError carrying `delivered: { chunks, characters }`.
 *
 * - An error thrown while iterating is classified with streaming context (a transport drop is
 *   `interrupted`, `networkPhase: 'stream'`). A FaultlineError from the source is rebuilt with the
 *   same errorType and classification plus `delivered`, the original as its cause.
 * - Idle timer (reset for every chunk, cleared on end, return and throw): on expiry the source's
 *   `return()` is called and an `interrupted` error (origin timeout, phase stream) is thrown.
 * - A stream that ends without its terminal event (when required) is `interrupted` (origin network).
 * - `inspectChunk` metadata is thrown as a classified error.
 * - The caller's abort: the source is expected to honour the signal (SDK streams do). If it throws an
 *   AbortError, that object is re-thrown untouched; if it simply ends, `signal.reason` is thrown. The
 *   signal is also checked before each pull. No race is run against the source, so that the
 *   source's own AbortError is the one the caller sees; a source that ignores the signal is ended by
 *   the idle timer.
 */
export function guardStream<T>(
  stream: AsyncIterable<T>,
  options: GuardStreamOptions<T> = {},
): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]: () => guard(stream, options),
  };
}

async function* guard<T>(
  stream: AsyncIterable<T>,
  options: GuardStreamOptions<T>,
): AsyncGenerator<T, void, undefined> {
  const signal = options.signal;
  const idleTimeoutMs =
    typeof options.idleTimeoutMs === 'number' && options.idleTimeoutMs >= 0
      ? options.idleTimeoutMs
      : DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const { isTerminal, inspectChunk, measure } = options;
  const requireTerminal = options.requireTerminal ?? typeof isTerminal === 'function';
  let chunks = 0;
  let characters = 0;
  let terminalSeen = false;
  let finished = false;
  let pending = false;
  const delivered = () => ({ chunks, characters });
  const failWith = (metadata: ProviderErrorMetadata) =>
    errorFromMetadata(metadata, { ...options, delivered: delivered() });

  let iterator: AsyncIterator<T>;
  try {
    iterator = stream[Symbol.asyncIterator]();
  } catch (thrown) {
    finished = true;
    throw classified(thrown);
  }

  function classified(thrown: unknown): unknown {
    // Once the caller's signal has fired, whatever the source threw is the caller's abort: untouched.
    if (signal?.aborted === true || isCallerAbort(thrown, signal)) return thrown;
    if (hasFaultlineMarker(thrown)) {
      const source = thrown as FaultlineError;
      try {
        const ErrorClass = errorClassForType(source.errorType);
        return new ErrorClass(source.message, {
          cause: source,
          classification: source.classification,
          metadata: { ...source.metadata, delivered: delivered() },
          provider: source.provider,
          model: source.model ?? options.model,
          operation: source.operation ?? options.operation,
        });
      } catch {
        // A marked error from another copy of faultline whose fields cannot be read: as is.
        return thrown;
      }
    }
    return classifyError(thrown, { ...options, streaming: true, delivered: delivered() });
  }

  try {
    while (true) {
      if (signal?.aborted) throw signal.reason;
      let step: IteratorResult<T> | typeof IDLE;
      pending = true;
      try {
        step = await nextWithin(iterator, idleTimeoutMs);
      } catch (thrown) {
        pending = false;
        finished = true;
        throw classified(thrown);
      }
      if (step === IDLE) {
        // The source is stuck in next(): ask it to stop without waiting for it.
        try {
          iterator.return?.()?.then(undefined, () => {});
        } catch {
          // A return() that throws changes nothing.
        }
        finished = true;
        throw failWith({
          provider: options.provider ?? 'unknown',
          message: `stream idle for ${idleTimeoutMs} ms`,
          origin: 'timeout',
          networkPhase: 'stream',
        });
      }
      pending = false;
      if (step.done) {
        finished = true;
        if (signal?.aborted) throw signal.reason;
        if (requireTerminal && !terminalSeen) {
          throw failWith({
            provider: options.provider ?? 'unknown',
            message: 'stream ended without its terminal event',
            origin: 'network',
            networkPhase: 'stream',
          });
        }
        return;
      }
      const chunk = step.value;
      const metadata = safeCall(inspectChunk && (() => inspectChunk(chunk)), undefined);
      if (metadata !== undefined && metadata !== null && typeof metadata === 'object') {
        throw failWith(metadata);
      }
      chunks += 1;
      const size = measure ? safeCall(() => measure(chunk), 0) : typeof chunk === 'string' ? chunk.length : 0;
      if (typeof size === 'number' && Number.isFinite(size) && size > 0) characters += Math.floor(size);
      if (isTerminal && safeCall(() => isTerminal(chunk) === true, false)) terminalSeen = true;
      yield chunk;
    }
  } finally {
    if (!finished && !pending) {
      // The consumer stopped early (break/return/throw) or a chunk was an error: let the source clean up.
      try {
        await iterator.return?.();
      } catch {
        // Cleanup failures are not the caller's failure.
      }
    }
  }
}
