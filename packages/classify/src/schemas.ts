// One validator for every schema of faultline: valibot 1. Its schemas are plain objects checked by
// free functions (`v.safeParse(schema, value)`), so an app's bundler keeps only the checks these
// schemas use (bench/src/validators.ts weighs it against zod/mini on the same schemas), and its
// package is one small build, where zod ships every API it has ever had; the adapters' lenient
// vendor shapes use it too. Imported as a namespace (`import * as v`): only then can a bundler
// leave out what is not used.
import * as v from 'valibot';
import { count, finiteNumber, RateLimitBudget } from './rate-limit.ts';
import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  MAX_EVIDENCE_LENGTH,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  SDK_CONDITIONS,
  USER_ACTION_KINDS,
} from './values.ts';

export { MAX_EVIDENCE_LENGTH };

/**
 * What drives the retry decision. Only `transient` is retryable by default (`ambiguous` too when the
 * caller says the call is idempotent). `cancelled` is the caller's own abort: not a failure at all.
 */
export const ErrorCategory = v.picklist(ERROR_CATEGORIES);
export type ErrorCategory = v.InferOutput<typeof ErrorCategory>;

/** The finer cause; drives recovery. One row of the taxonomy table per value. */
export const FailureReason = v.picklist(FAILURE_REASONS);
export type FailureReason = v.InferOutput<typeof FailureReason>;

/** Advice for a person. */
export const UserActionKind = v.picklist(USER_ACTION_KINDS);
export type UserActionKind = v.InferOutput<typeof UserActionKind>;

/** Drives the HTTP status a server answers with. */
export const ErrorDomain = v.picklist(ERROR_DOMAINS);
export type ErrorDomain = v.InferOutput<typeof ErrorDomain>;

/**
 * The one next step an agent takes. `retry_if_idempotent`: the provider may have processed the
 * request (an interrupted call); repeat it only if doing so twice is safe. `stop`: the caller
 * cancelled; nothing to do.
 */
export const NextStep = v.picklist(NEXT_STEPS);
export type NextStep = v.InferOutput<typeof NextStep>;

/**
 * Where a failure came from, as far as the extractor could tell.
 * - `http`: an HTTP error status (or a provider error body) answered the request.
 * - `stream_event`: an error event inside a stream that started with a success status.
 * - `network`: a transport failure (DNS, refused, reset, cut); see `networkPhase`/`networkCode`.
 * - `timeout`: a deadline fired (the SDK's or ours); see `networkPhase` for when.
 * - `abort`: the caller's own AbortSignal fired: not a provider failure.
 * - `malformed_response`: a success status whose body could not be read (bad JSON, truncated).
 * - `blocked_response`: a success status whose answer was withheld by a safety filter.
 * - `local`: a programming error in the caller's or our own code.
 * - `validation`: the SDK rejected its own input or the response shape before/after sending.
 * - `unknown`: none of the above could be established.
 */
export const FailureOrigin = v.picklist(FAILURE_ORIGINS);
export type FailureOrigin = v.InferOutput<typeof FailureOrigin>;

/**
 * When a network failure happened relative to the request.
 * - `dns`: resolving the host failed.
 * - `connect`: the connection could not be opened (nothing was sent).
 * - `before_response`: the request was written but no response byte arrived.
 * - `response_body`: the status arrived, then the body was cut or stalled.
 * - `stream`: a streamed answer was cut or stalled after some output.
 * - `unknown`: the phase could not be established.
 */
export const NetworkPhase = v.picklist(NETWORK_PHASES);
export type NetworkPhase = v.InferOutput<typeof NetworkPhase>;

/**
 * A condition an SDK raised about itself, recognised by the adapter that knows the SDK (its own
 * words, class and fields) and passed to classify as a code, so that classify never keeps an
 * SDK's wording in its own vocabularies.
 * - `missing_credentials`: the client was built without a key or credentials (nothing was sent).
 * - `missing_region`: the client cannot build a URL without a region or endpoint (nothing was sent).
 * - `stream_incomplete`: the SDK could not assemble an answer from what a stream delivered.
 */
export const SdkCondition = v.picklist(SDK_CONDITIONS);
export type SdkCondition = v.InferOutput<typeof SdkCondition>;

const optionalString = v.optional(v.string());

/**
 * A field of a vendor's body in an adapter's lenient shape: it may be absent, and one of the wrong
 * type reads as absent, so that a vendor changing one field never makes the whole body unreadable.
 */
export const lenientField = <T extends v.GenericSchema>(schema: T) =>
  v.fallback(v.optional(schema), undefined);

/** How much output a stream had delivered before it failed. */
export const DeliveredOutput = v.object({ chunks: count, characters: count });
export type DeliveredOutput = v.InferOutput<typeof DeliveredOutput>;

/**
 * What an extractor learned from one SDK error, with every provider nuance normalised away.
 * `rawBody` is kept in memory only: extractors attach it with `attachRawBody()`, which makes it
 * non-enumerable so that no JSON serialisation of the metadata can carry it.
 */
export const ProviderErrorMetadata = v.object({
  /** The provider key, e.g. `openai`, `anthropic`, `node` for built-in transport extractors. */
  provider: v.string(),
  /** The SDK's error class, e.g. `RateLimitError`, `ApiError`, `ThrottlingException`. */
  sdkErrorType: optionalString,
  /** A human message (the provider's own words when available), scrubbed by render before output. */
  message: v.string(),
  origin: FailureOrigin,
  statusCode: v.optional(v.pipe(v.number(), v.safeInteger())),
  requestId: optionalString,
  /** The wait the provider asked for, in seconds (parsed from headers or the body). */
  retryAfterSeconds: v.optional(v.pipe(finiteNumber, v.minValue(0))),
  /** What the provider's rate-limit headers said of the key's budget (requests, tokens) with this answer. */
  rateLimit: v.optional(RateLimitBudget),
  /** The provider's machine code, e.g. `insufficient_quota`, `context_length_exceeded`. */
  providerCode: optionalString,
  /** The provider's error type/status, e.g. `overloaded_error`, `RESOURCE_EXHAUSTED`. */
  providerType: optionalString,
  /** The request parameter the provider blamed, e.g. `messages`. */
  providerParam: optionalString,
  /** Structured quota identifiers (e.g. Gemini `QuotaFailure.violations[].quotaId`). Outrank message text. */
  quotaIds: v.optional(v.array(v.string())),
  networkPhase: v.optional(NetworkPhase),
  /** The transport error code found on the cause chain, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  networkCode: optionalString,
  /** The provider's explicit retry hint (`x-should-retry`). Recorded as evidence. */
  shouldRetryHint: v.optional(v.boolean()),
  /** Attempts the SDK already made on its own (e.g. AWS `$metadata.attempts`). */
  sdkAttempts: v.optional(count),
  /** Stream progress when a stream failed. */
  delivered: v.optional(DeliveredOutput),
  /** The reason a success answer was blocked (`content_filter`, `SAFETY`, `refusal` ...). */
  blockReason: optionalString,
  /** A condition the SDK raised about itself, recognised by its adapter (see `SdkCondition`). */
  sdkCondition: v.optional(SdkCondition),
  /** Kept in memory only (non-enumerable when attached with `attachRawBody`); never serialised. */
  rawBody: optionalString,
});
export type ProviderErrorMetadata = v.InferOutput<typeof ProviderErrorMetadata>;

export const UserAction = v.object({
  kind: UserActionKind,
  detail: optionalString,
});
export type UserAction = v.InferOutput<typeof UserAction>;

export const RecoveryHints = v.object({
  rotateCredential: v.boolean(),
  fallback: v.boolean(),
  compress: v.boolean(),
});
export type RecoveryHints = v.InferOutput<typeof RecoveryHints>;

/**
 * The stable id of the rule of classify's table that decided a classification (see rules.ts, in
 * order). Ids are never renamed: overrides and dashboards key on them. `assigned` is not a rule of
 * the table: the classification was built for a reason directly (`classificationFor`).
 */
export const RuleId = v.picklist(RULE_IDS);
export type RuleId = v.InferOutput<typeof RuleId>;

/** The rule that decided, and a bounded, scrubbed piece of what it matched. */
export const DecidedBy = v.object({
  rule: RuleId,
  evidence: v.optional(v.pipe(v.string(), v.maxLength(MAX_EVIDENCE_LENGTH))),
});
export type DecidedBy = v.InferOutput<typeof DecidedBy>;

export const Classification = v.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  userAction: UserAction,
  recovery: RecoveryHints,
  domain: ErrorDomain,
  httpStatus: v.pipe(v.number(), v.safeInteger(), v.minValue(400), v.maxValue(599)),
  nextStep: NextStep,
  retryAfterSeconds: v.optional(v.pipe(finiteNumber, v.minValue(0))),
  /** True when the caller's own AbortSignal ended the call: re-throw untouched, never retry. */
  callerAborted: v.boolean(),
  /** True when a user-supplied override changed the built-in result. */
  overridden: v.boolean(),
  /**
   * The rule of classify's table that decided, with the evidence it matched. A classification
   * serialised before this field existed reads as `assigned`.
   */
  decidedBy: v.optional(DecidedBy, { rule: 'assigned' }),
});
export type Classification = v.InferOutput<typeof Classification>;

/** `v.safeParse(Classification, value)`'s output, or `undefined` when the value is not a classification. */
export function parseClassification(value: unknown): Classification | undefined {
  const parsed = v.safeParse(Classification, value);
  return parsed.success ? parsed.output : undefined;
}
