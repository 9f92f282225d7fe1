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
import { detectMistralBlockedAnswer as detectContentFilter } from './blocked-answer.ts';
import {
  mistralExtractor as extractMistral,
  MISTRAL_PROVIDER as PROVIDER_KEY,
  readMistralHttpFailure as readMistralAnswer,
  readMistralRateLimit as readRateLimitOf,
} from './extract-mistral.ts';
import { guardMistralStream as guardMistralEvents } from './guard-mistral-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export {
  detectMistralStreamFailure,
  isMistralTerminalEvent,
  mistralEventCharacters,
} from './blocked-answer.ts';
export { MistralErrorBody, MistralValidationIssue } from './mistral-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'mistral'`. */
export const PROVIDER: 'mistral' = PROVIDER_KEY;

/** Reads what @mistralai/mistralai throws into provider metadata. */
export const extractor: Extractor = extractMistral;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readMistralAnswer;

/**
 * The rate-limit budget (requests and tokens: limit, remaining, seconds to reset) an answer's
 * headers state, for successes and failures alike: pass the headers, a `Response`, or the SDK's
 * `withResponse()` result. A failure's budget is already in `error.metadata.rateLimit`. The
 * provider keeps these limits per workspace, not per key.
 */
export const readRateLimit: RateLimitReader = readRateLimitOf;

/**
 * A chat completion (or stream event) that arrived with 200 but whose answer was withheld
 * (`finishReason: "content_filter"`) as `blocked_response` metadata, else undefined.
 */
export const detectBlockedAnswer: ResultInspector = detectContentFilter;

/** What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`. */
export const inspectResult: ResultInspector = detectContentFilter;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards a Mistral stream (`await mistral.chat.stream(...)`, `fim.stream`, `agents.stream`): events
 * pass through untouched; a finish reason `error` or `content_filter`, an error body sent as an
 * event, a cut socket, a stall and an end without a finish reason become classified FaultlineErrors
 * with `delivered` progress. Options given here win over the Mistral defaults.
 */
export const guardStream: AdapterStreamGuard = guardMistralEvents;

/**
 * `withClassifiedErrors` with `extractor` and `inspectResult` preset: every failure of `fn` leaves
 * as a FaultlineError whose `cause` is what the Mistral SDK threw, and a withheld answer as
 * `content_policy`. Let a withheld answer through per call with `{ detectBlockedAnswer: false }`;
 * an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const MISTRAL_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const mistralExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readMistralHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectMistralBlockedAnswer: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardMistralStream: typeof guardStream = guardStream;
