import {
  type ClassifyErrorOptions,
  classifyError,
  type ErrorReport,
  FaultlineError,
  toDict,
  toErrorReport,
} from '@faultline/render';
import { CLASSIFY_ERROR_OPTION_KEYS, checkOptionKeys } from '@faultline/render/toolkit';
import { ApplicationFailure } from '@temporalio/common';

/** The ApplicationFailure `type` faultline gives the failures it raises. */
export const FAULTLINE_FAILURE_TYPE = 'FaultlineError';

/**
 * Converts a classified failure into the `ApplicationFailure` Temporal acts on:
 * `nonRetryable` comes from the classification (only retryable failures are retried by the
 * activity's retry policy), `nextRetryDelay` from the provider's Retry-After, and `details[0]`
 * carries the report (a plain JSON object that survives Temporal's payload converter).
 */
export function toApplicationFailure(error: FaultlineError | ErrorReport): ApplicationFailure {
  // Total: a report, or any error (even a marked one from another copy whose fields cannot be read).
  const report = toErrorReport(error);
  return ApplicationFailure.create({
    message: report.message,
    type: FAULTLINE_FAILURE_TYPE,
    nonRetryable: !report.retryable,
    details: [toDict(report)],
    ...(report.retryable && report.retryAfterSeconds !== undefined
      ? { nextRetryDelay: `${Math.ceil(report.retryAfterSeconds * 1000)}ms` as const }
      : {}),
  });
}

/** A report a failure raised by `toApplicationFailure` carries, read back without validation. */
export function reportDetails(failure: ApplicationFailure): ErrorReport | undefined {
  return failure.type === FAULTLINE_FAILURE_TYPE
    ? (failure.details?.[0] as ErrorReport | undefined)
    : undefined;
}

/**
 * Wraps an activity function: any failure it throws is classified (by the extractors you pass,
 * plus the built-in ones) and re-thrown as an `ApplicationFailure` that Temporal retries only
 * when the classification says a retry can help, after the provider's Retry-After.
 *
 * Temporal's own failures (`CancelledFailure` when the activity is cancelled, an
 * `ApplicationFailure` you raised yourself) pass through untouched, as does the caller's abort.
 */
export function withFaultlineActivity<Arguments extends unknown[], Result>(
  activity: (...args: Arguments) => Promise<Result>,
  options: ClassifyErrorOptions = {},
): (...args: Arguments) => Promise<Result> {
  checkOptionKeys('withFaultlineActivity', options, CLASSIFY_ERROR_OPTION_KEYS);
  return async (...args: Arguments): Promise<Result> => {
    try {
      return await activity(...args);
    } catch (thrown) {
      if (isTemporalFailure(thrown)) throw thrown;
      const error = FaultlineError.isInstance(thrown) ? thrown : classifyError(thrown, options);
      const report = toErrorReport(error);
      if (report.callerAborted) throw thrown;
      throw toApplicationFailure(report);
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
