import type { Extractor, HttpFailureReadOptions } from '@faultline/classify';
import {
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import { detectOpenRouterBlockedAnswer } from './blocked-answer.ts';
import {
  OPENROUTER_PROVIDER,
  openrouterExtractor,
  readOpenRouterHttpFailure as readOpenRouterAnswer,
} from './extract-openrouter.ts';
import { guardOpenRouterStream as guardOpenRouterChunks } from './guard-openrouter-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer,
// inspectResult and the option types. readRateLimit is absent (providers.json's "lacks" says why).
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { detectOpenRouterStreamFailure } from './blocked-answer.ts';
export {
  OpenRouterErrorBody,
  OpenRouterErrorMetadata,
  OpenRouterErrorObject,
} from './openrouter-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'openrouter'`. */
export const PROVIDER: typeof OPENROUTER_PROVIDER = OPENROUTER_PROVIDER;

/** Reads what @openrouter/sdk throws into provider metadata. */
export const extractor: Extractor = openrouterExtractor;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out (OpenRouter's `{error:{code,message,metadata}}`, the upstream's words in
 * `metadata.raw`). Without a status, the body is an error sent inside a 200 stream. Total: any
 * status, headers or body.
 */
export const readHttpFailure: typeof readOpenRouterAnswer = readOpenRouterAnswer;

/** The reader under its provider-named spelling: the same function as `readHttpFailure`. */
export const readOpenRouterHttpFailure: typeof readHttpFailure = readHttpFailure;

/**
 * A chat result (or stream chunk) that arrived with 200 but whose answer was withheld
 * (`finishReason: "content_filter"`) as `blocked_response` metadata, else undefined.
 */
export const detectBlockedAnswer: typeof detectOpenRouterBlockedAnswer = detectOpenRouterBlockedAnswer;

/** What `withClassifiedErrors` reads a success result with: `detectBlockedAnswer`. */
export const inspectResult: typeof detectOpenRouterBlockedAnswer = detectOpenRouterBlockedAnswer;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards an OpenRouter chat stream (`chat.send` with `stream: true`): chunks pass through untouched;
 * a chunk carrying `error` (`finish_reason: "error"`), a `content_filter` finish, an error event the
 * SDK cannot parse, a cut socket, a stall and an end without a finish reason become classified
 * FaultlineErrors with `delivered` progress. Options given here win over the OpenRouter defaults.
 */
export const guardStream: typeof guardOpenRouterChunks = guardOpenRouterChunks;

/** The guard under its provider-named spelling (providers.json's `streamGuard`): the same function as `guardStream`. */
export const guardOpenRouterStream: typeof guardStream = guardStream;

/**
 * `withClassifiedErrors` with `extractor` and `inspectResult` preset: every failure of `fn` leaves
 * as a FaultlineError whose `cause` is what @openrouter/sdk threw, and a withheld answer as
 * `content_policy`. Let a withheld answer through per call with `{ detectBlockedAnswer: false }`.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
  inspectResult,
});
