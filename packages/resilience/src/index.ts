export {
  type PooledCredential,
  QUOTA_SCOPES,
  type QuotaScope,
  type QuotaScopeFact,
} from './credential-pool.ts';
export {
  type Candidate,
  type CandidateOptions,
  type CandidateOutcome,
  checkFallbackOptions,
  defaultHealthRegistry,
  FallbackChainError,
  type FallbackChainErrorOptions,
  type FallbackOptions,
  type RetryStop,
  runWithFallback,
  type SkipReason,
  streamWithFallback,
} from './fallback-chain.ts';
export { fallbackRule } from './fallback-policy.ts';
export {
  type Admission,
  BREAKER_REASONS,
  type CircuitBreakerOptions,
  type FailureFacts,
  type HealthEvent,
  type HealthKey,
  HealthRegistry,
  type HealthRegistryOptions,
  keyId,
  type RetryBudgetOptions,
} from './health-registry.ts';
export {
  type HealthStore,
  MemoryHealthStore,
  type MemoryHealthStoreOptions,
  type StoredEntry,
  type WriteMode,
} from './health-store.ts';
export {
  MODEL_CATALOG_SOURCE,
  type ModelCatalog,
  type ModelLimits,
  modelLimits,
} from './model-catalog.ts';
export type { BudgetTake } from './rate-limit-budget.ts';
export {
  type RedisEvalClient,
  RedisHealthStore,
  type RedisHealthStoreOptions,
} from './redis-health-store.ts';
export { minimumTokenCount } from './token-bound.ts';
