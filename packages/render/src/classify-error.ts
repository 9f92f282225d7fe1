import type {
  Classification,
  ClassificationOverride,
  DeliveredOutput,
  Extractor,
  ProviderErrorMetadata,
} from '@faultline/classify';
import { classificationFor, classify, constructorName, safeGet } from '@faultline/classify/toolkit';
import { extractMetadata, type RenderExtractContext } from './built-in-extractors.ts';
import { compactClassification } from './compact-classification.ts';
import {
  DEFERRED,
  type DeferredFields,
  errorClassFor,
  errorClassForType,
  FaultlineError,
  type FaultlineErrorOptions,
  type InferenceFamily,
} from './errors.ts';
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
  /** Clock for HTTP-date Retry-After values (epoch ms, or a function returning it). */
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
    const attempt = new PendingAttempt(error, options, facts);
    // With a family, the error's class depends on the classification: it is decided now.
    if (attempt.family !== undefined) {
      const { message, options: fields } = attempt.fields();
      const ErrorClass = errorClassFor(attempt.family, fields.classification as Classification);
      return new ErrorClass(message, fields);
    }
    return new FaultlineError(undefined, { cause: error, [DEFERRED]: attempt } as FaultlineErrorOptions);
  } catch {
    return new FaultlineError(describeThrown(error), { cause: error });
  }
}

let neverAborted: AbortSignal | undefined;

/** A signal that has not fired and never will: what an extractor read later sees for one that had not fired at throw time. */
function notAbortedSignal(): AbortSignal {
  neverAborted ??= new AbortController().signal;
  return neverAborted;
}

/**
 * What `classifyAttempt` captures when the failure is caught, and the work it defers: the options
 * as they were (a caller may reuse and change its options object), the signal's state (an abort
 * that fires later must not make this failure the caller's), the clock (an HTTP-date Retry-After
 * is read against the moment of the failure) and what the retry loop knew. `metadata()` is the
 * extraction alone (what the retry loop's abort check needs); `fields()` adds classification.
 */
class PendingAttempt implements DeferredFields {
  // Every field is `declare`d and set in the constructor, and the class has no `#private` member,
  // so it has no field initialiser and no brand: V8 sizes the instance from the constructor's own
  // assignments. With class fields and `#private` members (defined by a separate initialiser,
  // private ones with keyed stores), about a third of processes, at random, built every instance
  // in dictionary mode (`%HasFastProperties` false): 620–640 ns for this constructor instead of
  // 140, the error at throw 1.4 µs instead of 0.7 (issue 17, session 9).
  declare readonly thrown: unknown;
  declare readonly family: InferenceFamily | undefined;
  declare readonly extractors: readonly Extractor[] | undefined;
  declare readonly provider: string | undefined;
  declare readonly model: string | undefined;
  declare readonly operation: string | undefined;
  declare readonly override: ClassificationOverride | undefined;
  declare readonly idempotent: boolean | undefined;
  declare readonly delivered: DeliveredOutput | undefined;
  declare readonly signal: AbortSignal | undefined;
  /** The clock read at throw time (a `now` function that threw is kept, to be called as before). */
  declare readonly now: number | (() => number);
  declare readonly streaming: boolean;
  /** Aborted at throw time: the caller's own abort, decided then. */
  declare readonly callerAbort: boolean;
  declare readonly facts: AttemptFacts | undefined;
  /** The extraction once run (`metadata()`). */
  declare extraction: ProviderErrorMetadata | undefined;

  constructor(thrown: unknown, options: unknown, facts: AttemptFacts | undefined) {
    this.thrown = thrown;
    this.facts = facts;
    this.family = optionOf<InferenceFamily>(options, 'family');
    this.extractors = optionOf<readonly Extractor[]>(options, 'extractors');
    this.provider = optionOf<string>(options, 'provider');
    this.model = optionOf<string>(options, 'model');
    this.operation = optionOf<string>(options, 'operation');
    this.override = optionOf<ClassificationOverride>(options, 'override');
    this.idempotent = optionOf<boolean>(options, 'idempotent');
    this.delivered = optionOf<DeliveredOutput>(options, 'delivered');
    const given = optionOf<AbortSignal>(options, 'signal');
    const aborted = given !== undefined && safeGet(given, 'aborted') === true;
    // A signal's abort is final: one that had fired is passed on as is; one that had not is
    // replaced by one that never will, so an abort after the failure changes nothing.
    const signal = given === undefined ? undefined : aborted ? given : notAbortedSignal();
    this.callerAbort = aborted && isCallerAbort(thrown, given);
    this.now = clockReading(optionOf<number | (() => number)>(options, 'now'));
    this.signal = signal;
    this.streaming = optionOf<boolean>(options, 'streaming') === true;
    this.extraction = undefined;
  }

  /** What extractors are told: the signal and the clock as they were at throw time. */
  get context(): RenderExtractContext {
    const now = this.now;
    return {
      signal: this.signal,
      now: typeof now === 'function' ? now : () => now,
      streaming: this.streaming,
    };
  }

  /** The extraction (with the deadline, stream and delivery facts applied), once. Total. */
  metadata(): ProviderErrorMetadata {
    this.extraction ??= extractAttempt(this);
    return this.extraction;
  }

  /** Whether the classification will say `callerAborted`, without classifying when it can tell. */
  callerAborted(): boolean | undefined {
    // classify sets callerAborted from the origin alone; an override may change it.
    return this.override === undefined ? this.metadata().origin === 'abort' : undefined;
  }

  /** The constructor's message and options: classification included. Total (classify is). */
  fields(): { readonly message: unknown; readonly options: FaultlineErrorOptions } {
    try {
      return classifiedFields(this);
    } catch {
      return { message: describeThrown(this.thrown), options: { cause: this.thrown } };
    }
  }
}

/** The extraction, with the deadline, stream and delivery facts applied (`PendingAttempt.metadata`). */
function extractAttempt(attempt: PendingAttempt): ProviderErrorMetadata {
  const error = attempt.thrown;
  const context = attempt.context;
  let metadata: ProviderErrorMetadata;
  if (attempt.callerAbort) {
    metadata = { provider: attempt.provider ?? 'unknown', message: describeThrown(error), origin: 'abort' };
  } else {
    metadata = extractMetadata(error, attempt.extractors, context);
  }
  const deadlineMs = attempt.facts?.deadlineFiredMs;
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
    // Object.assign, not `{ ...metadata, key }`: on Node 20 a spread followed by added keys costs
    // about 1 µs a call (a new hidden class each time); this about 60 ns. Same keys, same order.
    metadata = Object.assign({}, metadata, { networkPhase: 'stream' as const });
  }
  if (attempt.delivered !== undefined)
    metadata = Object.assign({}, metadata, { delivered: attempt.delivered });
  return metadata;
}

/** The constructor's message and options, classification included (`PendingAttempt.fields`). */
function classifiedFields(attempt: PendingAttempt): {
  readonly message: unknown;
  readonly options: FaultlineErrorOptions;
} {
  const metadata = attempt.metadata();
  let classification = classificationFor('unknown');
  try {
    // classify() returns a fresh, valid classification: trusted, so the error does not re-parse it.
    classification = trustClassification(
      compactClassification(
        classify(metadata, { override: attempt.override, idempotent: attempt.idempotent }),
      ),
    );
  } catch {
    // classify is total; this keeps classifyError total even if it were not.
  }
  return {
    message: metadata.message || describeThrown(attempt.thrown),
    options: {
      cause: attempt.thrown,
      classification,
      metadata,
      provider: attempt.provider ?? metadata.provider,
      model: attempt.model,
      operation: attempt.operation,
      attempts: attempt.facts?.attempts,
    },
  };
}

/** The clock as the failure saw it: the `now` option read at throw time, else `Date.now()`. */
function clockReading(option: number | (() => number) | undefined): number | (() => number) {
  if (typeof option === 'number') return option;
  if (typeof option === 'function') {
    try {
      return option();
    } catch {
      // A throwing clock: extractors call it later and fall back as they always did.
      return option;
    }
  }
  return Date.now();
}

function buildError(
  message: string,
  classification: Classification,
  metadata: ProviderErrorMetadata,
  options: unknown,
  cause: unknown,
): FaultlineError {
  const ErrorClass = errorClassFor(optionOf(options, 'family'), classification);
  return new ErrorClass(message, {
    cause,
    classification,
    metadata,
    provider: optionOf<string>(options, 'provider') ?? metadata.provider,
    model: optionOf<string>(options, 'model'),
    operation: optionOf<string>(options, 'operation'),
  });
}

/**
 * True when `error` is the classification of the caller's own abort (a signal given to the SDK
 * alone, read by an extractor): the thrown value `thrown` then leaves untouched. Read through
 * safeGet: a marked error from another copy (or an impostor) arrives here too. Total.
 */
export function isUntouchedCallerAbort(error: unknown, thrown: unknown): boolean {
  if (safeGet(error, 'cause') !== thrown) return false;
  // An error whose classification has not run yet answers from its extraction alone.
  const pending = FaultlineError.pendingOf(error);
  const known = pending instanceof PendingAttempt ? pending.callerAborted() : undefined;
  return known ?? safeGet(safeGet(error, 'classification'), 'callerAborted') === true;
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
    let withDelivered = metadata;
    const delivered = optionOf<DeliveredOutput>(options, 'delivered');
    // Object.assign, not `{ ...metadata, delivered }` (on Node 20 the spread form costs ~1 µs).
    if (delivered !== undefined) withDelivered = Object.assign({}, metadata, { delivered });
    let classification = classificationFor('unknown');
    try {
      // classify() returns a fresh, valid classification: trusted, so the error does not re-parse it.
      classification = trustClassification(
        compactClassification(
          classify(withDelivered, {
            override: optionOf(options, 'override'),
            idempotent: optionOf<boolean>(options, 'idempotent'),
          }),
        ),
      );
    } catch {
      // classify is total.
    }
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
    const parsed = ErrorReport.safeParse(value);
    return parsed.success ? parsed.data : undefined;
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
    const parsed = ErrorReport.safeParse(value);
    if (parsed.success) return parsed.data;
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
