// The schemas an app that wraps one openai call parses with (classify's Classification, render's
// ErrorReport, the openai adapter's error and answer shapes), written in one validator; compared with
// the same schemas in the others by ../src/validators.ts.
import * as v from 'valibot';
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

const ErrorCategory = v.picklist(ERROR_CATEGORIES);
export const FailureReason = v.picklist(FAILURE_REASONS);
const UserActionKind = v.picklist(USER_ACTION_KINDS);
const ErrorDomain = v.picklist(ERROR_DOMAINS);
const NextStep = v.picklist(NEXT_STEPS);
const FailureOrigin = v.picklist(FAILURE_ORIGINS);
const NetworkPhase = v.picklist(NETWORK_PHASES);
const RuleId = v.picklist(RULE_IDS);
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const int = v.pipe(v.number(), v.integer());
const DeliveredOutput = { chunks: count, characters: count };
const RecoveryHints = { rotateCredential: v.boolean(), fallback: v.boolean(), compress: v.boolean() };
const DecidedBy = { rule: RuleId, evidence: v.optional(v.pipe(v.string(), v.maxLength(200))) };
export const Classification = v.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  userAction: v.object({ kind: UserActionKind, detail: v.optional(v.string()) }),
  recovery: v.object(RecoveryHints),
  domain: ErrorDomain,
  httpStatus: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  nextStep: NextStep,
  retryAfterSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
  callerAborted: v.boolean(),
  overridden: v.boolean(),
  decidedBy: v.optional(v.object(DecidedBy), { rule: 'assigned' }),
});
const ShortText = v.pipe(v.string(), v.maxLength(512));
const ReportProviderMetadata = v.strictObject({
  origin: FailureOrigin,
  statusCode: v.optional(int),
  requestId: v.optional(ShortText),
  providerCode: v.optional(ShortText),
  providerType: v.optional(ShortText),
  sdkErrorType: v.optional(ShortText),
  networkCode: v.optional(ShortText),
  networkPhase: v.optional(NetworkPhase),
  sdkAttempts: v.optional(count),
});
export const ErrorReport = v.strictObject({
  schemaVersion: v.literal(2),
  errorType: ShortText,
  message: v.pipe(v.string(), v.maxLength(2000)),
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  userAction: v.strictObject({
    kind: UserActionKind,
    detail: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  }),
  nextStep: NextStep,
  recovery: v.strictObject(RecoveryHints),
  domain: ErrorDomain,
  httpStatus: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  provider: ShortText,
  model: v.nullable(ShortText),
  operation: v.optional(ShortText),
  retryAfterSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
  waitKind: v.optional(v.picklist(['retry_after', 'quota_reset', 'provider_wait'])),
  retryableAt: v.optional(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/))),
  retryOnlyIfIdempotent: v.boolean(),
  attempts: v.optional(
    v.strictObject({
      made: v.pipe(v.number(), v.integer(), v.minValue(1)),
      waitsMs: v.pipe(v.array(count), v.maxLength(100)),
    }),
  ),
  retriesExhausted: v.optional(v.boolean()),
  callerAborted: v.boolean(),
  providerMetadata: ReportProviderMetadata,
  delivered: v.optional(v.strictObject(DeliveredOutput)),
  decidedBy: v.optional(v.strictObject(DecidedBy)),
});
const Code = v.nullish(v.union([v.string(), v.number()]));
const AzureInnerError = v.looseObject({
  code: v.nullish(v.string()),
  content_filter_result: v.nullish(v.record(v.string(), v.unknown())),
});
const OpenRouterErrorMetadata = v.looseObject({
  raw: v.optional(v.unknown()),
  provider_name: v.nullish(v.string()),
  reasons: v.nullish(v.array(v.string())),
  flagged_input: v.nullish(v.string()),
});
export const OpenAIInnerError = v.looseObject({
  message: v.optional(v.unknown()),
  type: v.nullish(v.string()),
  param: v.nullish(v.string()),
  code: Code,
  status: v.nullish(v.union([v.number(), v.string()])),
  innererror: v.nullish(AzureInnerError),
  metadata: v.nullish(OpenRouterErrorMetadata),
});
export const ChatCompletionLike = v.looseObject({
  object: v.optional(v.string()),
  choices: v.array(
    v.looseObject({
      finish_reason: v.nullish(v.string()),
      message: v.nullish(v.looseObject({ refusal: v.nullish(v.string()) })),
    }),
  ),
});
export const check = {
  inner: (x) => v.safeParse(OpenAIInnerError, x).success,
  report: (x) => v.safeParse(ErrorReport, x).success,
  classification: (x) => v.safeParse(Classification, x).success,
  reason: (x) => v.safeParse(FailureReason, x).success,
  completion: (x) => v.safeParse(ChatCompletionLike, x).success,
};
