import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ClassifyErrorOptions,
  classifyAttempt,
  errorFromMetadata,
  isUntouchedCallerAbort,
} from './classify-error.ts';
import type { FaultlineError } from './errors.ts';
import { invalidOption, isSignalOption } from './invalid-option.ts';
import { checkWithClassifiedErrorsKeys } from './option-keys.ts';
import { type AttemptRecord, readAttemptRecord } from './report.ts';
import {
  budgetClock,
  isRetryable,
  type RetryOptions,
  type RetryPolicy,
  type RetryState,
  retryLoop,
  retryPolicy,
} from './retry.ts';

export type { RetryEvent, RetryOptions } from './retry.ts';

/** What `fn` gets on each attempt. `attempt` starts at 1. */
export interface AttemptContext {
  /** The signal to pass to the SDK: the caller's own, or one that also fires at `deadlineMs`. */
  readonly signal: AbortSignal | undefined;
  readonly attempt: number;
}

export interface WithClassifiedErrorsOptions<T = unknown>
  extends Omit<ClassifyErrorOptions, 'streaming' | 'delivered'> {
  /**
   * Retries of transient failures (and ambiguous ones when `idempotent`): on by default (3 attempts
   * in all), `false` for none; the same option and loop at every entry point (docs/retries.md).
   */
  readonly retry?: false | true | RetryOptions | undefined;
  /**
   * The whole call, retries and waits included, must end within this many milliseconds (a positive,
   * finite number). When it passes, the call's signal fires and the failure is a `timeout`, whatever
   * the SDK throws for the abort. A call that ignores the signal is not waited for: a second after
   * the signal fired (the deadline's or the caller's), it ends without it.
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

function invalid(name: string, expected: string, value: unknown): TypeError {
  return invalidOption('withClassifiedErrors', name, expected, value);
}

/**
 * Checks the options every call reads (cheap: one typeof per option given) and returns the retry
 * policy. Throws a TypeError.
 */
function validateCommon<T>(options: WithClassifiedErrorsOptions<T>): RetryPolicy | undefined {
  if (options === null || typeof options !== 'object') throw invalid('options', 'an object', options);
  checkWithClassifiedErrorsKeys(options);
  if (options.idempotent !== undefined && typeof options.idempotent !== 'boolean')
    throw invalid('idempotent', 'a boolean', options.idempotent);
  if (options.extractors !== undefined && !Array.isArray(options.extractors))
    throw invalid('extractors', 'an array of extractors', options.extractors);
  if (options.inspectResult !== undefined && typeof options.inspectResult !== 'function')
    throw invalid('inspectResult', 'a function', options.inspectResult);
  if (options.detectBlockedAnswer !== undefined && typeof options.detectBlockedAnswer !== 'boolean')
    throw invalid('detectBlockedAnswer', 'a boolean', options.detectBlockedAnswer);
  return retryPolicy(options.retry, 'withClassifiedErrors');
}

/** Checks what only the guarded path reads (deadline, signal). */
function validateGuarded<T>(options: WithClassifiedErrorsOptions<T>): void {
  const deadlineMs = options.deadlineMs;
  if (
    deadlineMs !== undefined &&
    (typeof deadlineMs !== 'number' || !Number.isFinite(deadlineMs) || deadlineMs <= 0)
  )
    throw invalid('deadlineMs', 'a positive, finite number of milliseconds', deadlineMs);
  if (!isSignalOption(options.signal)) throw invalid('signal', 'an AbortSignal', options.signal);
}

/** How long a call may take to settle once its signal has fired before it is ended without it. */
const ABORT_GRACE_MS = 1_000;

/**
 * The call's result, or, when `signal` fires and the call has not settled `ABORT_GRACE_MS` later,
 * the signal's reason (the deadline's timeout, or the caller's own reason). A call that honours its
 * signal throws its own abort error within the grace, and that is what is classified or re-thrown;
 * one that ignores it (a client that drops the signal, or fetches a copy of the request that loses
 * it) would otherwise keep the caller waiting past every deadline.
 */
export function settledBy<T>(value: Promise<T> | T, signal: AbortSignal | undefined): Promise<T> | T {
  if (signal === undefined) return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<never>((_, reject) => {
    onAbort = () => {
      timer = setTimeout(() => reject(signal.reason), ABORT_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([value, ended]).finally(() => {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
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
 * Transient failures are retried by default (`retry`, docs/retries.md) through `retryLoop`, the one
 * loop every entry point shares.
 */
export function withClassifiedErrors<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T> & { readonly extractors: readonly Extractor[] },
): Promise<T> {
  // The loop's own promise, not one more around it: the caller's `await` is then the next frame of
  // the async stack a failure's call site is read from.
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

function runWithClassifiedErrors<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
): Promise<T> {
  let policy: RetryPolicy | undefined;
  try {
    if (typeof fn !== 'function') throw invalid('fn', 'a function', fn);
    policy = validateCommon(options);
  } catch (error) {
    return Promise.reject(error);
  }
  return runChecked(fn, options, policy);
}

/** The call with `options` already checked (every key known, every value valid) and `policy` read from them. */
async function runChecked<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
  policy: RetryPolicy | undefined,
): Promise<T> {
  if (options.signal !== undefined || options.deadlineMs !== undefined) {
    validateGuarded(options);
    return runGuarded(fn, options, policy, undefined);
  }
  // The lean path: no AbortController, no listener, no loop until a failure can be retried.
  const startedAt = budgetClock(policy);
  try {
    const result = await fn(FIRST_ATTEMPT);
    if (options.inspectResult !== undefined) inspect(result, options);
    return result;
  } catch (thrown) {
    const error = classifyAttempt(thrown, options, ONE_ATTEMPT);
    // The caller's abort (a signal given to the SDK only) leaves untouched.
    if (isUntouchedCallerAbort(error, thrown)) throw thrown;
    // Only a failure a retry can help enters the loop (with retries off, nothing reads the classification).
    if (policy === undefined || policy.maxAttempts === 1 || !isRetryable(error, options.idempotent))
      throw error;
    return runGuarded(fn, options, policy, error, startedAt);
  }
}

// One record shared by every error of the lean path (built by readAttemptRecord, so no error copies it).
const ONE_ATTEMPT: { readonly attempts: AttemptRecord } = Object.freeze({
  attempts: readAttemptRecord({ made: 1, waitsMs: [], exhausted: false }) as AttemptRecord,
});

/** The call through the retry loop, with its deadline and signal; `first` is a first attempt's failure already met. */
async function runGuarded<T>(
  fn: (context: AttemptContext) => Promise<T> | T,
  options: WithClassifiedErrorsOptions<T>,
  policy: RetryPolicy | undefined,
  first: FaultlineError | undefined,
  startedAt?: number,
): Promise<T> {
  const signal = options.signal;
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

  // biome-ignore lint/correctness/useYield: the loop runs streams and calls alike; a call yields nothing.
  const attempt = async function* ({ attempt, waitsMs }: RetryState): AsyncGenerator<never, T, undefined> {
    if (attempt === 1 && first !== undefined) throw first;
    try {
      const result = await settledBy(
        fn(attempt === 1 && attemptSignal === undefined ? FIRST_ATTEMPT : { signal: attemptSignal, attempt }),
        attemptSignal,
      );
      inspect(result, options);
      return result;
    } catch (thrown) {
      // Once the caller's signal has fired, whatever the call threw is the caller's abort
      // (SDKs throw their own abort classes): it leaves untouched and is never retried.
      if (signal?.aborted === true && !deadlineFired) throw thrown;
      const error = classifyAttempt(thrown, options, {
        attempts: { made: attempt, waitsMs: [...waitsMs], exhausted: false },
        deadlineFiredMs: deadlineFired ? deadlineMs : undefined,
      });
      // The caller's abort through a signal given to the SDK only: untouched too.
      if (isUntouchedCallerAbort(error, thrown)) throw thrown;
      throw error;
    }
  };
  try {
    // A call yields nothing: the loop's first step is its end.
    const step = await retryLoop(attempt, {
      policy,
      signal,
      idempotent: options.idempotent,
      startedAt,
      deadline,
      deadlineFired: () => deadlineFired,
    }).next();
    return step.value as T;
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
 * the preset's reading wins.
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
  const preset: WithClassifiedErrorsOptions<any> = { ...defaults };
  // The preset options are checked once, at the first call (so that a bad preset is a TypeError at a
  // call, as a bad per-call option is), and a call then checks only the options given with it: the
  // merged options are then valid too, since each of their values is the preset's or the call's.
  let presetPolicy: RetryPolicy | undefined;
  let presetChecked = false;
  return <T>(fn: (context: AttemptContext) => Promise<T> | T, options?: WithClassifiedErrorsOptions<T>) => {
    let policy: RetryPolicy | undefined;
    let merged: WithClassifiedErrorsOptions<T> = preset;
    try {
      if (typeof fn !== 'function') throw invalid('fn', 'a function', fn);
      if (!presetChecked) {
        presetPolicy = validateCommon(preset);
        presetChecked = true;
      }
      policy = presetPolicy;
      if (options !== undefined) {
        const callPolicy = validateCommon(options);
        if (Object.hasOwn(options, 'retry')) policy = callPolicy;
        merged = mergeOptions(preset, options);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return runChecked(fn, merged, policy);
  };
}

/** The preset options with a call's own (checked) over them. */
function mergeOptions<T>(
  preset: WithClassifiedErrorsOptions<any>,
  options: WithClassifiedErrorsOptions<T>,
): WithClassifiedErrorsOptions<T> {
  const extractors =
    options.extractors === undefined
      ? preset.extractors
      : preset.extractors === undefined
        ? options.extractors
        : [...options.extractors, ...preset.extractors];
  const inspectResult =
    typeof options.inspectResult === 'function' && typeof preset.inspectResult === 'function'
      ? chainInspect(preset.inspectResult, options.inspectResult as InspectResult)
      : 'inspectResult' in options
        ? options.inspectResult
        : preset.inspectResult;
  return { ...preset, ...options, extractors, inspectResult };
}
