export {
  type AiSdkClassifyOptions,
  type AiSdkStreamPart,
  aiSdkExtractorFor,
  classifyAiSdkError,
  type GuardAiSdkStreamOptions,
  guardAiSdkStream,
} from './classify-ai-sdk-error.ts';
export {
  AI_SDK_PROVIDER,
  AiSdkErrorPart,
  type AiSdkExtractorOptions,
  aiSdkErrorName,
  aiSdkExtractor,
  createAiSdkExtractor,
  detectAiSdkBlockedAnswer,
} from './extract-ai-sdk.ts';
export {
  type FallbackCandidate,
  type FallbackLanguageModelLike,
  type FallbackModelCandidate,
  type FallbackPrompt,
  type FaultlineFallbackModel,
  type FaultlineFallbackOptions,
  faultlineFallback,
} from './fallback-model.ts';
export {
  type CallOptionsLike,
  type EmbeddingModelLike,
  type FaultlineAiSdkOptions,
  type FaultlineLanguageModelMiddleware,
  faultlineMiddleware,
  type ModelLike,
  withFaultlineEmbedding,
} from './middleware.ts';
export {
  type AiSdkProvider,
  HTTP_FAILURE_READERS,
  type HttpFailureReader,
  providerFromId,
  providerFromUrl,
} from './provider-of.ts';
