import type { Extractor, HttpFailureReader, HttpFailureReadOptions } from '@faultline/classify';
import {
  type AdapterStreamGuard,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import {
  HUGGINGFACE_PROVIDER,
  huggingfaceExtractor,
  readHuggingfaceHttpFailure,
} from './extract-huggingface.ts';
import { guardHuggingfaceStream as guardHuggingfaceChunks } from './guard-huggingface-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream and the option types.
// detectBlockedAnswer, inspectResult and readRateLimit are absent (providers.json's "lacks" says why).
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { HuggingfaceErrorBody, HuggingfaceErrorObject } from './huggingface-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'huggingface'`. */
export const PROVIDER: 'huggingface' = HUGGINGFACE_PROVIDER;

/** Reads what @huggingface/inference throws into provider metadata. */
export const extractor: Extractor = huggingfaceExtractor;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readHuggingfaceHttpFailure;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards a @huggingface/inference stream (`chatCompletionStream`, `textGenerationStream`): chunks
 * pass through untouched; an `{"error"}` event, a cut socket, a stall and an end without a finishing
 * chunk become classified FaultlineErrors with `delivered` progress.
 */
export const guardStream: AdapterStreamGuard = guardHuggingfaceChunks;

/**
 * `withClassifiedErrors` with `extractor` preset: every failure of `fn` leaves as a FaultlineError
 * whose `cause` is what @huggingface/inference threw.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
});

/** The guard under its provider-named spelling (providers.json's `streamGuard`): the same function as `guardStream`. */
export const guardHuggingfaceStream: typeof guardStream = guardStream;
