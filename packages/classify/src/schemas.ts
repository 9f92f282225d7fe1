import { z } from 'zod';
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
export const ErrorCategory = z.enum(ERROR_CATEGORIES);
export type ErrorCategory = z.infer<typeof ErrorCategory>;

/** The finer cause; drives recovery. One row of the taxonomy table per value. */
export const FailureReason = z.enum(FAILURE_REASONS);
export type FailureReason = z.infer<typeof FailureReason>;

/** Advice for a person. */
export const UserActionKind = z.enum(USER_ACTION_KINDS);
export type UserActionKind = z.infer<typeof UserActionKind>;

/** Drives the HTTP status a server answers with. */
export const ErrorDomain = z.enum(ERROR_DOMAINS);
export type ErrorDomain = z.infer<typeof ErrorDomain>;

/**
 * The one next step an agent takes. `retry_if_idempotent`: the provider may have processed the
 * request (an interrupted call); repeat it only if doing so twice is safe. `stop`: the caller
 * cancelled; nothing to do.
 */
export const NextStep = z.enum(NEXT_STEPS);
export type NextStep = z.infer<typeof NextStep>;

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
export const FailureOrigin = z.enum(FAILURE_ORIGINS);
export type FailureOrigin = z.infer<typeof FailureOrigin>;

/**
 * When a network failure happened relative to the request.
 * - `dns`: resolving the host failed.
 * - `connect`: the connection could not be opened (nothing was sent).
 * - `before_response`: the request was written but no response byte arrived.
 * - `response_body`: the status arrived, then the body was cut or stalled.
 * - `stream`: a streamed answer was cut or stalled after some output.
 * - `unknown`: the phase could not be established.
 */
export const NetworkPhase = z.enum(NETWORK_PHASES);
export type NetworkPhase = z.infer<typeof NetworkPhase>;

/**
 * A condition an SDK raised about itself, recognised by the adapter that knows the SDK (its own
 * words, class and fields) and passed to classify as a code, so that classify never keeps an
 * SDK's wording in its own vocabularies.
 * - `missing_credentials`: the client was built without a key or credentials (nothing was sent).
 * - `missing_region`: the client cannot build a URL without a region or endpoint (nothing was sent).
 * - `stream_incomplete`: the SDK could not assemble an answer from what a stream delivered.
 */
export const SdkCondition = z.enum(SDK_CONDITIONS);
export type SdkCondition = z.infer<typeof SdkCondition>;

/** How much output a stream had delivered before it failed. */
export const DeliveredOutput = z.object({
  chunks: z.number().int().nonnegative(),
  characters: z.number().int().nonnegative(),
});
export type DeliveredOutput = z.infer<typeof DeliveredOutput>;

/**
 * What an extractor learned from one SDK error, with every provider nuance normalised away.
 * `rawBody` is kept in memory only: extractors attach it with `attachRawBody()`, which makes it
 * non-enumerable so that no JSON serialisation of the metadata can carry it.
 */
export const ProviderErrorMetadata = z.object({
  /** The provider key, e.g. `openai`, `anthropic`, `node` for built-in transport extractors. */
  provider: z.string(),
  /** The SDK's error class, e.g. `RateLimitError`, `ApiError`, `ThrottlingException`. */
  sdkErrorType: z.string().optional(),
  /** A human message (the provider's own words when available), scrubbed by render before output. */
  message: z.string(),
  origin: FailureOrigin,
  statusCode: z.number().int().optional(),
  requestId: z.string().optional(),
  /** The wait the provider asked for, in seconds (parsed from headers or the body). */
  retryAfterSeconds: z.number().nonnegative().optional(),
  /** The provider's machine code, e.g. `insufficient_quota`, `context_length_exceeded`. */
  providerCode: z.string().optional(),
  /** The provider's error type/status, e.g. `overloaded_error`, `RESOURCE_EXHAUSTED`. */
  providerType: z.string().optional(),
  /** The request parameter the provider blamed, e.g. `messages`. */
  providerParam: z.string().optional(),
  /** Structured quota identifiers (e.g. Gemini `QuotaFailure.violations[].quotaId`). Outrank message text. */
  quotaIds: z.array(z.string()).optional(),
  networkPhase: NetworkPhase.optional(),
  /** The transport error code found on the cause chain, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  networkCode: z.string().optional(),
  /** The provider's explicit retry hint (`x-should-retry`). Recorded as evidence. */
  shouldRetryHint: z.boolean().optional(),
  /** Attempts the SDK already made on its own (e.g. AWS `$metadata.attempts`). */
  sdkAttempts: z.number().int().nonnegative().optional(),
  /** Stream progress when a stream failed. */
  delivered: DeliveredOutput.optional(),
  /** The reason a success answer was blocked (`content_filter`, `SAFETY`, `refusal` ...). */
  blockReason: z.string().optional(),
  /** A condition the SDK raised about itself, recognised by its adapter (see `SdkCondition`). */
  sdkCondition: SdkCondition.optional(),
  /** Kept in memory only (non-enumerable when attached with `attachRawBody`); never serialised. */
  rawBody: z.string().optional(),
});
export type ProviderErrorMetadata = z.infer<typeof ProviderErrorMetadata>;

export const UserAction = z.object({
  kind: UserActionKind,
  detail: z.string().optional(),
});
export type UserAction = z.infer<typeof UserAction>;

export const RecoveryHints = z.object({
  rotateCredential: z.boolean(),
  fallback: z.boolean(),
  compress: z.boolean(),
});
export type RecoveryHints = z.infer<typeof RecoveryHints>;

/**
 * The stable id of the rule of classify's table that decided a classification (see rules.ts, in
 * order). Ids are never renamed: overrides and dashboards key on them. `assigned` is not a rule of
 * the table: the classification was built for a reason directly (`classificationFor`).
 */
export const RuleId = z.enum(RULE_IDS);
export type RuleId = z.infer<typeof RuleId>;

/** The rule that decided, and a bounded, scrubbed piece of what it matched. */
export const DecidedBy = z.object({
  rule: RuleId,
  evidence: z.string().max(MAX_EVIDENCE_LENGTH).optional(),
});
export type DecidedBy = z.infer<typeof DecidedBy>;

export const Classification = z.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: z.boolean(),
  userAction: UserAction,
  recovery: RecoveryHints,
  domain: ErrorDomain,
  httpStatus: z.number().int().min(400).max(599),
  nextStep: NextStep,
  retryAfterSeconds: z.number().nonnegative().optional(),
  /** True when the caller's own AbortSignal ended the call: re-throw untouched, never retry. */
  callerAborted: z.boolean(),
  /** True when a user-supplied override changed the built-in result. */
  overridden: z.boolean(),
  /**
   * The rule of classify's table that decided, with the evidence it matched. A classification
   * serialised before this field existed reads as `assigned`.
   */
  decidedBy: DecidedBy.default({ rule: 'assigned' }),
});
export type Classification = z.infer<typeof Classification>;
