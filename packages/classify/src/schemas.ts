// One validator for every schema of faultline: zod 4, through `zod/mini`. Measured on these
// schemas: an app bundle (esbuild, minified, gzipped) that parses with them carries about a third
// of what it does with `zod`, and a fresh process imports that bundle in about half the time;
// installed from node_modules either loads whole, zod/mini a little faster. They are zod schemas
// all the same (`safeParse`, `parse`, `z.infer`), and the adapters' lenient vendor shapes use it too.
// Imported as a namespace (`import * as z`): only then can a bundler leave out what is not used.
import * as z from 'zod/mini';
import { RateLimitBudget } from './rate-limit.ts';
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

const count = z.int().check(z.nonnegative());
const optionalString = z.optional(z.string());

/** How much output a stream had delivered before it failed. */
export const DeliveredOutput = z.object({ chunks: count, characters: count });
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
  sdkErrorType: optionalString,
  /** A human message (the provider's own words when available), scrubbed by render before output. */
  message: z.string(),
  origin: FailureOrigin,
  statusCode: z.optional(z.int()),
  requestId: optionalString,
  /** The wait the provider asked for, in seconds (parsed from headers or the body). */
  retryAfterSeconds: z.optional(z.number().check(z.nonnegative())),
  /** What the provider's rate-limit headers said of the key's budget (requests, tokens) with this answer. */
  rateLimit: z.optional(RateLimitBudget),
  /** The provider's machine code, e.g. `insufficient_quota`, `context_length_exceeded`. */
  providerCode: optionalString,
  /** The provider's error type/status, e.g. `overloaded_error`, `RESOURCE_EXHAUSTED`. */
  providerType: optionalString,
  /** The request parameter the provider blamed, e.g. `messages`. */
  providerParam: optionalString,
  /** Structured quota identifiers (e.g. Gemini `QuotaFailure.violations[].quotaId`). Outrank message text. */
  quotaIds: z.optional(z.array(z.string())),
  networkPhase: z.optional(NetworkPhase),
  /** The transport error code found on the cause chain, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
  networkCode: optionalString,
  /** The provider's explicit retry hint (`x-should-retry`). Recorded as evidence. */
  shouldRetryHint: z.optional(z.boolean()),
  /** Attempts the SDK already made on its own (e.g. AWS `$metadata.attempts`). */
  sdkAttempts: z.optional(count),
  /** Stream progress when a stream failed. */
  delivered: z.optional(DeliveredOutput),
  /** The reason a success answer was blocked (`content_filter`, `SAFETY`, `refusal` ...). */
  blockReason: optionalString,
  /** A condition the SDK raised about itself, recognised by its adapter (see `SdkCondition`). */
  sdkCondition: z.optional(SdkCondition),
  /** Kept in memory only (non-enumerable when attached with `attachRawBody`); never serialised. */
  rawBody: optionalString,
});
export type ProviderErrorMetadata = z.infer<typeof ProviderErrorMetadata>;

export const UserAction = z.object({
  kind: UserActionKind,
  detail: optionalString,
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
  evidence: z.optional(z.string().check(z.maxLength(MAX_EVIDENCE_LENGTH))),
});
export type DecidedBy = z.infer<typeof DecidedBy>;

export const Classification = z.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: z.boolean(),
  userAction: UserAction,
  recovery: RecoveryHints,
  domain: ErrorDomain,
  httpStatus: z.int().check(z.minimum(400), z.maximum(599)),
  nextStep: NextStep,
  retryAfterSeconds: z.optional(z.number().check(z.nonnegative())),
  /** True when the caller's own AbortSignal ended the call: re-throw untouched, never retry. */
  callerAborted: z.boolean(),
  /** True when a user-supplied override changed the built-in result. */
  overridden: z.boolean(),
  /**
   * The rule of classify's table that decided, with the evidence it matched. A classification
   * serialised before this field existed reads as `assigned`.
   */
  decidedBy: z._default(DecidedBy, { rule: 'assigned' }),
});
export type Classification = z.infer<typeof Classification>;

/** `Classification.safeParse(value)`'s output, or `undefined` when the value is not a classification. */
export function parseClassification(value: unknown): Classification | undefined {
  const parsed = Classification.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
