import type {
  Extractor,
  HttpFailureReader,
  HttpFailureReadOptions,
  RateLimitReader,
  ResultInspector,
} from '@faultline/classify';
import {
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  checkOptionKeys,
  type GuardedStream,
  GUARD_STREAM_OPTION_KEYS as RENDER_GUARD_STREAM_OPTION_KEYS,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import {
  detectAnthropicRefusal as detectRefusal,
  anthropicExtractor as extractAnthropic,
  ANTHROPIC_PROVIDER as PROVIDER_KEY,
  readAnthropicHttpFailure as readAnthropicAnswer,
  readAnthropicRateLimit as readRateLimitOf,
} from './extract-anthropic.ts';
import { guardAnthropicStream as guardAnthropicEvents } from './guard-anthropic-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export {
  AnthropicErrorBody,
  AnthropicInnerError,
  AnthropicMessageResult,
  parseAnthropicErrorBody,
} from './anthropic-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'anthropic'`. */
export const PROVIDER: 'anthropic' = PROVIDER_KEY;

/** Reads what @anthropic-ai/sdk throws into provider metadata. */
export const extractor: Extractor = extractAnthropic;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readAnthropicAnswer;

/**
 * The rate-limit budget (requests and tokens: limit, remaining, seconds to reset) an answer's
 * headers state, for successes and failures alike: pass the headers, a `Response`, or the SDK's
 * `withResponse()` result. A failure's budget is already in `error.metadata.rateLimit`. The
 * provider keeps these limits per organization (docs.anthropic.com/en/api/rate-limits), not per key.
 */
export const readRateLimit: RateLimitReader = readRateLimitOf;

/** A message the model declined to write (`stop_reason: "refusal"`) as `blocked_response` metadata, else undefined. */
export const detectBlockedAnswer: ResultInspector = detectRefusal;

/** What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`. */
export const inspectResult: ResultInspector = detectRefusal;

/**
 * The options of `guardStream`: render's `guardStream` options but `readChunk`, which the
 * Anthropic event stream decides. A refusal is thrown as content_policy unless
 * `detectBlockedAnswer` is `false`.
 */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

const { readChunk: _readChunk, ...guardKeys } = RENDER_GUARD_STREAM_OPTION_KEYS;
const GUARD_STREAM_OPTION_KEYS = guardKeys satisfies Record<keyof GuardStreamOptions, true>;

/**
 * Guards an Anthropic Messages stream (`messages.create({ stream: true })`, `messages.stream()`, and
 * the same on `beta.messages`): events pass through untouched; an end without `message_stop`, a
 * stall of `idleTimeoutMs`, an in-stream error and a refusal become classified FaultlineErrors
 * carrying what was delivered; the helper's result methods (`finalMessage()` …) run under the
 * guard. Pass the same `signal` as to the SDK. An option this guard does not take is a TypeError.
 */
export function guardStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, GUARD_STREAM_OPTION_KEYS);
  return guardAnthropicEvents(stream, options);
}

/**
 * render's `withClassifiedErrors` with `extractor` preset and `inspectResult`, so a
 * `stop_reason: "refusal"` answer is thrown as a content_policy error. Let a refusal through per
 * call with `{ detectBlockedAnswer: false }` (the stream guard's option of the same name); an
 * `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: PROVIDER,
  extractors: [extractor],
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const ANTHROPIC_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const anthropicExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readAnthropicHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectAnthropicRefusal: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardAnthropicStream: typeof guardStream = guardStream;
/** @deprecated Renamed `GuardStreamOptions`, the same name in every adapter; this alias goes in the next minor. */
export type GuardAnthropicStreamOptions = GuardStreamOptions;
