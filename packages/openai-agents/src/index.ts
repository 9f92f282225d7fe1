export {
  type AgentsClassifyOptions,
  classifyAgentsError,
} from './classify-agents-error.ts';
export {
  type AgentsRetryAdvice,
  type AgentsRetryAdviceRequest,
  type AgentsRetryDecision,
  type AgentsRetryPolicyContext,
  type FaultlineRetryOptions,
  faultlineModelProvider,
  faultlineRetryAdvice,
  faultlineRetryPolicy,
  withFaultlineRetryAdvice,
} from './retry.ts';
