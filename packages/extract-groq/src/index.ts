import { bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { detectGroqBlockedAnswer } from './blocked-answer.ts';
import { groqExtractor } from './extract-groq.ts';

export { detectGroqBlockedAnswer, groqChunkCharacters, isGroqTerminalChunk } from './blocked-answer.ts';
export { GROQ_PROVIDER, groqExtractor, readGroqHttpFailure } from './extract-groq.ts';
export { GroqErrorBody, GroqErrorObject } from './groq-error-shape.ts';
export { guardGroqStream } from './guard-groq-stream.ts';

/**
 * `withClassifiedErrors` with groqExtractor and the blocked-answer check preset: every failure of
 * `fn` leaves as a FaultlineError whose `cause` is what groq-sdk threw, and a withheld answer as
 * `content_policy`. Let a withheld answer through per call with `{ detectBlockedAnswer: false }`;
 * an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors = bindWithClassifiedErrors({
  extractors: [groqExtractor],
  provider: 'groq',
  inspectResult: detectGroqBlockedAnswer,
});
