// The zod schema of a report (`ErrorReport`), its one reader (`fromDict`), and the JSON Schema it
// publishes for consumers in other languages (`error-report.schema.json`, written by
// `pnpm --filter @faultline/render generate:schema`). The one validator of every report render
// builds, reads back or is handed: zod, as classify's schemas are, rather than a second, hand-written
// copy kept equal by tests.
import {
  DecidedBy,
  DeliveredOutput,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
  NetworkPhase,
  NextStep,
  RecoveryHints,
  UserActionKind,
} from '@faultline/classify';
import { z } from 'zod';
import { MAX_MESSAGE_LENGTH } from './secrets.ts';

/** The version of the `ErrorReport` shape. Bumped on any breaking change to the schema. */
export const ERROR_REPORT_SCHEMA_VERSION = 2;

const ShortText = z.string().max(512);

/** What a report's wait means; see `ErrorReport.waitKind`. */
export const WaitKind = z.enum(['retry_after', 'quota_reset', 'provider_wait']);
export type WaitKind = z.infer<typeof WaitKind>;

/** What the provider said, minus the raw body, headers and anything secret. */
export const ReportProviderMetadata = z
  .object({
    origin: FailureOrigin,
    statusCode: z.number().int().optional(),
    requestId: ShortText.optional(),
    providerCode: ShortText.optional(),
    providerType: ShortText.optional(),
    sdkErrorType: ShortText.optional(),
    networkCode: ShortText.optional(),
    networkPhase: z.optional(NetworkPhase),
    sdkAttempts: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ReportProviderMetadata = z.infer<typeof ReportProviderMetadata>;

/**
 * The strict, versioned, JSON-only report of one failure: what every consumer (retry loop, HTTP
 * adapter, agent, job queue, terminal) reads. Unknown keys are rejected.
 */
export const ErrorReport = z
  .object({
    schemaVersion: z.literal(ERROR_REPORT_SCHEMA_VERSION),
    errorType: ShortText,
    message: z.string().max(MAX_MESSAGE_LENGTH),
    category: ErrorCategory,
    reason: FailureReason,
    retryable: z.boolean(),
    userAction: z
      .object({ kind: UserActionKind, detail: z.string().max(MAX_MESSAGE_LENGTH).optional() })
      .strict(),
    nextStep: NextStep,
    recovery: z.strictObject(RecoveryHints.shape),
    domain: ErrorDomain,
    httpStatus: z.number().int().min(400).max(599),
    provider: ShortText,
    model: ShortText.nullable(),
    operation: ShortText.optional(),
    retryAfterSeconds: z.number().nonnegative().optional(),
    /**
     * What `retryAfterSeconds` is (present exactly when it is): `retry_after`, the wait before a
     * retry; `quota_reset`, when a spent allowance resets (a capacity failure is not retried, the
     * wait tells a scheduler when it could be); `provider_wait`, a wait the provider stated on a
     * failure no retry fixes.
     */
    waitKind: WaitKind.optional(),
    /**
     * True for an ambiguous failure (the provider may have processed the request): repeat the call
     * only if doing it twice is safe. `retryable` is then true only when the caller said so.
     */
    retryOnlyIfIdempotent: z.boolean(),
    /** What the retry loop did before giving up: attempts made and the wait before each retry. */
    attempts: z
      .object({
        made: z.number().int().min(1),
        waitsMs: z.array(z.number().int().nonnegative()).max(100),
      })
      .strict()
      .optional(),
    /** True when a retryable failure outlived its retries (attempts or deadline); nextStep is then `fallback`. */
    retriesExhausted: z.boolean().optional(),
    /** True when the caller's own AbortSignal ended the call: not a provider failure. */
    callerAborted: z.boolean(),
    providerMetadata: ReportProviderMetadata,
    delivered: z.strictObject(DeliveredOutput.shape).optional(),
    /** The rule of classify's table that decided, and the (scrubbed) evidence it matched. */
    decidedBy: z.strictObject(DecidedBy.shape).optional(),
  })
  .strict();
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
    ...z.toJSONSchema(ErrorReport, { target: 'draft-2020-12', io: 'output' }),
    title: 'ErrorReport',
    description:
      'The strict, versioned, JSON-only report of one failure classified by faultline (@faultline/render).',
  };
}
