import { checkOptionKeys } from '@faultline/render/toolkit';
import type { FallbackOptions } from './fallback-chain.ts';
import type { CircuitBreakerOptions, HealthRegistryOptions, RetryBudgetOptions } from './health-registry.ts';
import type { MemoryHealthStoreOptions } from './health-store.ts';
import type { RedisHealthStoreOptions } from './redis-health-store.ts';

// The options each public entry point of this package accepts, one table per options type. Each
// table `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails
// the type check, so a documented option is never refused as unknown.

export const FALLBACK_OPTION_KEYS = {
  registry: true,
  fallbackOn: true,
  retry: true,
  maxCooldownWaitMs: true,
  maxResetWaitMs: true,
  modelCatalog: true,
  inputTokens: true,
  signal: true,
  idempotent: true,
  fallbackAfterOutput: true,
  operation: true,
  family: true,
  sleep: true,
  onOutcome: true,
} as const satisfies Record<keyof FallbackOptions, true>;

export const HEALTH_REGISTRY_OPTION_KEYS = {
  store: true,
  breaker: true,
  retryBudget: true,
  maxCooldownMs: true,
  capacityCooldownMs: true,
  rejectedKeyMs: true,
  firstCallWaitMs: true,
  onEvent: true,
} as const satisfies Record<keyof HealthRegistryOptions, true>;

export const CIRCUIT_BREAKER_OPTION_KEYS = {
  failureThreshold: true,
  windowMs: true,
  openMs: true,
  backoffFactor: true,
  maxOpenMs: true,
  probeTimeoutMs: true,
} as const satisfies Record<keyof CircuitBreakerOptions, true>;

export const RETRY_BUDGET_OPTION_KEYS = {
  ratio: true,
  minRetries: true,
  windowMs: true,
} as const satisfies Record<keyof RetryBudgetOptions, true>;

export const MEMORY_HEALTH_STORE_OPTION_KEYS = { now: true } as const satisfies Record<
  keyof MemoryHealthStoreOptions,
  true
>;

export const REDIS_HEALTH_STORE_OPTION_KEYS = {
  prefix: true,
  timeoutMs: true,
  retryAfterMs: true,
  onUnavailable: true,
  onRecovered: true,
  fallbackStore: true,
} as const satisfies Record<keyof RedisHealthStoreOptions, true>;

/** The registry's options, and those of its `breaker` and `retryBudget` objects. */
export function checkRegistryKeys(options: unknown): void {
  const scope = 'HealthRegistry';
  checkOptionKeys(scope, options, HEALTH_REGISTRY_OPTION_KEYS);
  const { breaker, retryBudget } = (options ?? {}) as { breaker?: unknown; retryBudget?: unknown };
  checkOptionKeys(scope, breaker, CIRCUIT_BREAKER_OPTION_KEYS, 'breaker');
  checkOptionKeys(scope, retryBudget, RETRY_BUDGET_OPTION_KEYS, 'retryBudget');
}
