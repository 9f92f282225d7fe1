import { safeGet } from '@faultline/classify/toolkit';
import { withAttempts } from './classify-error.ts';
import { FaultlineError } from './errors.ts';
import { invalidOption } from './invalid-option.ts';
import type { ErrorReport } from './report.ts';

/** The one retry option every entry point takes (`retry: { … }`, `true` for these defaults, `false` for none). */
export interface RetryOptions {
  /**
   * Attempts in all, the first included. Default 3 (the SDKs' own default: 2 retries); with
   * `maxElapsedMs` and no `maxAttempts`, no limit on attempts: the time budget ends the retries.
   */
  readonly maxAttempts?: number | undefined;
  /**
   * The time budget of the retries, in ms from the first attempt: a wait that would end past it is
   * not started, and the failure leaves at once (its wait and `retryableAt` in the report). Default:
   * no budget (attempts alone bound the retries).
   */
  readonly maxElapsedMs?: number | undefined;
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
  /** The clock `maxElapsedMs` is measured on (ms). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The wait before the next attempt. */
  readonly delayMs: number;
  readonly error: FaultlineError;
  readonly report: ErrorReport;
}

/** `RetryOptions` checked, with the defaults filled in. */
export interface RetryPolicy {
  /** `Infinity` when only `maxElapsedMs` bounds the retries. */
  readonly maxAttempts: number;
  readonly maxElapsedMs: number | undefined;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterSeconds: number;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly random: () => number;
  readonly now: () => number;
}

/** What `retry` is when not given: on, with these values (docs/retries.md). */
const DEFAULT_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 3,
  maxElapsedMs: undefined,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterSeconds: 60,
  onRetry: undefined,
  random: Math.random,
  now: Date.now,
});

/**
 * Reads a `retry` option: `undefined` or `true` is the default policy, `false` is none (undefined).
 * Anything that cannot mean a policy is a TypeError naming `scope` (the entry point) and the option.
 */
export function retryPolicy(retry: unknown, scope: string): RetryPolicy | undefined {
  if (retry === undefined || retry === true) return DEFAULT_POLICY;
  if (retry === false) return undefined;
  if (retry === null || typeof retry !== 'object')
    throw invalidOption(scope, 'retry', 'true, false or an options object', retry);
  const options = retry as RetryOptions;
  const number = (
    name: 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds',
    integer: boolean,
  ): number => {
    const value = options[name];
    if (value === undefined) return DEFAULT_POLICY[name];
    const min = integer ? 1 : 0;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < min ||
      (integer && !Number.isInteger(value))
    )
      throw invalidOption(
        scope,
        `retry.${name}`,
        integer ? 'a whole number ≥ 1' : 'a finite number ≥ 0',
        value,
      );
    return value;
  };
  const fn = <F>(name: 'onRetry' | 'random' | 'now'): F | undefined => {
    const value = options[name];
    if (value !== undefined && typeof value !== 'function')
      throw invalidOption(scope, `retry.${name}`, 'a function', value);
    return value as F | undefined;
  };
  const maxElapsedMs = options.maxElapsedMs;
  if (
    maxElapsedMs !== undefined &&
    (typeof maxElapsedMs !== 'number' || !Number.isFinite(maxElapsedMs) || maxElapsedMs <= 0)
  )
    throw invalidOption(scope, 'retry.maxElapsedMs', 'a finite number > 0', maxElapsedMs);
  return {
    maxAttempts:
      maxElapsedMs !== undefined && options.maxAttempts === undefined
        ? Number.POSITIVE_INFINITY
        : number('maxAttempts', true),
    maxElapsedMs,
    baseDelayMs: number('baseDelayMs', false),
    maxDelayMs: number('maxDelayMs', false),
    maxRetryAfterSeconds: number('maxRetryAfterSeconds', false),
    onRetry: fn<(event: RetryEvent) => void>('onRetry'),
    random: fn<() => number>('random') ?? Math.random,
    now: fn<() => number>('now') ?? Date.now,
  };
}

/**
 * The policy's clock for its time budget: undefined without a budget (nothing reads the clock). A
 * clock that throws or returns a non-number reads NaN: the budget then counts as spent.
 */
export function budgetClock(policy: RetryPolicy | undefined): number | undefined {
  if (policy?.maxElapsedMs === undefined) return undefined;
  try {
    const time = policy.now();
    return typeof time === 'number' ? time : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Only a transient failure is retried; an ambiguous one too when the caller says the call is idempotent. */
export function isRetryable(error: FaultlineError, idempotent: boolean | undefined): boolean {
  // Read through safeGet: a FaultlineError from another copy of faultline passes through as is.
  const classification = safeGet(error, 'classification');
  if (safeGet(classification, 'callerAborted') === true) return false;
  return (
    safeGet(classification, 'retryable') === true ||
    (idempotent === true && safeGet(classification, 'category') === 'ambiguous')
  );
}

/** Waits `milliseconds`; rejects with the signal's reason the moment it fires. Leaves no timer or listener. */
export function abortableSleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
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

/** Where a retry loop is when it calls an attempt or a hook. */
export interface RetryState {
  /** The attempt about to run, or that failed (1-based). */
  readonly attempt: number;
  /** The waits before each retry so far. */
  readonly waitsMs: readonly number[];
}

export interface RetryLoopOptions {
  /** From `retryPolicy(options.retry, scope)`; undefined makes one attempt. */
  readonly policy: RetryPolicy | undefined;
  /** The caller's signal: it ends a wait at once, with its own reason. */
  readonly signal?: AbortSignal | undefined;
  readonly idempotent?: boolean | undefined;
  /** When the first attempt began on the policy's clock (`budgetClock`), if it ran before the loop. */
  readonly startedAt?: number | undefined;
  /** The time (ms since the epoch) the whole call must end by: a wait that would pass it is not started. */
  readonly deadline?: number | undefined;
  /** True once the deadline has fired: the failure is final, its retries exhausted. */
  readonly deadlineFired?: (() => boolean) | undefined;
  /**
   * Asked before each wait, after the loop's own checks passed (retryable, attempts left, Retry-After
   * under the cap, the wait within the deadline): `false` ends the retries, and the failure leaves
   * marked as having outlived them. Where an integration asks what it keeps across calls (a retry
   * budget, a key's cooldown).
   */
  readonly shouldRetry?: ((event: RetryEvent) => boolean | Promise<boolean>) | undefined;
  /** Asked after each wait, before the next attempt is sent (a breaker another call opened): `false` as above. */
  readonly beforeRetry?: ((event: RetryEvent) => boolean | Promise<boolean>) | undefined;
  /** The wait; must reject at once when `signal` fires. Default: a timer. */
  readonly sleep?: ((milliseconds: number, signal: AbortSignal | undefined) => Promise<void>) | undefined;
}

/**
 * The retry loop of every entry point: runs `attempt` until it returns, and yields what it yields
 * (a stream's chunks; a plain call yields nothing). `attempt` throws a `FaultlineError` for a
 * failure; anything else it throws (the caller's abort) leaves the loop untouched, never retried.
 * A failure is retried when it is retryable, attempts (and the time budget) are left and every
 * check agrees; each wait is `max(full-jitter backoff, Retry-After)`. The error the loop gives up with carries the attempts
 * made and the waits (and, when a retryable failure outlived its retries, next step `fallback`).
 *
 * A generator so that a stream's retry (before its output) runs through the same loop as a call.
 * Written rather than taken from a library: cockatiel 3's retry wait ignores the AbortSignal, has
 * no overall deadline, and cannot refuse a wait after computing it (a Retry-After over the cap, a
 * wait past the deadline, a shared budget spent); p-retry retries what is not classified.
 */
export async function* retryLoop<C, T>(
  attempt: (state: RetryState) => AsyncGenerator<C, T, undefined>,
  options: RetryLoopOptions,
): AsyncGenerator<C, T, undefined> {
  const { policy, signal } = options;
  const maxAttempts = policy?.maxAttempts ?? 1;
  const clock = () => budgetClock(policy);
  const startedAt = policy?.maxElapsedMs === undefined ? undefined : (options.startedAt ?? clock());
  const waitsMs: number[] = [];
  // The error the loop gives up with: an error fn threw already classified (such as a stream
  // guard's) gets the attempts added here. A FaultlineError thrown on the first and only attempt
  // passes through as is.
  const finish = (error: FaultlineError, made: number, exhausted: boolean): FaultlineError =>
    exhausted || (made > 1 && safeGet(safeGet(error, 'attempts'), 'made') !== made)
      ? withAttempts(error, { made, waitsMs: [...waitsMs], exhausted })
      : error;
  for (let number = 1; ; number++) {
    let error: FaultlineError;
    try {
      return yield* attempt({ attempt: number, waitsMs });
    } catch (thrown) {
      if (!FaultlineError.isInstance(thrown)) throw thrown;
      error = thrown;
    }
    // No retries asked for: nothing here reads the classification.
    if (policy === undefined || maxAttempts === 1) throw finish(error, number, false);
    if (!isRetryable(error, options.idempotent)) throw finish(error, number, false);
    if (number >= maxAttempts || options.deadlineFired?.() === true) throw finish(error, number, true);
    const wait = safeGet(safeGet(error, 'classification'), 'retryAfterSeconds');
    const waitSeconds = typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
    // Over the cap: throw now with the wait in the report, so a scheduler can reschedule.
    if (waitSeconds !== undefined && waitSeconds > policy.maxRetryAfterSeconds)
      throw finish(error, number, false);
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (number - 1));
    const jitter = Math.min(Math.max(policy.random(), 0), 1);
    const delayMs = Math.max(Math.floor(jitter * ceiling), Math.ceil((waitSeconds ?? 0) * 1000));
    // A wait that would pass the deadline is not started: the retries end here.
    if (options.deadline !== undefined && Date.now() + delayMs >= options.deadline)
      throw finish(error, number, true);
    // Nor one that would end past the time budget: never sleep only to give up after the wait.
    if (
      startedAt !== undefined &&
      policy.maxElapsedMs !== undefined &&
      !((clock() ?? Number.NaN) - startedAt + delayMs <= policy.maxElapsedMs)
    )
      throw finish(error, number, true);
    let event: RetryEvent | undefined;
    const eventOf = (): RetryEvent => {
      event ??= { attempt: number, delayMs, error, report: error.toErrorReport() };
      return event;
    };
    if (options.shouldRetry !== undefined && !(await options.shouldRetry(eventOf())))
      throw finish(error, number, true);
    if (policy.onRetry !== undefined) {
      try {
        policy.onRetry(eventOf());
      } catch {
        // A listener never changes the outcome.
      }
    }
    await (options.sleep ?? abortableSleep)(delayMs, signal);
    if (options.beforeRetry !== undefined && !(await options.beforeRetry(eventOf())))
      throw finish(error, number, true);
    waitsMs.push(delayMs);
  }
}
