// The zod schema of a report (`ErrorReport`), its one reader (`fromDict`), and the JSON Schema it
// publishes for consumers in other languages (`error-report.schema.json`, written by
// `pnpm --filter @faultline/render generate:schema`). The one validator of every report render
// builds, reads back or is handed, in zod/mini as classify's schemas are: an adapter's import graph
// then holds one zod API, and an app's bundle the small one (docs/benchmarks.md's bundle figure).
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
import * as z from 'zod/mini';
import { MAX_MESSAGE_LENGTH } from './secrets.ts';

/** The version of the `ErrorReport` shape. Bumped on any breaking change to the schema. */
export const ERROR_REPORT_SCHEMA_VERSION = 2;

const ShortText = z.string().check(z.maxLength(512));

/** What a report's wait means; see `ErrorReport.waitKind`. */
export const WaitKind = z.enum(['retry_after', 'quota_reset', 'provider_wait']);
export type WaitKind = z.infer<typeof WaitKind>;

/** What the provider said, minus the raw body, headers and anything secret. */
export const ReportProviderMetadata = z.strictObject({
  origin: FailureOrigin,
  statusCode: z.optional(z.int()),
  requestId: z.optional(ShortText),
  providerCode: z.optional(ShortText),
  providerType: z.optional(ShortText),
  sdkErrorType: z.optional(ShortText),
  networkCode: z.optional(ShortText),
  networkPhase: z.optional(NetworkPhase),
  sdkAttempts: z.optional(z.int().check(z.minimum(0))),
  /**
   * The rate-limit budget the failure's headers stated for the key (per window: the allowance,
   * what was left, the seconds to its refill). Counts and seconds only: no key, account or
   * organization id is read into it.
   */
  rateLimit: z.optional(
    z.strictObject({
      requests: z.optional(z.strictObject(RateLimitWindow.shape)),
      tokens: z.optional(z.strictObject(RateLimitWindow.shape)),
    }),
  ),
});
export type ReportProviderMetadata = z.infer<typeof ReportProviderMetadata>;

/**
 * When a wait ends, as render writes it (`Date#toISOString()`: UTC, milliseconds). A pattern of that
 * one shape rather than `z.iso.datetime()`, whose general ISO 8601 parser is most of a kilobyte
 * gzipped in the bundle of every app that wraps a call (bench/src/check-bundle-size.ts). The JSON
 * Schema says `format: date-time` as well.
 */
const RetryableAt = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));

/**
 * The strict, versioned, JSON-only report of one failure: what every consumer (retry loop, HTTP
 * adapter, agent, job queue, terminal) reads. Unknown keys are rejected.
 */
export const ErrorReport = z.strictObject({
  schemaVersion: z.literal(ERROR_REPORT_SCHEMA_VERSION),
  errorType: ShortText,
  message: z.string().check(z.maxLength(MAX_MESSAGE_LENGTH)),
  category: ErrorCategory,
  reason: FailureReason,
  retryable: z.boolean(),
  userAction: z.strictObject({
    kind: UserActionKind,
    detail: z.optional(z.string().check(z.maxLength(MAX_MESSAGE_LENGTH))),
  }),
  nextStep: NextStep,
  recovery: z.strictObject(RecoveryHints.shape),
  domain: ErrorDomain,
  httpStatus: z.int().check(z.minimum(400), z.maximum(599)),
  provider: ShortText,
  model: z.nullable(ShortText),
  operation: z.optional(ShortText),
  retryAfterSeconds: z.optional(z.number().check(z.minimum(0))),
  /**
   * What `retryAfterSeconds` is (present exactly when it is): `retry_after`, the wait before a
   * retry; `quota_reset`, when a spent allowance resets (a capacity failure is not retried, the
   * wait tells a scheduler when it could be); `provider_wait`, a wait the provider stated on a
   * failure no retry fixes.
   */
  waitKind: z.optional(WaitKind),
  /**
   * When the wait ends (ISO 8601, UTC): the time of the failure plus `retryAfterSeconds`. Present
   * with the wait whenever the failure's time is known; what a scheduler stores to resume at.
   */
  retryableAt: z.optional(RetryableAt),
  /**
   * True for an ambiguous failure (the provider may have processed the request): repeat the call
   * only if doing it twice is safe. `retryable` is then true only when the caller said so.
   */
  retryOnlyIfIdempotent: z.boolean(),
  /** What the retry loop did before giving up: attempts made and the wait before each retry. */
  attempts: z.optional(
    z.strictObject({
      made: z.int().check(z.minimum(1)),
      waitsMs: z.array(z.int().check(z.minimum(0))).check(z.maxLength(100)),
    }),
  ),
  /** True when a retryable failure outlived its retries (attempts or deadline); nextStep is then `fallback`. */
  retriesExhausted: z.optional(z.boolean()),
  /** True when the caller's own AbortSignal ended the call: not a provider failure. */
  callerAborted: z.boolean(),
  providerMetadata: ReportProviderMetadata,
  delivered: z.optional(z.strictObject(DeliveredOutput.shape)),
  /** The rule of classify's table that decided, and the (scrubbed) evidence it matched. */
  decidedBy: z.optional(z.strictObject(DecidedBy.shape)),
});
export type ErrorReport = z.infer<typeof ErrorReport>;

/** Reads a report back from a plain object; throws a `ZodError` when it is not a valid report. */
export function fromDict(value: unknown): ErrorReport {
  return ErrorReport.parse(value);
}

/** Like `fromDict`, but returns zod's result instead of throwing (for a bridge recovering a report). */
export function safeFromDict(value: unknown): ReturnType<typeof ErrorReport.safeParse> {
  try {
    return ErrorReport.safeParse(value);
  } catch (error) {
    return ErrorReport.safeParse({ unreadable: String(error instanceof Error ? error.message : 'value') });
  }
}

/**
 * The report's JSON Schema (draft 2020-12), for consumers in other languages: what the package ships
 * as `@faultline/render/error-report.schema.json` (scripts/generate-schema.ts writes it; a test holds
 * the file equal to this).
 */
export function errorReportJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ErrorReport, {
      target: 'draft-2020-12',
      io: 'output',
      override: ({ zodSchema, jsonSchema }) => {
        if (zodSchema === RetryableAt) jsonSchema.format = 'date-time';
      },
    }),
    title: 'ErrorReport',
    description:
      'The strict, versioned, JSON-only report of one failure classified by faultline (@faultline/render).',
  };
}
