import {
  type Disclosure,
  type ErrorReport,
  type FaultlineError,
  problemDetails,
  type RetryEvent,
} from '@faultline/render';
import { nearestFaultlineError } from '@faultline/render/toolkit';
import {
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { checkFallbackOptions, checkOtelOptions } from './option-keys.ts';

/**
 * How much of the provider's words a span may carry: `safe` (a message per reason), `scrubbed`
 * (the provider's words without account ids; the most a trace gets by default), `full` (secrets
 * still scrubbed). render owns the levels and their wording; this package only passes the choice on.
 */

/** The instrumentation scope of every span event, counter and histogram this package writes. */
export type { Disclosure } from '@faultline/render';

export const INSTRUMENTATION_SCOPE = '@faultline/otel';

// Attribute names. The stable ones (error.type, exception.*) and the GenAI ones (still in
// development) are written out here rather than imported: @opentelemetry/semantic-conventions asks
// users to copy the incubating names, which may change between its minor versions.
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_EXCEPTION_TYPE = 'exception.type';
export const ATTR_EXCEPTION_MESSAGE = 'exception.message';
export const ATTR_EXCEPTION_STACKTRACE = 'exception.stacktrace';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** Deprecated by the GenAI conventions in favour of `gen_ai.provider.name`; still read by many backends. */
export const ATTR_GEN_AI_SYSTEM = 'gen_ai.system';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_FAULTLINE_CATEGORY = 'faultline.category';
export const ATTR_FAULTLINE_REASON = 'faultline.reason';
export const ATTR_FAULTLINE_RETRYABLE = 'faultline.retryable';
export const ATTR_FAULTLINE_NEXT_STEP = 'faultline.next_step';
export const ATTR_FAULTLINE_ATTEMPTS = 'faultline.attempts';
export const ATTR_FAULTLINE_RETRY_AFTER = 'faultline.retry_after_seconds';
export const ATTR_FAULTLINE_RETRY_ATTEMPT = 'faultline.retry.attempt';
export const ATTR_FAULTLINE_RETRY_DELAY = 'faultline.retry.delay_seconds';
export const ATTR_FAULTLINE_FALLBACK_TO_PROVIDER = 'faultline.fallback.to.provider';
export const ATTR_FAULTLINE_FALLBACK_TO_MODEL = 'faultline.fallback.to.model';

/** The counter of classified failures (one per `recordFailure`). */
export const METRIC_FAILURES = 'faultline.failures';
/** The histogram of the waits before retries, in seconds (one per retry). */
export const METRIC_RETRY_WAIT = 'faultline.retry.wait';
export const EVENT_RETRY = 'faultline.retry';
export const EVENT_FALLBACK = 'faultline.fallback';

export interface FaultlineOtelOptions {
  /** The span to record on. Default: the active span (`trace.getActiveSpan()`); with none, only metrics are recorded. */
  readonly span?: Span | undefined;
  /** What `exception.message` and the span status may say. Default `'scrubbed'`; `'full'` also adds the stack. */
  readonly disclosure?: Disclosure | undefined;
  /**
   * Maps faultline's provider name to the GenAI conventions' `gen_ai.provider.name` (e.g.
   * `google-genai` → `gcp.gemini`, `bedrock` → `aws.bedrock`). Default: faultline's name as is.
   */
  readonly genAiProviderName?: ((provider: string) => string) | undefined;
  /** The meter provider. Default: the global one (`metrics.getMeterProvider()`), read at each call. */
  readonly meterProvider?: MeterProvider | undefined;
}

interface Instruments {
  readonly failures: Counter;
  readonly retryWait: Histogram;
}

/**
 * Instruments per meter provider: the global provider may be set after this module loads (the
 * metrics API has no proxy provider, unlike tracing), so they are looked up at each call and
 * created once per provider.
 */
const INSTRUMENTS = new WeakMap<MeterProvider, Instruments>();

function instrumentsFor(options: FaultlineOtelOptions): Instruments {
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  let instruments = INSTRUMENTS.get(provider);
  if (instruments === undefined) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    instruments = {
      failures: meter.createCounter(METRIC_FAILURES, {
        description: 'Failures of model calls, classified by faultline',
        unit: '{failure}',
      }),
      retryWait: meter.createHistogram(METRIC_RETRY_WAIT, {
        description: 'The wait before each retry of a model call (the provider Retry-After or the backoff)',
        unit: 's',
      }),
    };
    INSTRUMENTS.set(provider, instruments);
  }
  return instruments;
}

/**
 * Retries recorded on a span by `faultlineOnRetry` since its last recorded failure or fallback, so
 * `recordFailure` can count the attempts of the call that failed.
 */
const RETRIES = new WeakMap<Span, number>();

/** The attempts a report counts, when the retry loop that threw it recorded them (render's `attempts`). */
function attemptsOf(report: ErrorReport): number | undefined {
  const made = report.attempts?.made;
  return typeof made === 'number' && Number.isSafeInteger(made) && made > 0 ? made : undefined;
}

/** The provider and model attributes, GenAI conventions first. Low cardinality: also used on metrics. */
function genAiAttributes(report: ErrorReport, options: FaultlineOtelOptions): Attributes {
  const attributes: Attributes = {};
  if (report.provider !== 'unknown') {
    let name = report.provider;
    try {
      name = options.genAiProviderName?.(report.provider) ?? report.provider;
    } catch {
      // A throwing mapper: keep faultline's name.
    }
    attributes[ATTR_GEN_AI_PROVIDER_NAME] = name;
    attributes[ATTR_GEN_AI_SYSTEM] = name;
  }
  if (report.model !== null) attributes[ATTR_GEN_AI_REQUEST_MODEL] = report.model;
  return attributes;
}

/** The text a span may carry, at the chosen disclosure level: render decides what each level shows. */
function disclosedText(error: FaultlineError, disclosure: Disclosure): string {
  return problemDetails(error, { disclosure }).detail;
}

/**
 * Records a failure: on the span (the given one or the active one) `error.type` (faultline's
 * reason: stable and low-cardinality), an `exception` event (`exception.type` is the error class,
 * `exception.message` the text at the disclosure level, `'scrubbed'` by default), status ERROR,
 * the GenAI provider and model, and faultline's category, reason, retryable, next step, attempts
 * and retry-after; and it adds one to the `faultline.failures` counter. A thrown value with no
 * FaultlineError on its cause chain is left alone (returns `undefined`): classify it first. Never throws
 * for any error; an unknown option key is a TypeError at the call.
 */
export function recordFailure(error: unknown, options: FaultlineOtelOptions = {}): ErrorReport | undefined {
  checkOtelOptions('recordFailure', options);
  const found = nearestFaultlineError(error) as FaultlineError | undefined;
  if (found === undefined) return undefined;
  try {
    const report = found.toErrorReport();
    const disclosure = options.disclosure ?? 'scrubbed';
    const provider = genAiAttributes(report, options);
    const span = options.span ?? trace.getActiveSpan();
    if (span !== undefined) {
      const text = disclosedText(found, disclosure);
      const attributes: Attributes = {
        ...provider,
        [ATTR_ERROR_TYPE]: report.reason,
        [ATTR_FAULTLINE_CATEGORY]: report.category,
        [ATTR_FAULTLINE_REASON]: report.reason,
        [ATTR_FAULTLINE_RETRYABLE]: report.retryable,
        [ATTR_FAULTLINE_NEXT_STEP]: report.nextStep,
      };
      const retries = RETRIES.get(span);
      // The count is of this call: a later call recorded on the same span starts again.
      RETRIES.delete(span);
      const attempts = attemptsOf(report) ?? (retries === undefined ? undefined : retries + 1);
      if (attempts !== undefined) attributes[ATTR_FAULTLINE_ATTEMPTS] = attempts;
      if (report.retryAfterSeconds !== undefined)
        attributes[ATTR_FAULTLINE_RETRY_AFTER] = report.retryAfterSeconds;
      span.setAttributes(attributes);
      // The exception event is built here, not with span.recordException(error): that would copy
      // the error's message and stack (whose first line is the message) whatever the disclosure.
      const exception: Attributes = {
        [ATTR_EXCEPTION_TYPE]: report.errorType,
        [ATTR_EXCEPTION_MESSAGE]: text,
      };
      if (disclosure === 'full' && typeof found.stack === 'string')
        exception[ATTR_EXCEPTION_STACKTRACE] = found.stack;
      span.addEvent('exception', exception);
      span.setStatus({ code: SpanStatusCode.ERROR, message: text });
    }
    instrumentsFor(options).failures.add(1, {
      ...provider,
      [ATTR_ERROR_TYPE]: report.reason,
      [ATTR_FAULTLINE_CATEGORY]: report.category,
      [ATTR_FAULTLINE_REASON]: report.reason,
      [ATTR_FAULTLINE_RETRYABLE]: report.retryable,
    });
    return report;
  } catch {
    // A broken span or meter must never turn a model failure into a tracing failure.
    return undefined;
  }
}

/**
 * A `retry.onRetry` listener for `withClassifiedErrors`: each retry becomes a `faultline.retry`
 * event on the span (the attempt that failed, the wait, the reason) and a `faultline.retry.wait`
 * histogram sample in seconds. Pass the same options as to `recordFailure`.
 */
export function faultlineOnRetry(options: FaultlineOtelOptions = {}): (event: RetryEvent) => void {
  checkOtelOptions('faultlineOnRetry', options);
  return (event) => {
    try {
      const report = event.report;
      const provider = genAiAttributes(report, options);
      const seconds = Math.max(0, event.delayMs) / 1000;
      const span = options.span ?? trace.getActiveSpan();
      if (span !== undefined) {
        RETRIES.set(span, (RETRIES.get(span) ?? 0) + 1);
        const attributes: Attributes = {
          ...provider,
          [ATTR_ERROR_TYPE]: report.reason,
          [ATTR_FAULTLINE_REASON]: report.reason,
          [ATTR_FAULTLINE_RETRY_ATTEMPT]: event.attempt,
          [ATTR_FAULTLINE_RETRY_DELAY]: seconds,
        };
        if (report.retryAfterSeconds !== undefined)
          attributes[ATTR_FAULTLINE_RETRY_AFTER] = report.retryAfterSeconds;
        span.addEvent(EVENT_RETRY, attributes);
      }
      instrumentsFor(options).retryWait.record(seconds, {
        ...provider,
        [ATTR_ERROR_TYPE]: report.reason,
        [ATTR_FAULTLINE_REASON]: report.reason,
      });
    } catch {
      // A broken span or meter must never break the retry loop (render ignores a throwing listener anyway).
    }
  };
}

export interface FallbackTarget {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
}

/**
 * Records that a call moved on to another candidate after `error`: a `faultline.fallback` event on
 * the span with the failed candidate's provider, model and reason and the next candidate's provider
 * and model. Returns the failure's report, or `undefined` when `error` holds no FaultlineError.
 */
export function recordFallback(
  error: unknown,
  to: FallbackTarget,
  options: FaultlineOtelOptions = {},
): ErrorReport | undefined {
  checkFallbackOptions(to, options);
  const found = nearestFaultlineError(error) as FaultlineError | undefined;
  if (found === undefined) return undefined;
  try {
    const report = found.toErrorReport();
    const span = options.span ?? trace.getActiveSpan();
    if (span === undefined) return report;
    const attributes: Attributes = {
      ...genAiAttributes(report, options),
      [ATTR_ERROR_TYPE]: report.reason,
      [ATTR_FAULTLINE_CATEGORY]: report.category,
      [ATTR_FAULTLINE_REASON]: report.reason,
    };
    if (typeof to?.provider === 'string') attributes[ATTR_FAULTLINE_FALLBACK_TO_PROVIDER] = to.provider;
    if (typeof to?.model === 'string') attributes[ATTR_FAULTLINE_FALLBACK_TO_MODEL] = to.model;
    span.addEvent(EVENT_FALLBACK, attributes);
    // The next candidate's attempts are its own.
    RETRIES.delete(span);
    return report;
  } catch {
    return undefined;
  }
}
