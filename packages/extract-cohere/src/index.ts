import type { Extractor, HttpFailureReader, HttpFailureReadOptions } from '@faultline/classify';
import {
  type AdapterStreamGuard,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import { COHERE_PROVIDER, cohereExtractor, readCohereHttpFailure } from './extract-cohere.ts';
import { guardCohereStream as guardCohereEvents } from './guard-cohere-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream and the option types.
// detectBlockedAnswer, inspectResult and readRateLimit are absent (providers.json's "lacks" says why).
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { CohereErrorBody } from './cohere-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'cohere'`. */
export const PROVIDER: 'cohere' = COHERE_PROVIDER;

/** Reads what cohere-ai throws into provider metadata. */
export const extractor: Extractor = cohereExtractor;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readCohereHttpFailure;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards a Cohere v2 chat stream (`await cohere.chatStream({ ... })`): events pass through untouched;
 * a failed `message-end`, a cut socket, a stall and an end without `message-end` become classified
 * FaultlineErrors with `delivered` progress. Options given here win over the Cohere defaults.
 */
export const guardStream: AdapterStreamGuard = guardCohereEvents;

/**
 * `withClassifiedErrors` with `extractor` preset: every failure of `fn` leaves as a FaultlineError
 * whose `cause` is what cohere-ai threw.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
});

/** The guard under its provider-named spelling (providers.json's `streamGuard`): the same function as `guardStream`. */
export const guardCohereStream: typeof guardStream = guardStream;
