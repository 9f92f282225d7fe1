export {
  type AgentChatModelLike,
  type FallbackChatModel,
  type FaultlineAgentMiddleware,
  type FaultlineModelFallbackOptions,
  type FaultlineModelRetryOptions,
  faultlineModelFallbackMiddleware,
  faultlineModelRetryMiddleware,
} from './agent-middleware.ts';
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
  type FaultlineCallbackHandler,
  type FaultlineCallbackHandlerOptions,
  faultlineCallbackHandler,
  faultlineOnFailedAttempt,
  faultlineRetryOn,
  type InvokableLike,
  type InvokeWithFallbacksOptions,
  invokeWithFallbacks,
  type OnFailedAttemptOptions,
  type ShouldFallBackOptions,
  shouldFallBack,
} from './policies.ts';
