export {
  AnthropicErrorBody,
  AnthropicInnerError,
  AnthropicMessageResult,
  parseAnthropicErrorBody,
} from './anthropic-error-shape.ts';
export { ANTHROPIC_PROVIDER, anthropicExtractor, detectAnthropicRefusal } from './extract-anthropic.ts';
