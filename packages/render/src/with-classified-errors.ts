import { type ProviderErrorMetadata, safeGet } from '@faultline/classify';
import { type ClassifyErrorOptions, classifyError, errorFromMetadata } from './classify-error.ts';
import type { FaultlineError } from './errors.ts';
import type { ErrorReport } from './report.ts';

/** What `fn` gets on each attempt. `attempt` starts at 1. */
export interface AttemptContext {
  /** The signal to pass to the SDK: the caller's own, or one that also fires at `deadlineMs`. */
  readonly signal: AbortSignal | undefined;
  readonly attempt: number;
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The wait before the next attempt. */
  readonly delayMs: number;
  readonly error: FaultlineError;
  readonly report: ErrorReport;
}

export interface RetryOptions {
  /** Attempts in all, the first included. Default 3. */
  readonly maxAttempts?: number | undefined;
  /** The backoff base: attempt n waits up to `baseDelayMs * 2^(n-1)` (full jitter). Default 500. */
  readonly baseDelayMs?: number | undefined;
  /** The backoff ceiling. Default 30 000. */
  readonly maxDelayMs?: number | undefined;
  /** A Retry-After longer than this is not waited for: the error is thrown at once, wait in its report. Default 60. */
  readonly maxRetryAfterSeconds?: number | undefined;
  /** Called before each wait; a throwing listener is ignored. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** The jitter source, [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

export interface WithClassifiedErrorsOptions<T = unknown>
  extends Omit<ClassifyErrorOptions, 'streaming' | 'delivered'> {
  /** Opt-in retries of transient failures (and ambiguous ones when `idempotent`). Off by default. */
  readonly retry?: false | true | RetryOptions | undefined;
  /** The whole call, retries and waits included, must end within this many milliseconds. */
  readonly deadlineMs?: number | undefined;
  /** Reads a success result; metadata returned (a content-filtered 200 ...) is thrown as a classified error. */
  readonly inspectResult?: ((result: T) => ProviderErrorMetadata | undefined | null) | undefined;
}

const FIRST_ATTEMPT: AttemptContext = Object.freeze({ signal: undefined, attempt: 1 });

function inspect<T>(result: T, options: WithClassifiedErrorsOptions<T>): void {
  const inspectResult = options.inspectResult;
  if (typeof inspectResult !== 'function') return;
  let metadata: ProviderErrorMetadata | undefined | null;
  try {
    metadata = inspectResult(result);
  } catch {
    return;
  }
  if (metadata === null || metadata === undefined || typeof metadata !== 'object') return;
  throw errorFromMetadata(metadata, options);
}

interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterSeconds: number;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly random: () => number;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function retryPolicy(retry: WithClassifiedErrorsOptions['retry']): RetryPolicy | undefined {
  if (retry === undefined || retry === false || retry === null) return undefined;
  const options: RetryOptions = retry === true ? {} : retry;
  return {
    maxAttempts: Math.max(1, Math.floor(positive(options.maxAttempts, 3))),
    baseDelayMs: positive(options.baseDelayMs, 500),
    maxDelayMs: positive(options.maxDelayMs, 30_000),
    maxRetryAfterSeconds: positive(options.maxRetryAfterSeconds, 60),
    onRetry: typeof options.onRetry === 'function' ? options.onRetry : undefined,
    random: typeof options.random === 'function' ? options.random : Math.random,
  };
}

/** Only a transient failure is retried; an ambiguous one too when the caller says the call is idempotent. */
function shouldRetry(error: FaultlineError, idempotent: boolean | undefined): boolean {
  // Read through safeGet: a FaultlineError from another copy of faultline passes through as is.
  const classification = safeGet(error, 'classification');
  if (safeGet(classification, 'callerAborted') === true) return false;
  return (
    safeGet(classification, 'retryable') === true ||
    (idempotent === true && safeGet(classification, 'category') === 'ambiguous')
  );
}

/** Waits `milliseconds`; rejects with the signal's reason the moment it fires. Leaves no timer or listener. */
function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function deadlineError(): Error {
  try {
    return new DOMException('The deadline passed', 'TimeoutError');
  } catch {
    const error = new Error('The deadline passed');
    error.name = 'TimeoutError';
    return error;
  }
}

/**
 * Runs `fn({ signal, attempt })`; any failure leaves as a classified `FaultlineError` whose `cause`
 * is the original. A thrown FaultlineError passes through as is; the caller's own abort is re-thrown
 * untouched. `fn` must honour `signal`: a running call is never abandoned (that would leak it).
 *
 * Retries are opt-in. The loop is written here rather than with cockatiel's `retry()`: cockatiel
 * 3's retry wait is a bare `setTimeout` that ignores the AbortSignal (an abort mid-wait would only
 * be seen after the full wait, and the timer would outlive the call), it has no overall deadline,
 * and it cannot refuse a wait after computing it (Retry-After over the cap, a wait past the
 * deadline). Each of those would need a workaround around the library, so the loop is ours.
 */
export async function withClassifiedErrors<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T> = {},
): Promise<T> {
  const signal = options.signal;
  if (!options.retry && signal === undefined && options.deadlineMs === undefined) {
    // The lean path: no retry machinery, no AbortController, no listener.
    try {
      const result = await fn(FIRST_ATTEMPT);
      if (options.inspectResult !== undefined) inspect(result, options);
      return result;
    } catch (thrown) {
      throw classifyError(thrown, options);
    }
  }
  return runGuarded(fn, options);
}

async function runGuarded<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
): Promise<T> {
  const signal = options.signal;
  const policy = retryPolicy(options.retry);
  const maxAttempts = policy?.maxAttempts ?? 1;
  if (signal?.aborted) throw signal.reason;

  let deadline: number | undefined;
  let attemptSignal = signal;
  let cleanup: (() => void) | undefined;
  if (typeof options.deadlineMs === 'number' && Number.isFinite(options.deadlineMs)) {
    deadline = Date.now() + Math.max(0, options.deadlineMs);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(deadlineError()), Math.max(0, options.deadlineMs));
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    attemptSignal = controller.signal;
    cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
  }

  try {
    for (let attempt = 1; ; attempt++) {
      let error: FaultlineError;
      try {
        const result = await fn(
          attempt === 1 && attemptSignal === undefined ? FIRST_ATTEMPT : { signal: attemptSignal, attempt },
        );
        inspect(result, options);
        return result;
      } catch (thrown) {
        // Once the caller's signal has fired, whatever the call threw is the caller's abort
        // (SDKs throw their own abort classes): it leaves untouched and is never retried.
        if (signal?.aborted === true) throw thrown;
        error = classifyError(thrown, options);
        if (safeGet(safeGet(error, 'classification'), 'callerAborted') === true) throw thrown;
      }
      if (policy === undefined || attempt >= maxAttempts || !shouldRetry(error, options.idempotent))
        throw error;
      const wait = safeGet(safeGet(error, 'classification'), 'retryAfterSeconds');
      const waitSeconds = typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
      // Over the cap: throw now with the wait in the report, so a scheduler can reschedule.
      if (waitSeconds !== undefined && waitSeconds > policy.maxRetryAfterSeconds) throw error;
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const jitter = Math.min(Math.max(policy.random(), 0), 1);
      const delayMs = Math.max(Math.floor(jitter * ceiling), Math.ceil((waitSeconds ?? 0) * 1000));
      // A wait that would pass the deadline is not started.
      if (deadline !== undefined && Date.now() + delayMs >= deadline) throw error;
      if (policy.onRetry !== undefined) {
        try {
          policy.onRetry({ attempt, delayMs, error, report: error.toErrorReport() });
        } catch {
          // A listener never changes the outcome.
        }
      }
      await sleep(delayMs, signal);
    }
  } finally {
    cleanup?.();
  }
}

export type BoundWithClassifiedErrors = <T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options?: WithClassifiedErrorsOptions<T>,
) => Promise<T>;

/**
 * A `withClassifiedErrors` with defaults preset (an adapter presets its extractor and
 * `inspectResult`). Per-call options win; per-call extractors run before the preset ones.
 */
export function bindWithClassifiedErrors(
  defaults: WithClassifiedErrorsOptions<any>,
): BoundWithClassifiedErrors {
  return <T>(
    fn: (context: AttemptContext) => Promise<T> | T,
    options: WithClassifiedErrorsOptions<T> = {},
  ) => {
    const extractors =
      options.extractors === undefined
        ? defaults.extractors
        : defaults.extractors === undefined
          ? options.extractors
          : [...options.extractors, ...defaults.extractors];
    return withClassifiedErrors(fn, { ...defaults, ...options, extractors });
  };
}
