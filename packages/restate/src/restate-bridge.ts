import {
  type ClassifyErrorOptions,
  classifyError,
  type ErrorReport,
  type FaultlineError,
  toDict,
} from '@faultline/render';
import {
  CLASSIFY_ERROR_OPTION_KEYS,
  checkOptionKeys,
  maxResetWaitMs,
  nearestFaultlineError,
  RESET_WAIT_OPTION_KEYS,
  type ResetWaitOptions,
  resetWaitMs,
  safeFromDict,
  unrecoverableReport,
} from '@faultline/render/toolkit';
import {
  type Context,
  type RestatePromise,
  RetryableError,
  type RunAction,
  type RunOptions,
  TerminalError,
} from '@restatedev/restate-sdk';

/** The key of the terminal error's metadata that carries the report (JSON of `toDict(report)`). */
export const REPORT_METADATA_KEY = 'faultlineReport';

/** The `errorType` of a report synthesised when a failed invocation carries no valid report. */
export const UNRECOVERABLE_INVOCATION_FAILURE = 'UnrecoverableInvocationFailure';

/** The names Restate's own errors carry: they end or suspend an attempt and must pass untouched. */
const RESTATE_ERROR_NAMES: ReadonlySet<string> = new Set([
  'RestateError',
  'TerminalError',
  'TimeoutError',
  'CancelledError',
  'RetryableError',
  'PauseError',
]);

function isRestateError(value: unknown): boolean {
  try {
    const name = (value as { name?: unknown } | null)?.name;
    return typeof name === 'string' && RESTATE_ERROR_NAMES.has(name);
  } catch {
    return false;
  }
}

/** The retryable failure's wait before the next attempt, in ms: the provider's Retry-After. */
function retryAfterOf(report: ErrorReport): { milliseconds: number } | undefined {
  return report.retryAfterSeconds === undefined
    ? undefined
    : { milliseconds: Math.ceil(report.retryAfterSeconds * 1000) };
}

/** A terminal error that carries the report in its metadata, its status as the error code. */
function terminalFor(report: ErrorReport): TerminalError {
  return new TerminalError(report.message, {
    errorCode: report.httpStatus,
    metadata: { [REPORT_METADATA_KEY]: JSON.stringify(toDict(report)) },
  });
}

export interface RestateErrorOptions extends ClassifyErrorOptions, ResetWaitOptions {}

/** The keys of `RestateErrorOptions`: a key added to the type and not here fails the type check. */
const RESTATE_ERROR_OPTION_KEYS = {
  ...CLASSIFY_ERROR_OPTION_KEYS,
  ...RESET_WAIT_OPTION_KEYS,
} as const satisfies Record<keyof RestateErrorOptions, true>;

/**
 * What Restate should see for a failure: a `TerminalError` (no retry; the report in its metadata,
 * `httpStatus` as its code, which the ingress answers the caller with) when no retry can help, a
 * `RetryableError` whose `retryAfter` is the provider's wait when one can (a transient failure,
 * or an ambiguous one the call declared idempotent) and, with `maxWaitMs`, when a spent quota
 * resets within it (retried once the reset is due). Restate's own errors (terminal, cancelled,
 * suspended) and the caller's abort are returned as they are. Total: any thrown value is classified.
 */
export function toRestateError(thrown: unknown, options: RestateErrorOptions = {}): unknown {
  checkOptionKeys('toRestateError', options, RESTATE_ERROR_OPTION_KEYS);
  const maxWaitMs = maxResetWaitMs(options, 'toRestateError');
  if (isRestateError(thrown)) return thrown;
  const { maxWaitMs: _maxWaitMs, ...classifyOptions } = options;
  const error =
    (nearestFaultlineError(thrown) as FaultlineError | undefined) ?? classifyError(thrown, classifyOptions);
  const report = error.toErrorReport();
  if (report.callerAborted) return thrown;
  const retry = report.retryable || (options.idempotent === true && report.category === 'ambiguous');
  const resetWait = retry ? undefined : resetWaitMs(report, maxWaitMs);
  if (!retry && resetWait === undefined) return terminalFor(report);
  return new RetryableError(report.message, {
    retryAfter: resetWait === undefined ? retryAfterOf(report) : { milliseconds: resetWait },
    cause: error,
  });
}

export interface FaultlineRunOptions<T> extends RestateErrorOptions {
  /** Restate's own options for the run (retry attempts, durations, serde). */
  readonly run?: RunOptions<T> | undefined;
}

/** The keys of `FaultlineRunOptions`: a key added to the type and not here fails the type check. */
const RUN_OPTION_KEYS = {
  ...RESTATE_ERROR_OPTION_KEYS,
  run: true,
} as const satisfies Record<keyof FaultlineRunOptions<unknown>, true>;

/**
 * `ctx.run(name, action)` for a model call: the action's failure is classified and thrown as
 * `toRestateError` says, so Restate retries a transient failure after the provider's Retry-After
 * (a `RetryableError` counts only inside `ctx.run`) and records anything else as terminal, once.
 * When Restate gives up on a transient failure (`run.maxRetryAttempts` or `maxRetryDuration`), it
 * ends the run with a terminal error of the last message only; the run then fails instead with the
 * last attempt's report, its next step `fallback`. With `maxWaitMs`, a spent quota whose reset is
 * within it is retried once it resets (within `run`'s own attempt and duration limits).
 */
export function faultlineRun<T>(
  context: Pick<Context, 'run'>,
  name: string,
  action: RunAction<T>,
  options: FaultlineRunOptions<T> = {},
): RestatePromise<T> {
  checkOptionKeys('faultlineRun', options, RUN_OPTION_KEYS);
  maxResetWaitMs(options, 'faultlineRun');
  const { run: runOptions, ...classifyOptions } = options;
  // The report of the attempt that ran last in this process. Restate decides that retries are
  // exhausted in the attempt that ran the action last, so it is the one the gave-up failure is about.
  let lastRetryable: ErrorReport | undefined;
  const wrapped: RunAction<T> = async () => {
    try {
      return await action();
    } catch (thrown) {
      const converted = toRestateError(thrown, classifyOptions);
      lastRetryable =
        (converted as { name?: unknown })?.name === 'RetryableError' ? reportOf(converted) : undefined;
      throw converted;
    }
  };
  const run = runOptions === undefined ? context.run(name, wrapped) : context.run(name, wrapped, runOptions);
  return run.map((value, failure) => {
    if (failure === undefined) return value as T;
    if (lastRetryable !== undefined && metadataReport(failure.metadata) === undefined) {
      // The retries ran out: the report says so, and its next step is a fallback.
      throw terminalFor({ ...lastRetryable, nextStep: 'fallback', retriesExhausted: true });
    }
    throw failure;
  });
}

/** The report a `RetryableError` made by `toRestateError` carries through its cause. */
function reportOf(error: unknown): ErrorReport | undefined {
  const cause = nearestFaultlineError((error as { cause?: unknown } | null)?.cause) as
    | FaultlineError
    | undefined;
  return cause?.toErrorReport();
}

/**
 * The floor, for a service's `options.asTerminalError`: Restate retries every error that is not
 * terminal (70 attempts, then it pauses the invocation); with this, a FaultlineError that no retry
 * can fix, thrown anywhere in a handler, ends the invocation at once with its report.
 */
export function faultlineAsTerminalError(error: unknown): TerminalError | undefined {
  // Restate's own errors were decided already (a RetryableError faultlineRun raised to wait for a
  // quota's reset holds a final report as its cause, and must stay retryable).
  if (isRestateError(error)) return undefined;
  const found = nearestFaultlineError(error) as FaultlineError | undefined;
  if (found === undefined) return undefined;
  const converted = toRestateError(found);
  return isRestateError(converted) && (converted as { name?: unknown }).name === 'TerminalError'
    ? (converted as TerminalError)
    : undefined;
}

function metadataReport(metadata: unknown): string | undefined {
  try {
    const value = (metadata as Record<string, unknown> | null)?.[REPORT_METADATA_KEY];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The failure as the ingress answered it: `{ message, metadata }` from an HTTP client error's body. */
function ingressFailure(error: unknown): { message?: unknown; metadata?: unknown } | undefined {
  try {
    const text = (error as { responseText?: unknown } | null)?.responseText;
    if (typeof text !== 'string') return undefined;
    const parsed = JSON.parse(text.length > 1_000_000 ? '' : text) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as { message?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rebuilds the report of a failed invocation on the far side: from a `TerminalError` (a Restate
 * handler calling another one) or from the ingress client's error (`HttpCallError` of
 * @restatedev/restate-sdk-clients, whose `responseText` holds `{ message, metadata }`). Total: with
 * no report, or one that fails the schema, it returns an `UnrecoverableInvocationFailure` report
 * (never retryable) that keeps the message and says why.
 */
export function recoverErrorReport(error: unknown): ErrorReport {
  let metadata: unknown;
  let message: unknown;
  try {
    metadata = (error as { metadata?: unknown } | null)?.metadata;
    message = (error as { message?: unknown } | null)?.message;
  } catch {
    metadata = undefined;
  }
  const fromIngress = ingressFailure(error);
  if (fromIngress !== undefined) {
    metadata = fromIngress.metadata;
    message = fromIngress.message;
  }
  const text = metadataReport(metadata);
  let problem = 'the failure carries no faultline report';
  if (text !== undefined) {
    let candidate: unknown;
    try {
      candidate = JSON.parse(text);
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
    UNRECOVERABLE_INVOCATION_FAILURE,
    `Unrecoverable invocation failure (${problem})`,
    typeof message === 'string' && message.length > 0 ? message : 'Invocation failed',
  );
}
