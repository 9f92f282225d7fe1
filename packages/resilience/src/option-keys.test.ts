import { describe, expect, it, vi } from 'vitest';
import { CANDIDATE_KEYS } from './credential-pool.ts';
import {
  type Candidate,
  type FallbackOptions,
  HealthRegistry,
  type HealthRegistryOptions,
  MemoryHealthStore,
  type MemoryHealthStoreOptions,
  type RedisEvalClient,
  RedisHealthStore,
  type RedisHealthStoreOptions,
  runWithFallback,
  streamWithFallback,
} from './index.ts';
import {
  CIRCUIT_BREAKER_OPTION_KEYS,
  FALLBACK_OPTION_KEYS,
  HEALTH_REGISTRY_OPTION_KEYS,
  MEMORY_HEALTH_STORE_OPTION_KEYS,
  REDIS_HEALTH_STORE_OPTION_KEYS,
  RETRY_BUDGET_OPTION_KEYS,
} from './option-keys.ts';

// The types refuse what the entry points refuse.
// @ts-expect-error: maxRetries is not an option (retry is)
const _misnamed: FallbackOptions = { maxRetries: 3 };
// @ts-expect-error: failureTreshold is misspelt
const _misspelt: HealthRegistryOptions = { breaker: { failureTreshold: 3 } };

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

const candidate = (call: () => Promise<string>): Candidate<string> => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  call,
});

/** A Redis client that is never asked anything here: the option check comes first. */
const client: RedisEvalClient = { eval: async () => null };

describe('unknown option keys are a TypeError at the call naming the key and the nearest valid one', () => {
  it('runWithFallback: its options, their retry, and each candidate, before any call', async () => {
    const call = vi.fn(async () => 'answer');
    const run = (options: object, candidates: object[] = [candidate(call)]) =>
      runWithFallback(candidates as Candidate<string>[], options as FallbackOptions);
    await expect(run({ maxCooldownWait: 5 })).rejects.toThrow(TypeError);
    await expect(run({ maxCooldownWait: 5 })).rejects.toThrow(
      'unknown option "maxCooldownWait" for runWithFallback; did you mean "maxCooldownWaitMs"?',
    );
    await expect(run({ retry: { maxAtempts: 2 } })).rejects.toThrow(
      'unknown option "maxAtempts" in "retry" for runWithFallback; did you mean "maxAttempts"?',
    );
    await expect(run({}, [candidate(call), { ...candidate(call), contextWindw: 128_000 }])).rejects.toThrow(
      'unknown option "contextWindw" in "candidates[1]" for runWithFallback; did you mean "contextWindow"?',
    );
    expect(call).not.toHaveBeenCalled();
  });

  it('streamWithFallback, when it is called', () => {
    const open = () => streamWithFallback([], { fallbackAfterOuput: true } as unknown as FallbackOptions);
    expect(open).toThrow(TypeError);
    expect(open).toThrow(
      'unknown option "fallbackAfterOuput" for streamWithFallback; did you mean "fallbackAfterOutput"?',
    );
  });

  it('HealthRegistry, its breaker and its retryBudget', () => {
    expect(() => new HealthRegistry({ maxCooldown: 5 } as HealthRegistryOptions)).toThrow(
      'unknown option "maxCooldown" for HealthRegistry; did you mean "maxCooldownMs"?',
    );
    expect(
      () => new HealthRegistry({ breaker: { failureTreshold: 3 } } as unknown as HealthRegistryOptions),
    ).toThrow(
      'unknown option "failureTreshold" in "breaker" for HealthRegistry; did you mean "failureThreshold"?',
    );
    expect(
      () => new HealthRegistry({ retryBudget: { ration: 0.1 } } as unknown as HealthRegistryOptions),
    ).toThrow('unknown option "ration" in "retryBudget" for HealthRegistry; did you mean "ratio"?');
  });

  it('MemoryHealthStore and RedisHealthStore', () => {
    expect(() => new MemoryHealthStore({ clock: () => 0 } as MemoryHealthStoreOptions)).toThrow(
      /^unknown option "clock" for MemoryHealthStore; /,
    );
    expect(() => new RedisHealthStore(client, { keyPrefix: 'app:' } as RedisHealthStoreOptions)).toThrow(
      'unknown option "keyPrefix" for RedisHealthStore; did you mean "prefix"?',
    );
  });
});

describe('every documented key is accepted', () => {
  it('by each entry point', async () => {
    const registry = new HealthRegistry({
      ...everyKey(HEALTH_REGISTRY_OPTION_KEYS),
      breaker: everyKey(CIRCUIT_BREAKER_OPTION_KEYS),
      retryBudget: everyKey(RETRY_BUDGET_OPTION_KEYS),
    });
    expect(registry).toBeInstanceOf(HealthRegistry);
    expect(new MemoryHealthStore(everyKey(MEMORY_HEALTH_STORE_OPTION_KEYS))).toBeInstanceOf(
      MemoryHealthStore,
    );
    expect(new RedisHealthStore(client, everyKey(REDIS_HEALTH_STORE_OPTION_KEYS))).toBeInstanceOf(
      RedisHealthStore,
    );
    const every: Candidate<string> = {
      ...everyKey(CANDIDATE_KEYS),
      provider: 'openai',
      model: 'gpt-4o-mini',
      call: async () => 'answer',
    };
    await expect(
      runWithFallback([every], { ...everyKey(FALLBACK_OPTION_KEYS), registry, retry: { maxAttempts: 1 } }),
    ).resolves.toBe('answer');
  });
});

describe('a bad option value is a TypeError at the call naming the option, never a silent default', () => {
  const refuses = (build: () => unknown, name: string) => {
    expect(build).toThrow(TypeError);
    expect(build).toThrow(new RegExp(`: ${name.replace('.', '\\.')} must be `));
  };

  it('HealthRegistry: each number, breaker and retryBudget, onEvent', () => {
    const registry = (options: object) => () => new HealthRegistry(options as HealthRegistryOptions);
    for (const [options, name] of [
      [{ breaker: { openMs: -1 } }, 'breaker.openMs'],
      [{ breaker: { failureThreshold: '3' } }, 'breaker.failureThreshold'],
      [{ breaker: { backoffFactor: 0.5 } }, 'breaker.backoffFactor'],
      [{ breaker: { maxOpenMs: Number.NaN } }, 'breaker.maxOpenMs'],
      [{ breaker: { windowMs: 0 } }, 'breaker.windowMs'],
      [{ breaker: { probeTimeoutMs: Number.POSITIVE_INFINITY } }, 'breaker.probeTimeoutMs'],
      [{ retryBudget: { ratio: -0.1 } }, 'retryBudget.ratio'],
      [{ retryBudget: { minRetries: null } }, 'retryBudget.minRetries'],
      [{ retryBudget: { windowMs: '10s' } }, 'retryBudget.windowMs'],
      [{ maxCooldownMs: 0 }, 'maxCooldownMs'],
      [{ capacityCooldownMs: -5 }, 'capacityCooldownMs'],
      [{ rejectedKeyMs: '5m' }, 'rejectedKeyMs'],
      [{ breaker: true }, 'breaker'],
      [{ retryBudget: 0.2 }, 'retryBudget'],
      [{ onEvent: 'log' }, 'onEvent'],
    ] as const)
      refuses(registry(options), name);
    // The edges each option allows.
    expect(
      new HealthRegistry({
        breaker: { openMs: 1, backoffFactor: 1 },
        retryBudget: { ratio: 0, minRetries: 0 },
      }),
    ).toBeInstanceOf(HealthRegistry);
  });

  it('MemoryHealthStore: now', () => {
    refuses(() => new MemoryHealthStore({ now: 5 } as unknown as MemoryHealthStoreOptions), 'now');
  });

  it('RedisHealthStore: prefix, the two durations, the callbacks and the fallback store', () => {
    const store = (options: object) => () => new RedisHealthStore(client, options as RedisHealthStoreOptions);
    for (const [options, name] of [
      [{ prefix: 5 }, 'prefix'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ retryAfterMs: '5s' }, 'retryAfterMs'],
      [{ onUnavailable: 'warn' }, 'onUnavailable'],
      [{ onRecovered: {} }, 'onRecovered'],
      [{ fallbackStore: {} }, 'fallbackStore'],
    ] as const)
      refuses(store(options), name);
  });

  it('runWithFallback: maxCooldownWaitMs, sleep and registry, before any call', async () => {
    const call = vi.fn(async () => 'answer');
    for (const [options, name] of [
      [{ maxCooldownWaitMs: -1 }, 'maxCooldownWaitMs'],
      [{ sleep: 100 }, 'sleep'],
      [{ registry: {} }, 'registry'],
    ] as const) {
      const run = runWithFallback([candidate(call)], options as unknown as FallbackOptions);
      await expect(run).rejects.toThrow(TypeError);
      await expect(runWithFallback([candidate(call)], options as unknown as FallbackOptions)).rejects.toThrow(
        `runWithFallback: ${name} must be `,
      );
    }
    expect(call).not.toHaveBeenCalled();
  });
});
