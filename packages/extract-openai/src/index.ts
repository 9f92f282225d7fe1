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
import {
  detectOpenAIBlockedAnswer as detectContentFilter,
  openaiExtractor as extractOpenAI,
  OPENAI_PROVIDER as PROVIDER_KEY,
  readOpenAIHttpFailure as readOpenAIAnswer,
  readOpenAIRateLimit as readRateLimitOf,
} from './extract-openai.ts';
import { guardOpenAIStream as guardOpenAIEvents } from './guard-openai-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export {
  detectOpenAIChunkFailure,
  isOpenAITerminalChunk,
  openaiChunkCharacters,
} from './guard-openai-stream.ts';
export {
  AzureInnerError,
  OpenAIInnerError,
  OpenRouterErrorMetadata,
  UpstreamErrorBody,
} from './openai-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'openai'`. */
export const PROVIDER: 'openai' = PROVIDER_KEY;

/** Reads what the openai SDK throws (and OpenAI-compatible answers: Azure, OpenRouter) into metadata. */
export const extractor: Extractor = extractOpenAI;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readOpenAIAnswer;

/**
 * The rate-limit budget (requests and tokens: limit, remaining, seconds to reset) an answer's
 * headers state, for successes and failures alike: pass the headers, a `Response`, or the SDK's
 * `withResponse()` result. A failure's budget is already in `error.metadata.rateLimit`. The
 * provider keeps these limits per organization and project (platform.openai.com/docs/guides/rate-limits), not per key.
 */
export const readRateLimit: RateLimitReader = readRateLimitOf;

/**
 * A 200 answer stopped by the content filter (`finish_reason: "content_filter"`) as
 * `blocked_response` metadata, else undefined.
 */
export const detectBlockedAnswer: ResultInspector = detectContentFilter;

/** What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`. */
export const inspectResult: ResultInspector = detectContentFilter;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards an openai Chat Completions or Responses stream: chunks pass through untouched; a stall, an
 * end without a finish reason, an error event and a `content_filter` finish become classified
 * FaultlineErrors carrying what was delivered. Options given here win over the OpenAI defaults.
 */
export const guardStream: AdapterStreamGuard = guardOpenAIEvents;

/**
 * render's `withClassifiedErrors` with `extractor` preset and `inspectResult`: every failure of `fn`
 * leaves as a FaultlineError whose `cause` is what the openai SDK threw, and a 200 answer stopped
 * by the content filter (`finish_reason: "content_filter"`) is thrown as `content_policy`. Let it
 * through per call with `{ detectBlockedAnswer: false }`; an `inspectResult` given per call runs
 * after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: PROVIDER,
  extractors: [extractor],
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const OPENAI_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const openaiExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readOpenAIHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectOpenAIBlockedAnswer: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardOpenAIStream: typeof guardStream = guardStream;
