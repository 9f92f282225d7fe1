export {
  classifyLangChainError,
  createLangChainExtractor,
  detectLangChainBlockedAnswer,
  type LangChainClassifyOptions,
  type LangChainProvider,
  providerFromLlmType,
} from './classify-langchain-error.ts';
export { type GuardLangChainStreamOptions, guardLangChainStream } from './guard-langchain-stream.ts';
export {
  type FallbackOptions,
  type FaultlineCallbackHandler,
  type FaultlineCallbackHandlerOptions,
  faultlineCallbackHandler,
  faultlineOnFailedAttempt,
  faultlineRetryOn,
  type InvokableLike,
  invokeWithFallbacks,
  type OnFailedAttemptOptions,
  shouldFallBack,
} from './policies.ts';
