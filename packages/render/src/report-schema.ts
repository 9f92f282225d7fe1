// The valibot schema of a report (`ErrorReport`) and its one reader (`fromDict`, `safeFromDict`): the
// one validator of every report render builds, reads back or is handed, in valibot as classify's
// schemas are, so an adapter's import graph holds one validator and an app's bundle only the checks
// these schemas use (docs/benchmarks.md's bundle figure). The JSON Schema published for consumers
// in other languages is generated from it (report-json-schema.ts).
import {
  DecidedBy,
  DeliveredOutput,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
  NetworkPhase,
  NextStep,
  RateLimitWindow,
  RecoveryHints,
  UserActionKind,
} from '@faultline/classify';
import * as v from 'valibot';
import { MAX_MESSAGE_LENGTH } from './secrets.ts';

/** The version of the `ErrorReport` shape. Bumped on any breaking change to the schema. */
export const ERROR_REPORT_SCHEMA_VERSION = 2;

const ShortText = v.pipe(v.string(), v.maxLength(512));
const integer = v.pipe(v.number(), v.safeInteger());
const atLeast = (minimum: number) => v.pipe(v.number(), v.safeInteger(), v.minValue(minimum));

/** What a report's wait means; see `ErrorReport.waitKind`. */
export const WaitKind = v.picklist(['retry_after', 'quota_reset', 'provider_wait']);
export type WaitKind = v.InferOutput<typeof WaitKind>;

/** What the provider said, minus the raw body, headers and anything secret. */
export const ReportProviderMetadata = v.strictObject({
  origin: FailureOrigin,
  statusCode: v.optional(integer),
  requestId: v.optional(ShortText),
  providerCode: v.optional(ShortText),
  providerType: v.optional(ShortText),
  sdkErrorType: v.optional(ShortText),
  networkCode: v.optional(ShortText),
  networkPhase: v.optional(NetworkPhase),
  sdkAttempts: v.optional(atLeast(0)),
  /**
   * The rate-limit budget the failure's headers stated for the key (per window: the allowance,
   * what was left, the seconds to its refill). Counts and seconds only: no key, account or
   * organization id is read into it.
   */
  rateLimit: v.optional(
    v.strictObject({
      requests: v.optional(v.strictObject(RateLimitWindow.entries)),
      tokens: v.optional(v.strictObject(RateLimitWindow.entries)),
    }),
  ),
});
export type ReportProviderMetadata = v.InferOutput<typeof ReportProviderMetadata>;

/**
 * When a wait ends, as render writes it (`Date#toISOString()`: UTC, milliseconds). A pattern of that
 * one shape rather than a general ISO 8601 parser, which would weigh on the bundle of every app that
 * wraps a call (bench/src/check-bundle-size.ts). The JSON Schema says `format: date-time` as well.
 */
export const RetryableAt = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));

/**
 * The strict, versioned, JSON-only report of one failure: what every consumer (retry loop, HTTP
 * adapter, agent, job queue, terminal) reads. Unknown keys are rejected.
 */
export const ErrorReport = v.strictObject({
  schemaVersion: v.literal(ERROR_REPORT_SCHEMA_VERSION),
  errorType: ShortText,
  message: v.pipe(v.string(), v.maxLength(MAX_MESSAGE_LENGTH)),
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  userAction: v.strictObject({
    kind: UserActionKind,
    detail: v.optional(v.pipe(v.string(), v.maxLength(MAX_MESSAGE_LENGTH))),
  }),
  nextStep: NextStep,
  recovery: v.strictObject(RecoveryHints.entries),
  domain: ErrorDomain,
  httpStatus: v.pipe(v.number(), v.safeInteger(), v.minValue(400), v.maxValue(599)),
  provider: ShortText,
  model: v.nullable(ShortText),
  operation: v.optional(ShortText),
  retryAfterSeconds: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
  /**
   * What `retryAfterSeconds` is (present exactly when it is): `retry_after`, the wait before a
   * retry; `quota_reset`, when a spent allowance resets (a capacity failure is not retried, the
   * wait tells a scheduler when it could be); `provider_wait`, a wait the provider stated on a
   * failure no retry fixes.
   */
  waitKind: v.optional(WaitKind),
  /**
   * When the wait ends (ISO 8601, UTC): the time of the failure plus `retryAfterSeconds`. Present
   * with the wait whenever the failure's time is known; what a scheduler stores to resume at.
   */
  retryableAt: v.optional(RetryableAt),
  /**
   * True for an ambiguous failure (the provider may have processed the request): repeat the call
   * only if doing it twice is safe. `retryable` is then true only when the caller said so.
   */
  retryOnlyIfIdempotent: v.boolean(),
  /** What the retry loop did before giving up: attempts made and the wait before each retry. */
  attempts: v.optional(
    v.strictObject({
      made: atLeast(1),
      waitsMs: v.pipe(v.array(atLeast(0)), v.maxLength(100)),
    }),
  ),
  /** True when a retryable failure outlived its retries (attempts or deadline); nextStep is then `fallback`. */
  retriesExhausted: v.optional(v.boolean()),
  /** True when the caller's own AbortSignal ended the call: not a provider failure. */
  callerAborted: v.boolean(),
  providerMetadata: ReportProviderMetadata,
  delivered: v.optional(v.strictObject(DeliveredOutput.entries)),
  /** The rule of classify's table that decided, and the (scrubbed) evidence it matched. */
  decidedBy: v.optional(v.strictObject(DecidedBy.entries)),
});
export type ErrorReport = v.InferOutput<typeof ErrorReport>;

/** One problem of a value that is not a report: the path to the field (keys from the top) and what is wrong. */
export interface ReportIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** What `fromDict` throws and `safeFromDict` returns for a value that is not a report. */
export interface InvalidReportError extends TypeError {
  /** Every problem found, each naming its field. */
  readonly issues: readonly ReportIssue[];
}

/** `safeFromDict`'s answer: the report, or the error `fromDict` would have thrown. */
export type SafeFromDictResult =
  | { readonly success: true; readonly data: ErrorReport }
  | { readonly success: false; readonly error: InvalidReportError };

/**
 * What is wrong, in words that never quote the value: a report read back may hold anything, a
 * secret included, and this text reaches logs and bridges' errors.
 */
function problemOf(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'unknown key';
  if (issue.received === 'undefined' && (issue.type === 'strict_object' || issue.type === 'object'))
    return 'missing';
  const received = issue.received.startsWith('"') ? 'a string' : issue.received;
  return `expected ${issue.expected ?? 'a valid value'}, received ${received}`;
}

function invalidReport(issues: readonly v.BaseIssue<unknown>[]): InvalidReportError {
  const read = issues.map((issue) => ({
    path: (issue.path ?? []).map((item) => item.key as PropertyKey),
    message: problemOf(issue),
  }));
  const lines = read
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  const more = read.length > 5 ? `; and ${read.length - 5} more` : '';
  return Object.assign(new TypeError(`not a valid ErrorReport: ${lines.join('; ')}${more}`), {
    issues: read,
  });
}

/**
 * Reads a report back from a plain object; throws a TypeError naming each field that is wrong (its
 * `issues`) when it is not a valid report. Strict: an unknown key is an error too.
 */
export function fromDict(value: unknown): ErrorReport {
  const parsed = v.safeParse(ErrorReport, value);
  if (parsed.success) return parsed.output;
  throw invalidReport(parsed.issues);
}

/** Like `fromDict`, but returns the error instead of throwing (for a bridge recovering a report). */
export function safeFromDict(value: unknown): SafeFromDictResult {
  try {
    const parsed = v.safeParse(ErrorReport, value);
    return parsed.success
      ? { success: true, data: parsed.output }
      : { success: false, error: invalidReport(parsed.issues) };
  } catch (error) {
    // A hostile value (a Proxy, a throwing getter) is not a report either.
    const message = `not a valid ErrorReport: it could not be read (${error instanceof Error ? error.name : typeof error})`;
    return {
      success: false,
      error: Object.assign(new TypeError(message), { issues: [{ path: [], message }] }),
    };
  }
}
