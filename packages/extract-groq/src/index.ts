import type {
  Extractor,
  HttpFailureReader,
  HttpFailureReadOptions,
  RateLimitReader,
  ResultInspector,
} from '@faultline/classify';
import {
  type AdapterStreamGuard,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import { detectGroqBlockedAnswer as detectContentFilter } from './blocked-answer.ts';
import {
  groqExtractor as extractGroq,
  GROQ_PROVIDER as PROVIDER_KEY,
  readGroqHttpFailure as readGroqAnswer,
  readGroqRateLimit as readRateLimitOf,
} from './extract-groq.ts';
import { guardGroqStream as guardGroqChunks } from './guard-groq-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { groqChunkCharacters, isGroqTerminalChunk } from './blocked-answer.ts';
export { GroqErrorBody, GroqErrorObject } from './groq-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'groq'`. */
export const PROVIDER: 'groq' = PROVIDER_KEY;

/** Reads what groq-sdk throws into provider metadata. */
export const extractor: Extractor = extractGroq;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readGroqAnswer;

/**
 * The rate-limit budget (requests and tokens: limit, remaining, seconds to reset) an answer's
 * headers state, for successes and failures alike: pass the headers, a `Response`, or the SDK's
 * `withResponse()` result. A failure's budget is already in `error.metadata.rateLimit`. The
 * provider keeps these limits per organization (console.groq.com/docs/rate-limits), not per key.
 */
export const readRateLimit: RateLimitReader = readRateLimitOf;

/**
 * A chat completion (or stream chunk) that arrived with 200 but whose answer was withheld
 * (`finish_reason: "content_filter"`) as `blocked_response` metadata, else undefined.
 */
export const detectBlockedAnswer: ResultInspector = detectContentFilter;

/** What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`. */
export const inspectResult: ResultInspector = detectContentFilter;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards a groq-sdk stream (`groq.chat.completions.create({ stream: true })`): chunks pass through
 * untouched; an error event, a cut socket, a stall, a `content_filter` finish or an end without a
 * chunk carrying `finish_reason` becomes a classified FaultlineError with `delivered` progress.
 * Options given here win over the Groq defaults.
 */
export const guardStream: AdapterStreamGuard = guardGroqChunks;

/**
 * `withClassifiedErrors` with `extractor` and `inspectResult` preset: every failure of `fn` leaves
 * as a FaultlineError whose `cause` is what groq-sdk threw, and a withheld answer as
 * `content_policy`. Let a withheld answer through per call with `{ detectBlockedAnswer: false }`;
 * an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const GROQ_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const groqExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readGroqHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectGroqBlockedAnswer: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardGroqStream: typeof guardStream = guardStream;
