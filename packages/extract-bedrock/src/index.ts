export type { BedrockConverseResult, BedrockInvokeModelBody } from './bedrock-error-shape.ts';
export { BEDROCK_PROVIDER, bedrockExtractor } from './extract-bedrock.ts';
export {
  detectBedrockBlockedAnswer,
  detectTruncatedInvokeModelBody,
  inspectBedrockResult,
} from './inspect-bedrock-result.ts';
