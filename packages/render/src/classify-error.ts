import type {
  Classification,
  ClassificationOverride,
  DeliveredOutput,
  Extractor,
  ProviderErrorMetadata,
} from '@faultline/classify';
import { classificationFor, classify, constructorName, safeGet } from '@faultline/classify/toolkit';
import * as v from 'valibot';
import { extractMetadata, type RenderExtractContext } from './built-in-extractors.ts';
import { errorClassFor, errorClassForType, FaultlineError, type InferenceFamily } from './errors.ts';
import { causeLinks, hasFaultlineMarker, TRUSTED_ERRORS, trustClassification } from './identity.ts';
import { checkOptionKeys } from './invalid-option.ts';
import { CLASSIFY_ERROR_OPTION_KEYS } from './option-keys.ts';
import { type AttemptRecord, ErrorReport, minimalReport, reportFromChain } from './report.ts';
import { scrubAndCut } from './secrets.ts';
import { describeThrown } from './thrown-value.ts';

export interface ClassifyErrorOptions {
  /** Registered extractors; they run first, then `builtInExtractors`. */
  readonly extractors?: readonly Extractor[] | undefined;
  /** The caller's own AbortSignal: an abort while it has fired is the caller's, not a failure. */
  readonly signal?: AbortSignal | undefined;
  readonly model?: string | undefined;
  readonly provider?: string | undefined;
  readonly operation?: string | undefined;
  readonly family?: InferenceFamily | undefined;
  readonly override?: ClassificationOverride | undefined;
  readonly idempotent?: boolean | undefined;
  /** Clock (epoch ms, or a function returning it) for HTTP-date Retry-After values and the time of the failure (`retryableAt`). */
  readonly now?: number | (() => number) | undefined;
  /** The error was thrown while reading a stream (transport drops become `networkPhase: 'stream'`). */
  readonly streaming?: boolean | undefined;
  /** Stream progress to record on the error. */
  readonly delivered?: DeliveredOutput | undefined;
}

function isAbortLike(value: unknown): boolean {
  const name = safeGet(value, 'name');
  const code = safeGet(value, 'code');
  if (name === 'AbortError' || code === 'ABORT_ERR' || code === 20) return true;
  // SDK classes for the same event: openai/anthropic `APIUserAbortError`, AWS `AbortError`, `RequestAbortedError`.
  const type = constructorName(value);
  return (type !== undefined && /abort/i.test(type)) || (typeof name === 'string' && /abort/i.test(name));
}

/**
 * True when `error` is the caller's own abort: `signal` has fired and the thrown value is its reason
 * or an abort error (anywhere on the cause chain, SDK abort classes included). Never throws.
 */
export function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal === undefined || safeGet(signal, 'aborted') !== true) return false;
  const reason = safeGet(signal, 'reason');
  if (error === reason) return true;
  return causeLinks(error, 10).some((link) => link === reason || isAbortLike(link));
}

function optionOf<T>(options: unknown, key: string): T | undefined {
  return safeGet(options, key) as T | undefined;
}

/**
 * Turns any thrown value into a FaultlineError: registered extractors first, then the built-in ones
 * (transport, zod, local bugs), then `classify()`. A FaultlineError is returned as is. The caller's
 * abort yields an error whose `classification.callerAborted` is true. Total over what it classifies:
 * any thrown value gets an error, never a throw; only an unknown option key is a TypeError at the call.
 */
export function classifyError(error: unknown, options: ClassifyErrorOptions = {}): FaultlineError {
  checkOptionKeys('classifyError', options, CLASSIFY_ERROR_OPTION_KEYS);
  return classifyAttempt(error, options, undefined);
}

/** What only a retry loop knows about the failure it classifies. */
export interface AttemptFacts {
  /** The attempts so far and the wait before each retry. */
  readonly attempts?: AttemptRecord | undefined;
  /** Set when the loop's own deadline fired: its length in ms. */
  readonly deadlineFiredMs?: number | undefined;
}

// Origins that mean the provider answered: a deadline firing around them does not change them.
const ANSWERED_ORIGINS: ReadonlySet<string> = new Set([
  'http',
  'stream_event',
  'blocked_response',
  'malformed_response',
  'validation',
  'local',
]);

/**
 * `classifyError` with what the retry loop knows: the attempts made, and whether its own deadline
 * fired. The deadline is render's own timer, so when it fired, whatever the SDK threw for the abort
 * (openai 4–6 and @anthropic-ai/sdk throw `APIUserAbortError`, genai an `AbortError`, mistral a
 * `RequestAbortedError`) is a `timeout`: the decision belongs to who fired, not to the SDK's class.
 */
export function classifyAttempt(
  error: unknown,
  options: ClassifyErrorOptions,
  facts: AttemptFacts | undefined,
): FaultlineError {
  if (hasFaultlineMarker(error)) return error as FaultlineError;
  try {
    const metadata = extractAttempt(error, options, facts);
    const classification = classifyMetadata(metadata, options);
    return buildError(
      metadata.message || describeThrown(error),
      classification,
      metadata,
      options,
      error,
      facts?.attempts,
    );
  } catch {
    return new FaultlineError(describeThrown(error), { cause: error });
  }
}

/** The extraction, with the caller's abort, the loop's deadline, the stream and delivery facts applied. */
function extractAttempt(
  error: unknown,
  options: ClassifyErrorOptions,
  facts: AttemptFacts | undefined,
): ProviderErrorMetadata {
  const signal = optionOf<AbortSignal>(options, 'signal');
  const nowOption = optionOf<number | (() => number)>(options, 'now');
  const context: RenderExtractContext = {
    signal,
    now:
      typeof nowOption === 'number'
        ? () => nowOption
        : typeof nowOption === 'function'
          ? nowOption
          : undefined,
    streaming: optionOf<boolean>(options, 'streaming') === true,
  };
  let metadata: ProviderErrorMetadata = isCallerAbort(error, signal)
    ? {
        provider: optionOf<string>(options, 'provider') ?? 'unknown',
        message: describeThrown(error),
        origin: 'abort',
      }
    : extractMetadata(error, optionOf<readonly Extractor[]>(options, 'extractors'), context);
  const deadlineMs = facts?.deadlineFiredMs;
  if (deadlineMs !== undefined && !ANSWERED_ORIGINS.has(metadata.origin)) {
    const timedOut: ProviderErrorMetadata = {
      provider: metadata.provider,
      message: `The call did not finish within its deadline of ${deadlineMs} ms.`,
      origin: 'timeout',
      networkPhase:
        metadata.networkPhase !== undefined && metadata.networkPhase !== 'unknown'
          ? metadata.networkPhase
          : 'unknown',
    };
    if (metadata.sdkErrorType !== undefined) timedOut.sdkErrorType = metadata.sdkErrorType;
    metadata = timedOut;
  }
  // Mid-stream, a drop or a deadline is by definition after output began: whatever phase an
  // extractor could (or could not) read, it is a stream interruption, never a fresh timeout.
  if (
    context.streaming &&
    (metadata.origin === 'timeout' || metadata.origin === 'network') &&
    metadata.networkPhase !== 'dns' &&
    metadata.networkPhase !== 'connect'
  ) {
    metadata = { ...metadata, networkPhase: 'stream' };
  }
  const delivered = optionOf<DeliveredOutput>(options, 'delivered');
  if (delivered !== undefined) metadata = { ...metadata, delivered };
  return metadata;
}

/** classify() with the caller's override and idempotency; its fresh, valid result is trusted. Total. */
function classifyMetadata(metadata: ProviderErrorMetadata, options: unknown): Classification {
  try {
    return trustClassification(
      classify(metadata, {
        override: optionOf(options, 'override'),
        idempotent: optionOf<boolean>(options, 'idempotent'),
      }),
    );
  } catch {
    // classify is total; this keeps classifyError total even if it were not.
    return classificationFor('unknown');
  }
}

function buildError(
  message: string,
  classification: Classification,
  metadata: ProviderErrorMetadata,
  options: unknown,
  cause: unknown,
  attempts?: AttemptRecord,
): FaultlineError {
  const ErrorClass = errorClassFor(optionOf(options, 'family'), classification);
  const now = optionOf<unknown>(options, 'now');
  let failedAt: unknown;
  try {
    failedAt = typeof now === 'function' ? now() : now;
  } catch {
    // A clock that throws: the error keeps the system time.
  }
  return new ErrorClass(message, {
    failedAt: typeof failedAt === 'number' ? failedAt : undefined,
    cause,
    classification,
    metadata,
    provider: optionOf<string>(options, 'provider') ?? metadata.provider,
    model: optionOf<string>(options, 'model'),
    operation: optionOf<string>(options, 'operation'),
    attempts,
  });
}

/**
 * True when `error` is the classification of the caller's own abort (a signal given to the SDK
 * alone, read by an extractor): the thrown value `thrown` then leaves untouched. Read through
 * safeGet: a marked error from another copy (or an impostor) arrives here too. Total.
 */
export function isUntouchedCallerAbort(error: unknown, thrown: unknown): boolean {
  return (
    safeGet(safeGet(error, 'classification'), 'callerAborted') === true && safeGet(error, 'cause') === thrown
  );
}

/**
 * The error a retry loop throws once it gives up: the same class, cause, metadata and message,
 * with the attempts it made; when a retryable failure outlived its retries, its next step becomes
 * `fallback` (the report says so in `retriesExhausted`). An error from another copy of faultline
 * is returned as is. Total.
 */
export function withAttempts(error: FaultlineError, attempts: AttemptRecord): FaultlineError {
  try {
    if (!TRUSTED_ERRORS.has(error)) return error;
    const base = error.classification;
    const classification =
      attempts.exhausted && base.nextStep !== 'fallback'
        ? trustClassification({ ...base, nextStep: 'fallback' as const })
        : base;
    // Only this package's own classes are rebuilt (a wrapper such as FaultlineContextError, or a
    // user's subclass, has a constructor of its own: it leaves as is).
    const ErrorClass = errorClassForType(error.errorType);
    if (safeGet(ErrorClass, 'errorType') !== error.errorType) return error;
    return new ErrorClass(error.message, {
      cause: error.cause,
      classification,
      metadata: error.metadata,
      provider: error.provider,
      model: error.model,
      operation: error.operation,
      attempts,
      failedAt: error.failedAt,
    });
  } catch {
    return error;
  }
}

/**
 * The FaultlineError for metadata that did not come from a thrown value (a content-filtered 200,
 * an error event inside a stream). `cause`, when given, is kept. Total.
 */
export function errorFromMetadata(
  metadata: ProviderErrorMetadata,
  options: ClassifyErrorOptions = {},
  cause?: unknown,
): FaultlineError {
  try {
    const delivered = optionOf<DeliveredOutput>(options, 'delivered');
    const withDelivered = delivered === undefined ? metadata : { ...metadata, delivered };
    const classification = classifyMetadata(withDelivered, options);
    const message = typeof safeGet(metadata, 'message') === 'string' ? (metadata.message as string) : '';
    return buildError(message, classification, withDelivered, options, cause);
  } catch {
    return new FaultlineError('The failure could not be read.', { cause });
  }
}

/**
 * The report of any value: a valid report is returned as it is; a FaultlineError's own report; a
 * wrapper's report with its own errorType and message and the classification of the nearest
 * FaultlineError on its cause chain; anything else classified with the built-in extractors.
 * Total: never throws.
 */
export function toErrorReport(value: unknown): ErrorReport {
  try {
    return (
      reportFromChain(value) ?? readReport(value) ?? reportFromChain(classifyError(value)) ?? minimalReport()
    );
  } catch {
    return minimalReport();
  }
}

/** `value` when it is a valid report (never an Error: a failing parse costs more than it saves). */
function readReport(value: unknown): ErrorReport | undefined {
  try {
    if (typeof value !== 'object' || value === null || value instanceof Error) return undefined;
    const parsed = v.safeParse(ErrorReport, value);
    return parsed.success ? parsed.output : undefined;
  } catch {
    // A Proxy as report: report on it instead.
    return undefined;
  }
}

/** What formatters and HTTP helpers accept: a report, or any thrown value (reported first). */
export type ReportSource = ErrorReport | Error;

/** `value` when it is a valid report, otherwise `toErrorReport(value)` (the formatters' entry). Total. */
export function asReport(value: unknown): ErrorReport {
  try {
    const parsed = v.safeParse(ErrorReport, value);
    if (parsed.success) return parsed.output;
  } catch {
    // A Proxy as report: report on it instead.
  }
  return toErrorReport(value);
}

/**
 * The report a consumer falls back to when a failure arrives with no readable faultline report
 * (a bridge recovering a job or a workflow failure): category unknown, never retryable, keeping
 * the failure's own message behind `prefix` (scrubbed, and cut so the report stays valid).
 */
export function unrecoverableReport(errorType: string, prefix: string, message: unknown): ErrorReport {
  const base = toErrorReport(new Error(typeof message === 'string' && message.length > 0 ? message : prefix));
  return {
    ...base,
    errorType: scrubAndCut(errorType, 200) || 'UnrecoverableFailure',
    message: scrubAndCut(`${prefix}: ${base.message}`),
  };
}
