import { bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { detectMistralBlockedAnswer } from './blocked-answer.ts';
import { mistralExtractor } from './extract-mistral.ts';

export {
  detectMistralBlockedAnswer,
  detectMistralStreamFailure,
  isMistralTerminalEvent,
  mistralEventCharacters,
} from './blocked-answer.ts';
export { MISTRAL_PROVIDER, mistralExtractor, readMistralHttpFailure } from './extract-mistral.ts';
export { guardMistralStream } from './guard-mistral-stream.ts';
export { MistralErrorBody, MistralValidationIssue } from './mistral-error-shape.ts';

/**
 * `withClassifiedErrors` with mistralExtractor and the blocked-answer check preset: every failure
 * of `fn` leaves as a FaultlineError whose `cause` is what the Mistral SDK threw, and a withheld
 * answer as `content_policy`. Let a withheld answer through per call with
 * `{ detectBlockedAnswer: false }`; an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors = bindWithClassifiedErrors({
  extractors: [mistralExtractor],
  provider: 'mistral',
  inspectResult: detectMistralBlockedAnswer,
});
