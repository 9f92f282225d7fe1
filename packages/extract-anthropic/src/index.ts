import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { ANTHROPIC_PROVIDER, anthropicExtractor, detectAnthropicRefusal } from './extract-anthropic.ts';

export {
  AnthropicErrorBody,
  AnthropicInnerError,
  AnthropicMessageResult,
  parseAnthropicErrorBody,
} from './anthropic-error-shape.ts';
export {
  ANTHROPIC_PROVIDER,
  anthropicExtractor,
  detectAnthropicRefusal,
  readAnthropicHttpFailure,
} from './extract-anthropic.ts';
export { type GuardAnthropicStreamOptions, guardAnthropicStream } from './guard-anthropic-stream.ts';

/**
 * render's `withClassifiedErrors` with the Anthropic extractor preset and `detectAnthropicRefusal`
 * as `inspectResult`, so a `stop_reason: "refusal"` answer is thrown as a content_policy error.
 * Let a refusal through per call with `{ detectBlockedAnswer: false }` (the stream guard's option
 * of the same name); an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: ANTHROPIC_PROVIDER,
  extractors: [anthropicExtractor],
  inspectResult: detectAnthropicRefusal,
});
