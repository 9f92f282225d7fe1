import type {
  Extractor,
  HttpFailureReader,
  HttpFailureReadOptions,
  ResultInspector,
} from '@faultline/classify';
import {
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  checkOptionKeys,
  type GuardedStream,
  GUARD_STREAM_OPTION_KEYS as RENDER_GUARD_STREAM_OPTION_KEYS,
  type GuardStreamOptions as RenderGuardStreamOptions,
  type StreamChunk,
} from '@faultline/render/toolkit';
import {
  detectGeminiBlockedAnswer as detectWithheldAnswer,
  googleGenaiExtractor as extractGoogleGenai,
  googleGenaiTransportExtractor,
  GOOGLE_GENAI_PROVIDER as PROVIDER_KEY,
  readGoogleGenaiHttpFailure as readGeminiAnswer,
} from './extract-google-genai.ts';
import {
  guardGeminiStream as guardGeminiChunks,
  inspectGeminiResult as inspectGeminiAnswer,
} from './guard-google-genai.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { googleGenaiTransportExtractor } from './extract-google-genai.ts';
export { isEmptyGeminiChunk, isGeminiTerminalChunk } from './guard-google-genai.ts';

/** The provider key this adapter's metadata and reports carry: `'google-genai'`. */
export const PROVIDER: 'google-genai' = PROVIDER_KEY;

/**
 * Reads what @google/genai throws (its `ApiError`, for HTTP errors and error chunks) into provider
 * metadata. Raw transport errors name no SDK: `googleGenaiTransportExtractor` reads those, and the
 * bound `withClassifiedErrors` registers both.
 */
export const extractor: Extractor = extractGoogleGenai;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readGeminiAnswer;

/**
 * A generate-content answer Gemini withheld (`promptFeedback.blockReason`, or every candidate ending
 * with a blocking `finishReason`) as `blocked_response` metadata, else undefined; on a unary
 * result, one chunk, or collected chunks.
 */
export const detectBlockedAnswer: ResultInspector = detectWithheldAnswer;

/**
 * What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`, then collected
 * stream chunks holding an empty chunk (an error chunk genai swallowed) as interrupted.
 */
export const inspectResult: ResultInspector = inspectGeminiAnswer;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the Gemini chunk stream decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

const { readChunk: _readChunk, ...guardKeys } = RENDER_GUARD_STREAM_OPTION_KEYS;
const GUARD_STREAM_OPTION_KEYS = guardKeys satisfies Record<keyof GuardStreamOptions, true>;

/**
 * Guards a `generateContentStream` answer: chunks pass through untouched; an error chunk or a
 * transport drop, an empty chunk (genai 1.x swallowing an error), a withheld answer, a stall of
 * `idleTimeoutMs` and an end without a `finishReason` become classified FaultlineErrors carrying
 * what was delivered. An option this guard does not take is a TypeError.
 */
export function guardStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, GUARD_STREAM_OPTION_KEYS);
  return guardGeminiChunks(stream, options);
}

/**
 * render's `withClassifiedErrors` bound to @google/genai: `extractor`, then
 * `googleGenaiTransportExtractor` (genai throws raw undici errors, which inside this wrapper are
 * genai's), and `inspectResult`, so that a 200 whose answer was withheld by a safety filter is
 * thrown as a `content_policy` error (and collected stream chunks with an empty chunk, an error
 * genai swallowed, as `interrupted`). Let a withheld answer through per call with
 * `{ detectBlockedAnswer: false }` (the swallowed error is still thrown); an `inspectResult` given
 * per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor, googleGenaiTransportExtractor],
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const GOOGLE_GENAI_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const googleGenaiExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readGoogleGenaiHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectGeminiBlockedAnswer: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `inspectResult`, the same name in every adapter; this alias goes in the next minor. */
export const inspectGeminiResult: typeof inspectResult = inspectResult;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardGeminiStream: typeof guardStream = guardStream;
/** @deprecated Renamed `GuardStreamOptions`, the same name in every adapter; this alias goes in the next minor. */
export type GuardGeminiStreamOptions<T = unknown> = GuardStreamOptions<T>;
