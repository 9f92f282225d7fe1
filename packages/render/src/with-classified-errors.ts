import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ClassifyErrorOptions,
  classifyAttempt,
  errorFromMetadata,
  isUntouchedCallerAbort,
  withAttempts,
} from './classify-error.ts';
import type { FaultlineError } from './errors.ts';
import { invalidOption, isSignalOption } from './invalid-option.ts';
import { checkWithClassifiedErrorsKeys } from './option-keys.ts';
import { type AttemptRecord, type ErrorReport, readAttemptRecord } from './report.ts';

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
  /**
   * The whole call, retries and waits included, must end within this many milliseconds (a positive,
   * finite number). When it passes, the call's signal fires and the failure is a `timeout`, whatever
   * the SDK throws for the abort.
   */
  readonly deadlineMs?: number | undefined;
  /**
   * Reads a success result; metadata returned (a content-filtered 200, an error reported in a 200)
   * is thrown as a classified error. In an adapter's bound `withClassifiedErrors` one given per call
   * runs after the adapter's own (which wins when it returns metadata); `inspectResult: undefined`
   * given per call turns result inspection off altogether, error-in-200 detection included.
   */
  readonly inspectResult?: ((result: T) => ProviderErrorMetadata | undefined | null) | undefined;
  /**
   * Whether a withheld answer (`inspectResult` metadata with origin `blocked_response`: a content
   * filter, a refusal, a safety block) is thrown as `content_policy`. Default true; `false` returns
   * that result as an ordinary one. Other metadata (an error reported in a 200) is thrown either
   * way. The stream guards take the same option under the same name.
   */
  readonly detectBlockedAnswer?: boolean | undefined;
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
  if (options.detectBlockedAnswer === false && safeGet(metadata, 'origin') === 'blocked_response') return;
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

function invalid(name: string, expected: string, value: unknown): TypeError {
  return invalidOption('withClassifiedErrors', name, expected, value);
}

/** `value` when it is a finite number ≥ `min` (and an integer when asked), `fallback` when undefined. */
function numberOption(
  name: string,
  value: unknown,
  fallback: number,
  rule: { readonly min: number; readonly integer?: boolean; readonly expected: string },
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < rule.min ||
    (rule.integer === true && !Number.isInteger(value))
  )
    throw invalid(name, rule.expected, value);
  return value;
}

function functionOption<F>(name: string, value: unknown): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw invalid(name, 'a function', value);
  return value as F;
}

function retryPolicy(retry: WithClassifiedErrorsOptions['retry']): RetryPolicy | undefined {
  if (retry === undefined || retry === false || retry === null) return undefined;
  if (retry !== true && typeof retry !== 'object')
    throw invalid('retry', 'true, false or an options object', retry);
  const options: RetryOptions = retry === true ? {} : retry;
  return {
    maxAttempts: numberOption('retry.maxAttempts', options.maxAttempts, 3, {
      min: 1,
      integer: true,
      expected: 'a whole number ≥ 1',
    }),
    baseDelayMs: numberOption('retry.baseDelayMs', options.baseDelayMs, 500, {
      min: 0,
      expected: 'a finite number ≥ 0',
    }),
    maxDelayMs: numberOption('retry.maxDelayMs', options.maxDelayMs, 30_000, {
      min: 0,
      expected: 'a finite number ≥ 0',
    }),
    maxRetryAfterSeconds: numberOption('retry.maxRetryAfterSeconds', options.maxRetryAfterSeconds, 60, {
      min: 0,
      expected: 'a finite number ≥ 0',
    }),
    onRetry: functionOption<(event: RetryEvent) => void>('retry.onRetry', options.onRetry),
    random: functionOption<() => number>('retry.random', options.random) ?? Math.random,
  };
}

/** Checks the options every call reads (cheap: one typeof per option given). Throws a TypeError. */
function validateCommon<T>(options: WithClassifiedErrorsOptions<T>): void {
  if (options === null || typeof options !== 'object') throw invalid('options', 'an object', options);
  checkWithClassifiedErrorsKeys(options);
  if (options.idempotent !== undefined && typeof options.idempotent !== 'boolean')
    throw invalid('idempotent', 'a boolean', options.idempotent);
  if (options.extractors !== undefined && !Array.isArray(options.extractors))
    throw invalid('extractors', 'an array of extractors', options.extractors);
  functionOption('inspectResult', options.inspectResult);
  if (options.detectBlockedAnswer !== undefined && typeof options.detectBlockedAnswer !== 'boolean')
    throw invalid('detectBlockedAnswer', 'a boolean', options.detectBlockedAnswer);
}

/** Checks what only the guarded path reads (deadline, signal, retry); returns the retry policy. */
function validateGuarded<T>(options: WithClassifiedErrorsOptions<T>): RetryPolicy | undefined {
  const deadlineMs = options.deadlineMs;
  if (
    deadlineMs !== undefined &&
    (typeof deadlineMs !== 'number' || !Number.isFinite(deadlineMs) || deadlineMs <= 0)
  )
    throw invalid('deadlineMs', 'a positive, finite number of milliseconds', deadlineMs);
  if (!isSignalOption(options.signal)) throw invalid('signal', 'an AbortSignal', options.signal);
  return retryPolicy(options.retry);
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
  options: WithClassifiedErrorsOptions<T> & { readonly extractors: readonly Extractor[] },
): Promise<T> {
  return runWithClassifiedErrors(fn, options ?? {});
}

/**
 * The options of render's generic `withClassifiedErrors`: `extractors` is required, because without
 * an adapter's extractor an SDK's 429 is `unknown`. Import `withClassifiedErrors` from the adapter
 * (`@faultline/extract-openai` …), which presets it; pass `extractors: []` to mean the built-in
 * transport, zod and local-bug readers alone.
 */
export type GenericWithClassifiedErrorsOptions<T = unknown> = WithClassifiedErrorsOptions<T> & {
  readonly extractors: readonly Extractor[];
};

async function runWithClassifiedErrors<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
): Promise<T> {
  if (typeof fn !== 'function') throw invalid('fn', 'a function', fn);
  validateCommon(options);
  const retry = options.retry;
  if (
    (retry === undefined || retry === false || retry === null) &&
    options.signal === undefined &&
    options.deadlineMs === undefined
  ) {
    // The lean path: no retry machinery, no AbortController, no listener.
    try {
      const result = await fn(FIRST_ATTEMPT);
      if (options.inspectResult !== undefined) inspect(result, options);
      return result;
    } catch (thrown) {
      const error = classifyAttempt(thrown, options, ONE_ATTEMPT);
      // The caller's abort (a signal given to the SDK only) leaves untouched.
      if (isUntouchedCallerAbort(error, thrown)) throw thrown;
      throw error;
    }
  }
  const policy = validateGuarded(options);
  return runGuarded(fn, options, policy);
}

// One record shared by every error of the lean path (built by readAttemptRecord, so no error copies it).
const ONE_ATTEMPT: { readonly attempts: AttemptRecord } = Object.freeze({
  attempts: readAttemptRecord({ made: 1, waitsMs: [], exhausted: false }) as AttemptRecord,
});

async function runGuarded<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
  policy: RetryPolicy | undefined,
): Promise<T> {
  const signal = options.signal;
  const maxAttempts = policy?.maxAttempts ?? 1;
  if (signal?.aborted) throw signal.reason;

  let deadline: number | undefined;
  // Render owns the deadline's timer, so it knows when it fired: that failure is a timeout.
  let deadlineFired = false;
  let attemptSignal = signal;
  let cleanup: (() => void) | undefined;
  const deadlineMs = options.deadlineMs;
  if (deadlineMs !== undefined) {
    deadline = Date.now() + deadlineMs;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      deadlineFired = true;
      controller.abort(deadlineError());
    }, deadlineMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    attemptSignal = controller.signal;
    cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
  }

  const waitsMs: number[] = [];
  const record = (attempt: number, exhausted: boolean): AttemptRecord => ({
    made: attempt,
    waitsMs: [...waitsMs],
    exhausted,
  });
  // The error the loop throws: with the attempts made (an error fn threw already classified, such
  // as a stream guard's, gets them added here) and, when a retryable failure is given up on, marked
  // exhausted (next step `fallback`).
  // A FaultlineError thrown on the first and only attempt passes through as is.
  const finish = (error: FaultlineError, attempt: number, exhausted: boolean): FaultlineError =>
    exhausted || (attempt > 1 && safeGet(safeGet(error, 'attempts'), 'made') !== attempt)
      ? withAttempts(error, record(attempt, exhausted))
      : error;
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
        if (signal?.aborted === true && !deadlineFired) throw thrown;
        error = classifyAttempt(thrown, options, {
          attempts: record(attempt, false),
          deadlineFiredMs: deadlineFired ? deadlineMs : undefined,
        });
        // The caller's abort through a signal given to the SDK only: untouched too.
        if (isUntouchedCallerAbort(error, thrown)) throw thrown;
      }
      // No retries asked for (or none allowed): nothing here reads the classification, which stays
      // deferred until the caller reads it.
      if (policy === undefined || maxAttempts === 1) throw finish(error, attempt, false);
      if (!shouldRetry(error, options.idempotent)) throw finish(error, attempt, false);
      // Exhausted only when retries were allowed: `maxAttempts: 1` asked for none.
      if (attempt >= maxAttempts || deadlineFired) throw finish(error, attempt, maxAttempts > 1);
      const wait = safeGet(safeGet(error, 'classification'), 'retryAfterSeconds');
      const waitSeconds = typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
      // Over the cap: throw now with the wait in the report, so a scheduler can reschedule.
      if (waitSeconds !== undefined && waitSeconds > policy.maxRetryAfterSeconds)
        throw finish(error, attempt, false);
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const jitter = Math.min(Math.max(policy.random(), 0), 1);
      const delayMs = Math.max(Math.floor(jitter * ceiling), Math.ceil((waitSeconds ?? 0) * 1000));
      // A wait that would pass the deadline is not started: the retries end here.
      if (deadline !== undefined && Date.now() + delayMs >= deadline) throw finish(error, attempt, true);
      if (policy.onRetry !== undefined) {
        try {
          policy.onRetry({ attempt, delayMs, error, report: error.toErrorReport() });
        } catch {
          // A listener never changes the outcome.
        }
      }
      waitsMs.push(delayMs);
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

type InspectResult = (result: unknown) => ProviderErrorMetadata | undefined | null;

/**
 * The preset `inspectResult` first, the caller's when the preset one returns nothing (or throws):
 * the same order as a provider guard's `inspectChunk` and the caller's.
 */
function chainInspect(preset: InspectResult, caller: InspectResult): InspectResult {
  return (result) => {
    let metadata: ProviderErrorMetadata | undefined | null;
    try {
      metadata = preset(result);
    } catch {
      metadata = undefined;
    }
    return metadata !== null && metadata !== undefined && typeof metadata === 'object'
      ? metadata
      : caller(result);
  };
}

/**
 * A `withClassifiedErrors` with defaults preset (an adapter presets its extractor and
 * `inspectResult`). Per-call options win, except: per-call extractors run before the preset ones,
 * and a per-call `inspectResult` function runs after the preset one (an explicit
 * `inspectResult: undefined` turns inspection off; `detectBlockedAnswer: false` is the way to let
 * a withheld answer through while still reading errors reported in a 200).
 */
export function bindWithClassifiedErrors(
  defaults: WithClassifiedErrorsOptions<any>,
): BoundWithClassifiedErrors {
  return <T>(
    fn: (context: AttemptContext) => Promise<T> | T,
    options: WithClassifiedErrorsOptions<T> = {},
  ) => {
    // Not an object: let the checks throw their invalid-option TypeError.
    if (options === null || typeof options !== 'object') return runWithClassifiedErrors(fn, options);
    const extractors =
      options.extractors === undefined
        ? defaults.extractors
        : defaults.extractors === undefined
          ? options.extractors
          : [...options.extractors, ...defaults.extractors];
    const inspectResult =
      typeof options.inspectResult === 'function' && typeof defaults.inspectResult === 'function'
        ? chainInspect(defaults.inspectResult, options.inspectResult as InspectResult)
        : 'inspectResult' in options
          ? options.inspectResult
          : defaults.inspectResult;
    return runWithClassifiedErrors(fn, { ...defaults, ...options, extractors, inspectResult });
  };
}
