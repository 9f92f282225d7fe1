import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { googleGenaiExtractor, googleGenaiTransportExtractor } from './extract-google-genai.ts';
import { inspectGeminiResult } from './guard-google-genai.ts';

export {
  detectGeminiBlockedAnswer,
  GOOGLE_GENAI_PROVIDER,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
  readGoogleGenaiHttpFailure,
} from './extract-google-genai.ts';
export {
  type GuardGeminiStreamOptions,
  guardGeminiStream,
  inspectGeminiResult,
  isEmptyGeminiChunk,
  isGeminiTerminalChunk,
} from './guard-google-genai.ts';

/**
 * render's `withClassifiedErrors` bound to @google/genai: `googleGenaiExtractor`, then
 * `googleGenaiTransportExtractor` (genai throws raw undici errors, which inside this wrapper are
 * genai's), and `inspectGeminiResult` as `inspectResult`, so that a 200 whose answer was
 * withheld by a safety filter is thrown as a `content_policy` error (and collected stream chunks
 * with an empty chunk, an error genai swallowed, as `interrupted`). Let a withheld answer through
 * per call with `{ detectBlockedAnswer: false }` (the swallowed error is still thrown); an
 * `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [googleGenaiExtractor, googleGenaiTransportExtractor],
  inspectResult: inspectGeminiResult,
});
