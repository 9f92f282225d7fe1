import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/resilience', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'BREAKER_REASONS',
        'FallbackChainError',
        'HealthRegistry',
        'MODEL_CATALOG_SOURCE',
        'MemoryHealthStore',
        'QUOTA_SCOPES',
        'RedisHealthStore',
        'checkFallbackOptions',
        'defaultHealthRegistry',
        'fallbackRule',
        'keyId',
        'minimumTokenCount',
        'modelLimits',
        'runWithFallback',
        'streamWithFallback',
      ],
      types: [
        'Admission',
        'BudgetTake',
        'Candidate',
        'CandidateOptions',
        'CandidateOutcome',
        'CircuitBreakerOptions',
        'FailureFacts',
        'FallbackChainErrorOptions',
        'FallbackOptions',
        'HealthEvent',
        'HealthKey',
        'HealthRegistryOptions',
        'HealthStore',
        'MemoryHealthStoreOptions',
        'ModelCatalog',
        'ModelLimits',
        'PooledCredential',
        'QuotaScope',
        'QuotaScopeFact',
        'RedisEvalClient',
        'RedisHealthStoreOptions',
        'RetryBudgetOptions',
        'RetryStop',
        'SkipReason',
        'StoredEntry',
        'WriteMode',
      ],
    });
  });
});
