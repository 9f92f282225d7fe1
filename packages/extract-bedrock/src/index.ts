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
} from '@faultline/render/toolkit';
import {
  bedrockExtractor as extractBedrock,
  BEDROCK_PROVIDER as PROVIDER_KEY,
  readBedrockHttpFailure as readBedrockAnswer,
} from './extract-bedrock.ts';
import { guardBedrockStream as guardBedrockEvents } from './guard-bedrock-stream.ts';
import {
  detectBedrockBlockedAnswer as detectWithheldAnswer,
  inspectBedrockResult as inspectBedrockAnswer,
} from './inspect-bedrock-result.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult, and the option types. The provider-named spellings are deprecated aliases.
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export {
  AwsResponseMetadata,
  BedrockConverseResult,
  BedrockInvokeModelBody,
  BedrockServiceExceptionSnapshot,
  BedrockStreamExceptionPayload,
} from './bedrock-error-shape.ts';
export { detectTruncatedInvokeModelBody } from './inspect-bedrock-result.ts';

/** The provider key this adapter's metadata and reports carry: `'bedrock'`. */
export const PROVIDER: 'bedrock' = PROVIDER_KEY;

/** Reads what @aws-sdk/client-bedrock-runtime throws into provider metadata. */
export const extractor: Extractor = extractBedrock;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readBedrockAnswer;

/**
 * A Converse/InvokeModel answer a guardrail or the model's filter withheld (Converse `stopReason`
 * `guardrail_intervened`/`content_filtered`, an InvokeModel body with
 * `"amazon-bedrock-guardrailAction": "INTERVENED"`, Anthropic `stop_reason: "refusal"`, Titan
 * `completionReason: "CONTENT_FILTERED"`) as `blocked_response` metadata, else undefined.
 */
export const detectBlockedAnswer: ResultInspector = detectWithheldAnswer;

/**
 * What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`, then a
 * truncated InvokeModel body (which the SDK returns as a success over h2) as interrupted.
 */
export const inspectResult: ResultInspector = inspectBedrockAnswer;

/**
 * The options of `guardStream`: render's `guardStream` options but `readChunk`, which the Bedrock
 * event stream decides. `detectBlockedAnswer: false` lets a withheld answer through as an
 * ordinary event.
 */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

const { readChunk: _readChunk, ...guardKeys } = RENDER_GUARD_STREAM_OPTION_KEYS;
const GUARD_STREAM_OPTION_KEYS = guardKeys satisfies Record<keyof GuardStreamOptions, true>;

/**
 * Guards a Bedrock event stream (ConverseStream's `response.stream`, InvokeModelWithResponseStream's
 * `response.body`): events pass through untouched; an exception frame, a cut mid-frame, an end
 * without the terminal event (the SDK ends silently on a mid-stream `requestTimeout`), a stall of
 * `idleTimeoutMs` and a withheld answer become classified FaultlineErrors carrying what was
 * delivered. An option this guard does not take is a TypeError.
 */
export function guardStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, GUARD_STREAM_OPTION_KEYS);
  return guardBedrockEvents(stream, options);
}

/**
 * render's `withClassifiedErrors` with `extractor` preset and `inspectResult`, so a
 * guardrail-blocked answer is thrown as content_policy and an InvokeModel body cut short (which the
 * SDK returns as a success over h2) as interrupted. Let a guardrail-blocked answer through per call
 * with `{ detectBlockedAnswer: false }` (a cut-short body is still thrown); an `inspectResult` given
 * per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: PROVIDER,
  extractors: [extractor],
  inspectResult,
});

/** @deprecated Renamed `PROVIDER`, the same name in every adapter; this alias goes in the next minor. */
export const BEDROCK_PROVIDER: typeof PROVIDER = PROVIDER;
/** @deprecated Renamed `extractor`, the same name in every adapter; this alias goes in the next minor. */
export const bedrockExtractor: Extractor = extractor;
/** @deprecated Renamed `readHttpFailure`, the same name in every adapter; this alias goes in the next minor. */
export const readBedrockHttpFailure: typeof readHttpFailure = readHttpFailure;
/** @deprecated Renamed `detectBlockedAnswer`, the same name in every adapter; this alias goes in the next minor. */
export const detectBedrockBlockedAnswer: typeof detectBlockedAnswer = detectBlockedAnswer;
/** @deprecated Renamed `inspectResult`, the same name in every adapter; this alias goes in the next minor. */
export const inspectBedrockResult: typeof inspectResult = inspectResult;
/** @deprecated Renamed `guardStream`, the same name in every adapter; this alias goes in the next minor. */
export const guardBedrockStream: typeof guardStream = guardStream;
/** @deprecated Renamed `GuardStreamOptions`, the same name in every adapter; this alias goes in the next minor. */
export type GuardBedrockStreamOptions = GuardStreamOptions;
