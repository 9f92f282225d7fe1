import { withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { type MockProvider, startMockProvider } from '@faultline/llm-mock';
import { FaultlineError } from '@faultline/render';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Candidate,
  HealthRegistry,
  type HealthRegistryOptions,
  MemoryHealthStore,
  RedisHealthStore,
  runWithFallback,
  streamWithFallback,
} from './index.ts';
import { CHAT_PARAMS, deltaText, textOf } from './test-support.ts';

// `firstCallWaitMs`: concurrent first calls to a key whose outcome is not known wait for the one in
// flight. The bound is far longer than any test, so a test that passes never reached it (but the
// one about the bound, on fake timers).
const BOUND_MS = 60_000;
const CALLS = 10;

let primary: MockProvider;
let backup: MockProvider;
beforeAll(async () => {
  primary = await startMockProvider({ providers: ['openai'], reply: 'primary' });
  backup = await startMockProvider({ providers: ['openai'], reply: 'backup' });
});
afterAll(async () => {
  await primary.close();
  await backup.close();
});
afterEach(() => {
  primary.reset();
  backup.reset();
});

const spentQuota = () =>
  primary.script('openai', [{ kind: 'scenario', id: 'openai/insufficient-quota', times: 1_000 }]);

function candidate(mock: MockProvider, provider: string): Candidate<unknown> {
  const client = new OpenAI({ apiKey: 'sk-canary-gate-0001', maxRetries: 0, baseURL: mock.url('openai') });
  return {
    provider,
    model: 'gpt-4o-mini',
    withClassifiedErrors: withOpenAI,
    call: ({ signal }) => client.chat.completions.create(CHAT_PARAMS, { signal }),
  };
}

/** `CALLS` concurrent chains (primary, then backup) on `registries` in turn: who answered each. */
async function wave(registries: readonly HealthRegistry[]): Promise<Array<string | undefined>> {
  const candidates = [candidate(primary, 'openai'), candidate(backup, 'backup')];
  const answers = await Promise.all(
    Array.from({ length: CALLS }, (_, index) =>
      runWithFallback(candidates, {
        registry: registries[index % registries.length] as HealthRegistry,
        retry: false,
      }),
    ),
  );
  return answers.map(textOf);
}

describe('firstCallWaitMs', () => {
  it('a dead key (a spent quota) gets one request from a wave of concurrent calls, not one each', async () => {
    spentQuota();
    expect(await wave([new HealthRegistry()])).toEqual(Array(CALLS).fill('backup'));
    // Off (the default): every call of the wave reaches the key before any outcome is known.
    expect(primary.requests('openai')).toHaveLength(CALLS);

    primary.reset();
    backup.reset();
    spentQuota();
    expect(await wave([new HealthRegistry({ firstCallWaitMs: BOUND_MS })])).toEqual(
      Array(CALLS).fill('backup'),
    );
    expect(primary.requests('openai')).toHaveLength(1);
    expect(backup.requests('openai')).toHaveLength(CALLS);
  });

  it('a healthy key takes the held calls as soon as its first call answered; a stream as soon as it opened', async () => {
    expect(await wave([new HealthRegistry({ firstCallWaitMs: BOUND_MS })])).toEqual(
      Array(CALLS).fill('primary'),
    );
    expect(primary.requests('openai')).toHaveLength(CALLS);

    // The first stream is held open (its consumer reads one chunk and waits); the second call goes
    // once the first opened, long before the bound, and answers in full.
    const registry = new HealthRegistry({ firstCallWaitMs: BOUND_MS });
    const client = new OpenAI({
      apiKey: 'sk-canary-gate-0002',
      maxRetries: 0,
      baseURL: primary.url('openai'),
    });
    const streaming: Candidate<AsyncIterable<unknown>>[] = [
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        withClassifiedErrors: withOpenAI,
        call: ({ signal }) => client.chat.completions.create({ ...CHAT_PARAMS, stream: true }, { signal }),
      },
    ];
    const first = streamWithFallback(streaming, { registry })[Symbol.asyncIterator]();
    const opening = first.next();
    let second = '';
    for await (const chunk of streamWithFallback(streaming, { registry })) second += deltaText(chunk);
    expect(second).toBe('primary');
    await opening;
    await first.return?.();
  });

  it("a key cooled by another key's spent allowance (recordSharedLimit) is unknown again when that ends: one call goes first", async () => {
    spentQuota();
    const client = new OpenAI({
      apiKey: 'sk-canary-gate-0003',
      maxRetries: 0,
      baseURL: primary.url('openai'),
    });
    const failure: unknown = await withOpenAI(() => client.chat.completions.create(CHAT_PARAMS)).catch(
      (error: unknown) => error,
    );
    if (!FaultlineError.isInstance(failure)) throw failure;
    expect(failure.classification.category).toBe('capacity');
    let now = 0;
    const registry = new HealthRegistry({
      firstCallWaitMs: BOUND_MS,
      capacityCooldownMs: 1_000,
      store: new MemoryHealthStore({ now: () => now }),
    });
    // A key of the same project, known and answering.
    const sibling = { provider: 'openai', model: 'gpt-4o-mini', credentialId: 'same-project' };
    await registry.recordSuccess(sibling, await registry.admit(sibling));
    expect(await registry.admit(sibling)).toEqual({ kind: 'allow' });

    await registry.recordSharedLimit(sibling, failure.classification);
    expect(await registry.admit(sibling)).toMatchObject({ kind: 'cooling' });
    now += 1_001;
    const first = await registry.admit(sibling);
    expect(first).toEqual({ kind: 'allow', first: true });
    let held = true;
    const second = registry.admit(sibling).finally(() => {
      held = false;
    });
    // Far short of the bound: the second call is still held for the first one's outcome.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(held).toBe(true);
    await registry.recordSuccess(sibling, first);
    expect(await second).toEqual({ kind: 'allow' });
  });

  it('a first call that never settles releases the waiters at the bound; an abort ends a wait', async () => {
    vi.useFakeTimers();
    try {
      const registry = new HealthRegistry({ firstCallWaitMs: 500 });
      const key = { provider: 'openai', model: 'gpt-4o-mini' };
      // This call is the key's first and never reports.
      expect(await registry.admit(key)).toEqual({ kind: 'allow', first: true });
      let settled = false;
      const held = registry.admit(key).then((admission) => {
        settled = true;
        return admission;
      });
      await vi.advanceTimersByTimeAsync(499);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      // Released at the bound, unheld; its own outcome counts as the key's first.
      expect(await held).toEqual({ kind: 'allow', first: true });

      const controller = new AbortController();
      const reason = new Error('caller left');
      const aborted = registry.admit({ ...key, credentialId: 'other' }, { signal: controller.signal });
      const waiting = registry.admit({ ...key, credentialId: 'other' }, { signal: controller.signal });
      expect(await aborted).toEqual({ kind: 'allow', first: true });
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a chain waiting for a key's first outcome ends at once with the caller's abort, untouched", async () => {
    const registry = new HealthRegistry({ firstCallWaitMs: BOUND_MS });
    await registry.admit({ provider: 'openai', model: 'gpt-4o-mini' });
    const controller = new AbortController();
    const chain = runWithFallback([candidate(primary, 'openai')], { registry, signal: controller.signal });
    controller.abort();
    await expect(chain).rejects.toMatchObject({ name: 'AbortError' });
    expect(primary.requests('openai')).toHaveLength(0);
  });

  it('refuses a bad bound or an unknown option with a TypeError', () => {
    for (const firstCallWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '500', null])
      expect(() => new HealthRegistry({ firstCallWaitMs } as unknown as HealthRegistryOptions)).toThrow(
        /firstCallWaitMs must be a finite number/,
      );
    expect(() => new HealthRegistry({ firstCallWait: 500 } as unknown as HealthRegistryOptions)).toThrow(
      TypeError,
    );
  });
});

const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

describe.runIf(redisUrl !== undefined || inCi)('firstCallWaitMs across processes (Redis)', () => {
  let redis: Redis;
  beforeAll(async () => {
    if (redisUrl === undefined) throw new Error('REDIS_URL must be set in CI: .ci/run starts redis-server');
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    await redis.ping();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it("two registries on one store (two processes) send a dead key one request between them: the other's calls learn it from the store", async () => {
    spentQuota();
    const prefix = `faultline-test:gate:${process.pid}:${Date.now()}:`;
    const registry = () =>
      new HealthRegistry({
        firstCallWaitMs: BOUND_MS,
        store: new RedisHealthStore(redis, { prefix, timeoutMs: 2000 }),
      });
    expect(await wave([registry(), registry()])).toEqual(Array(CALLS).fill('backup'));
    expect(primary.requests('openai')).toHaveLength(1);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
});
