import type { Extractor, HttpFailureReader, HttpFailureReadOptions } from '@faultline/classify';
import {
  type AdapterStreamGuard,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type GuardStreamOptions as RenderGuardStreamOptions,
} from '@faultline/render/toolkit';
import {
  ollamaExtractor as extractOllama,
  OLLAMA_PROVIDER as PROVIDER_KEY,
  readOllamaHttpFailure as readOllamaAnswer,
} from './extract-ollama.ts';
import { guardOllamaStream as guardOllamaParts } from './guard-ollama-stream.ts';

// Every adapter exports the same names for the same ideas (tools/parity checks the set):
// PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream and the option types.
// detectBlockedAnswer and inspectResult are absent: Ollama withholds nothing in a 200
// (providers.json's "lacks" says so).
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export { OllamaErrorBody, OllamaErrorObject } from './ollama-error-shape.ts';

/** The provider key this adapter's metadata and reports carry: `'ollama'`. */
export const PROVIDER: 'ollama' = PROVIDER_KEY;

/** Reads what ollama (ollama-js) throws into provider metadata. */
export const extractor: Extractor = extractOllama;

/** The options of `readHttpFailure`. */
export type ReadHttpFailureOptions = HttpFailureReadOptions;

/**
 * This extractor's rules for a failed answer read by any HTTP client: `{ status, headers, body }`
 * in, provider metadata out. Total: any status, headers or body.
 */
export const readHttpFailure: HttpFailureReader = readOllamaAnswer;

/** The options of `guardStream`: render's `guardStream` options but `readChunk`, which the adapter decides. */
export type GuardStreamOptions<T = unknown> = Omit<RenderGuardStreamOptions<T>, 'readChunk'>;

/**
 * Guards an Ollama stream (`await ollama.chat({ ..., stream: true })`, `generate`): parts pass
 * through untouched; an `{"error"}` line, a cut socket, a stall and an end without `done` become
 * classified FaultlineErrors with `delivered` progress. Options given here win over the Ollama
 * defaults.
 */
export const guardStream: AdapterStreamGuard = guardOllamaParts;

/**
 * `withClassifiedErrors` with `extractor` preset: every failure of `fn` leaves as a FaultlineError
 * whose `cause` is what ollama-js threw.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [extractor],
  provider: PROVIDER,
});

/** The guard under its provider-named spelling (providers.json's `streamGuard`): the same function as `guardStream`. */
export const guardOllamaStream: typeof guardStream = guardStream;
