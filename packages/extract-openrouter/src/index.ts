import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { OPENROUTER_PROVIDER, openrouterExtractor, readOpenrouterHttpFailure } from './extract-openrouter.ts';

// The common adapter set every adapter exports under the same names (tools/parity checks it):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure and their option types.
// guardStream, detectBlockedAnswer and inspectResult join them when OpenRouter streams or can
// withhold an answer in a 200; until then providers.json's "lacks" says why they are absent.
export type { HttpFailureReadOptions as ReadHttpFailureOptions } from '@faultline/classify';
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { OpenrouterErrorBody, OpenrouterErrorObject } from './openrouter-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'openrouter'`. */
export const PROVIDER: typeof OPENROUTER_PROVIDER = OPENROUTER_PROVIDER;

/** Reads what @openrouter/sdk throws into provider metadata. */
export const extractor = openrouterExtractor;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: typeof readOpenrouterHttpFailure = readOpenrouterHttpFailure;

/**
 * render's `withClassifiedErrors` with `extractor` preset: every failure of `fn` leaves as
 * a FaultlineError whose `cause` is what @openrouter/sdk threw.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: PROVIDER,
  extractors: [extractor],
});
