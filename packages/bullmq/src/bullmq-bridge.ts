import { safeGet } from '@faultline/classify/toolkit';
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
  safeFromDict,
  unrecoverableReport,
} from '@faultline/render/toolkit';

/** The backoff `type` jobs use so that the worker's faultline strategy computes their delays. */
export const FAULTLINE_BACKOFF_TYPE = 'faultline';

/** Separates the human message from the report in `job.failedReason` (BullMQ keeps a string only). */
const REPORT_MARKER = '\nfaultline-report: ';

/** The `errorType` of a report synthesised when a failed job carries no valid report. */
export const UNRECOVERABLE_JOB_FAILURE = 'UnrecoverableJobFailure';

/**
 * The error a wrapped processor throws. BullMQ reads only `name` (`UnrecoverableError` ends the
 * job at once, whatever attempts remain), `message` (stored as `job.failedReason`) and `stack`;
 * the backoff strategy reads `retryAfterMs` and `waitsForReset`. The report rides in the message
 * after a marker.
 */
export class FaultlineJobError extends Error {
  readonly report: ErrorReport;
  readonly retryAfterMs: number | undefined;
  /** A final failure the job waits out instead (a quota's reset within `maxWaitMs`): retried after `retryAfterMs`. */
  readonly waitsForReset: boolean;

  constructor(error: FaultlineError | ErrorReport, options: ResetWaitOptions = {}) {
    // Total: any error (even a marked one from another copy whose fields cannot be read) or report.
    const report = toErrorReport(error);
    super(`${report.message}${REPORT_MARKER}${JSON.stringify(toDict(report))}`, { cause: error });
    const resetWait = resetWaitMs(report, maxResetWaitMs(options, 'FaultlineJobError'));
    this.waitsForReset = resetWait !== undefined;
    // BullMQ matches `err.name == 'UnrecoverableError'` (job.js), so no import of bullmq is needed.
    this.name = report.retryable || this.waitsForReset ? 'FaultlineJobError' : 'UnrecoverableError';
    this.report = report;
    this.retryAfterMs =
      report.retryAfterSeconds === undefined ? undefined : Math.ceil(report.retryAfterSeconds * 1000);
  }
}

export interface FaultlineProcessorOptions extends ClassifyErrorOptions, ResetWaitOptions {}

/** The keys of `FaultlineProcessorOptions`: a key added to the type and not here fails the type check. */
const PROCESSOR_OPTION_KEYS = {
  ...CLASSIFY_ERROR_OPTION_KEYS,
  ...RESET_WAIT_OPTION_KEYS,
} as const satisfies Record<keyof FaultlineProcessorOptions, true>;

/**
 * Wraps a BullMQ processor: a failure is classified once; permanent failures end the job at
 * once (as BullMQ's unrecoverable error), transient ones are left to the job's attempts and the
 * faultline backoff strategy, which waits at least the provider's Retry-After. With `maxWaitMs`, a
 * spent quota whose reset is within it is waited out the same way (one of the job's attempts)
 * instead of failing. The report rides with the failed job; `recoverErrorReport(job)` rebuilds it.
 */
export function withFaultlineProcessor<Job, Result>(
  processor: (job: Job, token?: string, signal?: AbortSignal) => Promise<Result>,
  options: FaultlineProcessorOptions = {},
): (job: Job, token?: string, signal?: AbortSignal) => Promise<Result> {
  checkOptionKeys('withFaultlineProcessor', options, PROCESSOR_OPTION_KEYS);
  const { maxWaitMs: _maxWaitMs, ...classifyOptions } = options;
  const resetWait = { maxWaitMs: maxResetWaitMs(options, 'withFaultlineProcessor') };
  return async (job: Job, token?: string, signal?: AbortSignal): Promise<Result> => {
    try {
      return await processor(job, token, signal);
    } catch (thrown) {
      const error = FaultlineError.isInstance(thrown)
        ? thrown
        : classifyError(thrown, { ...classifyOptions, signal: signal ?? options.signal });
      throw new FaultlineJobError(error, resetWait);
    }
  };
}

export interface FaultlineBackoffOptions {
  /** The first exponential delay, in ms, when the provider gave no wait. Default: the job's `backoff.delay`, else 1000. */
  readonly baseDelayMs?: number;
  /** The longest exponential delay, in ms (a provider's Retry-After may exceed it). Default 60 000. */
  readonly maxDelayMs?: number;
}

/** The keys of `FaultlineBackoffOptions`: a key added to the type and not here fails the type check. */
const BACKOFF_OPTION_KEYS = {
  baseDelayMs: true,
  maxDelayMs: true,
} as const satisfies Record<keyof FaultlineBackoffOptions, true>;

/**
 * A BullMQ `settings.backoffStrategy` (worker option): for a retryable faultline failure it waits
 * `max(exponential backoff with full jitter, Retry-After)`; for a permanent one it returns -1 (no
 * retry). Other errors get the plain exponential delay. Pair it with job options from
 * `faultlineJobOptions()`.
 */
export function faultlineBackoffStrategy(
  options: FaultlineBackoffOptions = {},
): (attemptsMade: number, type?: string, error?: Error, job?: unknown) => number {
  checkOptionKeys('faultlineBackoffStrategy', options, BACKOFF_OPTION_KEYS);
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return (attemptsMade, _type, error, job) => {
    // Total: BullMQ calls this inside its worker, where a throw would break the job's bookkeeping.
    let backoff = 1000;
    try {
      const attempts = typeof attemptsMade === 'number' && Number.isFinite(attemptsMade) ? attemptsMade : 1;
      const jobDelay = Number(safeGet(safeGet(safeGet(job, 'opts'), 'backoff'), 'delay'));
      const baseDelayMs =
        options.baseDelayMs ?? (Number.isFinite(jobDelay) && jobDelay > 0 ? jobDelay : 1000);
      const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
      backoff = Math.floor(Math.random() * ceiling);
      if (safeGet(error, 'name') === 'FaultlineJobError' || safeGet(error, 'name') === 'UnrecoverableError') {
        const report = safeGet(error, 'report') as ErrorReport | undefined;
        if (report !== undefined && report.retryable === false && safeGet(error, 'waitsForReset') !== true)
          return -1;
        const retryAfterMs = safeGet(error, 'retryAfterMs');
        return typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs)
          ? Math.max(backoff, retryAfterMs)
          : backoff;
      }
    } catch {
      // A hostile error or job: fall back to the plain exponential delay.
    }
    return backoff;
  };
}

/** Job options that route retries through `faultlineBackoffStrategy`. */
export function faultlineJobOptions(
  attempts = 5,
  baseDelayMs = 1000,
): {
  attempts: number;
  backoff: { type: string; delay: number };
} {
  return { attempts, backoff: { type: FAULTLINE_BACKOFF_TYPE, delay: baseDelayMs } };
}

/**
 * Rebuilds the report of a failed job (or of its `failedReason` string). Total: a job without a
 * report, or whose report fails the schema, gets a synthesised `UnrecoverableJobFailure` report
 * (never retryable) that keeps the message and says why.
 */
export function recoverErrorReport(job: unknown): ErrorReport {
  let failedReason: unknown;
  try {
    failedReason = typeof job === 'string' ? job : (job as { failedReason?: unknown } | null)?.failedReason;
  } catch {
    failedReason = undefined;
  }
  const text = typeof failedReason === 'string' ? failedReason : '';
  const at = text.indexOf(REPORT_MARKER);
  const message = at >= 0 ? text.slice(0, at) : text;
  let problem = 'the job carries no faultline report';
  if (at >= 0) {
    let candidate: unknown;
    try {
      candidate = JSON.parse(text.slice(at + REPORT_MARKER.length));
    } catch {
      candidate = undefined;
    }
    const parsed = safeFromDict(candidate);
    if (parsed.success) return parsed.data;
    problem = `the report failed the schema: ${parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ')}`;
  }
  return unrecoverableReport(
    UNRECOVERABLE_JOB_FAILURE,
    `Unrecoverable job failure (${problem})`,
    message || 'Job failed',
  );
}
