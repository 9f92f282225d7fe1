import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { detectOpenAIBlockedAnswer, OPENAI_PROVIDER, openaiExtractor } from './extract-openai.ts';

export {
  detectOpenAIBlockedAnswer,
  OPENAI_PROVIDER,
  openaiExtractor,
  readOpenAIHttpFailure,
} from './extract-openai.ts';
export {
  detectOpenAIChunkFailure,
  guardOpenAIStream,
  isOpenAITerminalChunk,
  openaiChunkCharacters,
} from './guard-openai-stream.ts';
export {
  AzureInnerError,
  OpenAIInnerError,
  OpenRouterErrorMetadata,
  UpstreamErrorBody,
} from './openai-error-shape.ts';

/**
 * render's `withClassifiedErrors` with `openaiExtractor` preset and `detectOpenAIBlockedAnswer`
 * as `inspectResult`: every failure of `fn` leaves as a FaultlineError whose `cause` is what the
 * openai SDK threw, and a 200 answer stopped by the content filter (`finish_reason:
 * "content_filter"`) is thrown as `content_policy`. Let it through per call with
 * `{ detectBlockedAnswer: false }`; an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: OPENAI_PROVIDER,
  extractors: [openaiExtractor],
  inspectResult: detectOpenAIBlockedAnswer,
});
