import {
  type ClassifyErrorOptions,
  classifyError,
  type ErrorReport,
  FaultlineError,
  toDict,
  toErrorReport,
} from '@faultline/render';
import {
  CLASSIFY_ERROR_OPTION_KEYS,
  checkOptionKeys,
  maxResetWaitMs,
  RESET_WAIT_OPTION_KEYS,
  type ResetWaitOptions,
  resetWaitMs,
} from '@faultline/render/toolkit';
import { ApplicationFailure } from '@temporalio/common';

/** The ApplicationFailure `type` faultline gives the failures it raises. */
export const FAULTLINE_FAILURE_TYPE = 'FaultlineError';

/**
 * Converts a classified failure into the `ApplicationFailure` Temporal acts on:
 * `nonRetryable` comes from the classification (only retryable failures are retried by the
 * activity's retry policy), `nextRetryDelay` from the provider's Retry-After, and `details[0]`
 * carries the report (a plain JSON object that survives Temporal's payload converter). With
 * `maxWaitMs`, a spent quota whose reset is within it is retried too, once the reset is due.
 */
export function toApplicationFailure(
  error: FaultlineError | ErrorReport,
  options: ResetWaitOptions = {},
): ApplicationFailure {
  // Total: a report, or any error (even a marked one from another copy whose fields cannot be read).
  const report = toErrorReport(error);
  const resetWait = resetWaitMs(report, maxResetWaitMs(options, 'toApplicationFailure'));
  const delayMs =
    resetWait ??
    (report.retryable && report.retryAfterSeconds !== undefined
      ? Math.ceil(report.retryAfterSeconds * 1000)
      : undefined);
  return ApplicationFailure.create({
    message: report.message,
    type: FAULTLINE_FAILURE_TYPE,
    nonRetryable: !report.retryable && resetWait === undefined,
    details: [toDict(report)],
    ...(delayMs === undefined ? {} : { nextRetryDelay: `${delayMs}ms` as const }),
  });
}

export interface FaultlineActivityOptions extends ClassifyErrorOptions, ResetWaitOptions {}

/** The keys of `FaultlineActivityOptions`: a key added to the type and not here fails the type check. */
const ACTIVITY_OPTION_KEYS = {
  ...CLASSIFY_ERROR_OPTION_KEYS,
  ...RESET_WAIT_OPTION_KEYS,
} as const satisfies Record<keyof FaultlineActivityOptions, true>;

/** A report a failure raised by `toApplicationFailure` carries, read back without validation. */
export function reportDetails(failure: ApplicationFailure): ErrorReport | undefined {
  return failure.type === FAULTLINE_FAILURE_TYPE
    ? (failure.details?.[0] as ErrorReport | undefined)
    : undefined;
}

/**
 * Wraps an activity function: any failure it throws is classified (by the extractors you pass,
 * plus the built-in ones) and re-thrown as an `ApplicationFailure` that Temporal retries only
 * when the classification says a retry can help, after the provider's Retry-After (and, with
 * `maxWaitMs`, a spent quota once it resets, within that cap; the retry policy's
 * `maximumAttempts` and the activity's schedule-to-close timeout still bound it).
 *
 * Temporal's own failures (`CancelledFailure` when the activity is cancelled, an
 * `ApplicationFailure` you raised yourself) pass through untouched, as does the caller's abort.
 */
export function withFaultlineActivity<Arguments extends unknown[], Result>(
  activity: (...args: Arguments) => Promise<Result>,
  options: FaultlineActivityOptions = {},
): (...args: Arguments) => Promise<Result> {
  checkOptionKeys('withFaultlineActivity', options, ACTIVITY_OPTION_KEYS);
  const { maxWaitMs: _maxWaitMs, ...classifyOptions } = options;
  const resetWait = { maxWaitMs: maxResetWaitMs(options, 'withFaultlineActivity') };
  return async (...args: Arguments): Promise<Result> => {
    try {
      return await activity(...args);
    } catch (thrown) {
      if (isTemporalFailure(thrown)) throw thrown;
      const error = FaultlineError.isInstance(thrown) ? thrown : classifyError(thrown, classifyOptions);
      const report = toErrorReport(error);
      if (report.callerAborted) throw thrown;
      throw toApplicationFailure(report, resetWait);
    }
  };
}

/** Temporal's own failures carry a `failure` slot and a TemporalFailure name; never re-wrap them. */
function isTemporalFailure(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const name = (value as { name?: unknown }).name;
    return (
      name === 'ApplicationFailure' ||
      name === 'CancelledFailure' ||
      name === 'TerminatedFailure' ||
      name === 'TimeoutFailure' ||
      name === 'ActivityFailure' ||
      name === 'ChildWorkflowFailure'
    );
  } catch {
    return false;
  }
}
