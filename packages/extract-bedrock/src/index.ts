import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { BEDROCK_PROVIDER, bedrockExtractor } from './extract-bedrock.ts';
import { inspectBedrockResult } from './inspect-bedrock-result.ts';

export {
  AwsResponseMetadata,
  BedrockConverseResult,
  BedrockInvokeModelBody,
  BedrockServiceExceptionSnapshot,
  BedrockStreamExceptionPayload,
} from './bedrock-error-shape.ts';
export { BEDROCK_PROVIDER, bedrockExtractor, readBedrockHttpFailure } from './extract-bedrock.ts';
export { type GuardBedrockStreamOptions, guardBedrockStream } from './guard-bedrock-stream.ts';
export {
  detectBedrockBlockedAnswer,
  detectTruncatedInvokeModelBody,
  inspectBedrockResult,
} from './inspect-bedrock-result.ts';

/**
 * render's `withClassifiedErrors` with the Bedrock extractor preset and `inspectBedrockResult` as
 * `inspectResult`, so a guardrail-blocked answer is thrown as content_policy and an InvokeModel
 * body cut short (which the SDK returns as a success over h2) as interrupted. Let a guardrail-blocked
 * answer through per call with `{ detectBlockedAnswer: false }` (a cut-short body is still thrown);
 * an `inspectResult` given per call runs after this one.
 */
export const withClassifiedErrors: BoundWithClassifiedErrors = bindWithClassifiedErrors({
  provider: BEDROCK_PROVIDER,
  extractors: [bedrockExtractor],
  inspectResult: inspectBedrockResult,
});
