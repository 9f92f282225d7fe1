// The schemas an app that wraps one openai call parses with (classify's Classification, render's
// ErrorReport, the openai adapter's error and answer shapes), written in one validator; compared with
// the same schemas in the others by ../src/validators.ts.
import * as z from 'zod/mini';
import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  USER_ACTION_KINDS,
} from '../../packages/classify/src/values.ts';

const ErrorCategory = z.enum(ERROR_CATEGORIES);
export const FailureReason = z.enum(FAILURE_REASONS);
const UserActionKind = z.enum(USER_ACTION_KINDS);
const ErrorDomain = z.enum(ERROR_DOMAINS);
const NextStep = z.enum(NEXT_STEPS);
const FailureOrigin = z.enum(FAILURE_ORIGINS);
const NetworkPhase = z.enum(NETWORK_PHASES);
const RuleId = z.enum(RULE_IDS);
const count = z.int().check(z.nonnegative());
const DeliveredOutput = z.object({ chunks: count, characters: count });
const RecoveryHints = z.object({
  rotateCredential: z.boolean(),
  fallback: z.boolean(),
  compress: z.boolean(),
});
const DecidedBy = z.object({ rule: RuleId, evidence: z.optional(z.string().check(z.maxLength(200))) });
export const Classification = z.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: z.boolean(),
  userAction: z.object({ kind: UserActionKind, detail: z.optional(z.string()) }),
  recovery: RecoveryHints,
  domain: ErrorDomain,
  httpStatus: z.int().check(z.minimum(400), z.maximum(599)),
  nextStep: NextStep,
  retryAfterSeconds: z.optional(z.number().check(z.nonnegative())),
  callerAborted: z.boolean(),
  overridden: z.boolean(),
  decidedBy: z._default(DecidedBy, { rule: 'assigned' }),
});
const ShortText = z.string().check(z.maxLength(512));
const ReportProviderMetadata = z.strictObject({
  origin: FailureOrigin,
  statusCode: z.optional(z.int()),
  requestId: z.optional(ShortText),
  providerCode: z.optional(ShortText),
  providerType: z.optional(ShortText),
  sdkErrorType: z.optional(ShortText),
  networkCode: z.optional(ShortText),
  networkPhase: z.optional(NetworkPhase),
  sdkAttempts: z.optional(z.int().check(z.minimum(0))),
});
export const ErrorReport = z.strictObject({
  schemaVersion: z.literal(2),
  errorType: ShortText,
  message: z.string().check(z.maxLength(2000)),
  category: ErrorCategory,
  reason: FailureReason,
  retryable: z.boolean(),
  userAction: z.strictObject({
    kind: UserActionKind,
    detail: z.optional(z.string().check(z.maxLength(2000))),
  }),
  nextStep: NextStep,
  recovery: z.strictObject(RecoveryHints.shape),
  domain: ErrorDomain,
  httpStatus: z.int().check(z.minimum(400), z.maximum(599)),
  provider: ShortText,
  model: z.nullable(ShortText),
  operation: z.optional(ShortText),
  retryAfterSeconds: z.optional(z.number().check(z.minimum(0))),
  waitKind: z.optional(z.enum(['retry_after', 'quota_reset', 'provider_wait'])),
  retryableAt: z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/))),
  retryOnlyIfIdempotent: z.boolean(),
  attempts: z.optional(
    z.strictObject({
      made: z.int().check(z.minimum(1)),
      waitsMs: z.array(z.int().check(z.minimum(0))).check(z.maxLength(100)),
    }),
  ),
  retriesExhausted: z.optional(z.boolean()),
  callerAborted: z.boolean(),
  providerMetadata: ReportProviderMetadata,
  delivered: z.optional(z.strictObject(DeliveredOutput.shape)),
  decidedBy: z.optional(z.strictObject(DecidedBy.shape)),
});
const Code = z.nullish(z.union([z.string(), z.number()]));
const AzureInnerError = z.looseObject({
  code: z.nullish(z.string()),
  content_filter_result: z.nullish(z.record(z.string(), z.unknown())),
});
const OpenRouterErrorMetadata = z.looseObject({
  raw: z.optional(z.unknown()),
  provider_name: z.nullish(z.string()),
  reasons: z.nullish(z.array(z.string())),
  flagged_input: z.nullish(z.string()),
});
export const OpenAIInnerError = z.looseObject({
  message: z.optional(z.unknown()),
  type: z.nullish(z.string()),
  param: z.nullish(z.string()),
  code: Code,
  status: z.nullish(z.union([z.number(), z.string()])),
  innererror: z.nullish(AzureInnerError),
  metadata: z.nullish(OpenRouterErrorMetadata),
});
export const ChatCompletionLike = z.looseObject({
  object: z.optional(z.string()),
  choices: z.array(
    z.looseObject({
      finish_reason: z.nullish(z.string()),
      message: z.nullish(z.looseObject({ refusal: z.nullish(z.string()) })),
    }),
  ),
});
export const check = {
  inner: (v) => OpenAIInnerError.safeParse(v).success,
  report: (v) => ErrorReport.safeParse(v).success,
  classification: (v) => Classification.safeParse(v).success,
  reason: (v) => FailureReason.safeParse(v).success,
  completion: (v) => ChatCompletionLike.safeParse(v).success,
};
