import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render';
import {
  detectGeminiBlockedAnswer,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
} from './extract-google-genai.ts';

export {
  detectGeminiBlockedAnswer,
  GOOGLE_GENAI_PROVIDER,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
} from './extract-google-genai.ts';
export {
  type GuardGeminiStreamOptions,
  guardGeminiStream,
  isEmptyGeminiChunk,
  isGeminiTerminalChunk,
} from './guard-google-genai.ts';

/**
 * render's `withClassifiedErrors` bound to @google/genai: `googleGenaiExtractor`, then
 * `googleGenaiTransportExtractor` (genai throws raw undici errors, which inside this wrapper are
 * genai's), and `detectGeminiBlockedAnswer` as `inspectResult`, so that a 200 whose answer was
 * withheld by a safety filter is thrown as a `content_policy` error. Opt out per call by passing
 * `inspectResult: undefined` explicitly (per-call options win over the preset ones).
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  extractors: [googleGenaiExtractor, googleGenaiTransportExtractor],
  inspectResult: detectGeminiBlockedAnswer,
});
