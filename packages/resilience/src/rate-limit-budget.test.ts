import Anthropic from '@anthropic-ai/sdk';
import {
  readRateLimit as readAnthropicRateLimit,
  withClassifiedErrors as withAnthropic,
} from '@faultline/extract-anthropic';
import { guardStream, readRateLimit, withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { fault, type MockProvider, startMockProvider } from '@faultline/llm-mock';
import { FaultlineError } from '@faultline/render';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyId } from './health-registry.ts';
import {
  type Candidate,
  FallbackChainError,
  type HealthEvent,
  HealthRegistry,
  type HealthStore,
  MemoryHealthStore,
  QUOTA_SCOPES,
  RedisHealthStore,
  runWithFallback,
  streamWithFallback,
} from './index.ts';
import { CHAT_PARAMS, fakeTime, textOf } from './test-support.ts';

/** A window far longer than any test: the limit never resets by itself while a test runs. */
const LONG_WINDOW_MS = 600_000;

let primary: MockProvider;
let backup: MockProvider;
beforeAll(async () => {
  primary = await startMockProvider({ providers: ['openai', 'anthropic'], reply: 'primary' });
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

function openai(mock: MockProvider, apiKey = 'sk-canary-budget-0001'): OpenAI {
  return new OpenAI({ apiKey, maxRetries: 0, baseURL: mock.url('openai') });
}

/** The primary through `withResponse()`, its budget read from each success's headers. */
function primaryCandidate(client = openai(primary)): Candidate<unknown> {
  return {
    provider: 'openai',
    model: 'gpt-4o-mini',
    withClassifiedErrors: withOpenAI,
    call: ({ signal }) => client.chat.completions.create(CHAT_PARAMS, { signal }).withResponse(),
    readRateLimit,
  };
}

function backupCandidate(): Candidate<unknown> {
  const client = openai(backup);
  return {
    provider: 'backup',
    model: 'gpt-4o-mini',
    withClassifiedErrors: withOpenAI,
    call: ({ signal }) => client.chat.completions.create(CHAT_PARAMS, { signal }),
  };
}

/** What the answer said: a `withResponse()` result or a completion. */
function answered(value: unknown): string | undefined {
  const data = (value as { data?: unknown }).data;
  return textOf(data ?? value);
}

const count = (mock: MockProvider, provider: 'openai' | 'anthropic' = 'openai') => {
  const requests = mock.requests(provider);
  return {
    ok: requests.filter((request) => request.answer.kind === 'ok').length,
    limited: requests.filter((request) => request.answer.status === 429).length,
  };
};

describe('the budget read from the headers', () => {
  it('is in the metadata of a 429 thrown by the real openai and anthropic SDKs', async () => {
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    primary.script('anthropic', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    const client = openai(primary);
    const first = await client.chat.completions.create(CHAT_PARAMS).withResponse();
    expect(readRateLimit(first)).toMatchObject({ requests: { limit: 1, remaining: 0 } });
    const refused = await withOpenAI(() => client.chat.completions.create(CHAT_PARAMS)).catch(
      (thrown: unknown) => thrown,
    );
    expect(FaultlineError.isInstance(refused)).toBe(true);
    const metadata = (refused as FaultlineError).metadata;
    expect(metadata.rateLimit).toMatchObject({ requests: { limit: 1, remaining: 0 } });
    // The reset (milliseconds, under the whole-second retry-after it rounds up to) is the wait.
    const reset = metadata.rateLimit?.requests?.resetSeconds ?? Number.NaN;
    expect(reset).toBeGreaterThan(0);
    expect((refused as FaultlineError).classification.retryAfterSeconds).toBeCloseTo(reset, 1);

    const anthropic = new Anthropic({
      apiKey: 'sk-ant-canary-0001',
      maxRetries: 0,
      baseURL: primary.url('anthropic'),
    });
    const params = {
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const success = await anthropic.messages.create(params).withResponse();
    expect(readAnthropicRateLimit(success)).toMatchObject({ requests: { limit: 1, remaining: 0 } });
    const rejected = await withAnthropic(() => anthropic.messages.create(params)).catch(
      (thrown: unknown) => thrown,
    );
    expect((rejected as FaultlineError).metadata.rateLimit).toMatchObject({
      requests: { limit: 1, remaining: 0 },
    });
    expect((rejected as FaultlineError).classification.reason).toBe('rate_limit');
    expect(count(primary)).toEqual({ ok: 1, limited: 1 });
    expect(count(primary, 'anthropic')).toEqual({ ok: 1, limited: 1 });
  });
});

describe('pacing by the budget', () => {
  it('waits for a spent key that resets within maxResetWaitMs instead of sending a request in vain', async () => {
    primary.script('openai', { rateLimit: { requests: 2, windowMs: LONG_WINDOW_MS } });
    const time = fakeTime();
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: time.now }) });
    const candidates = [primaryCandidate(), backupCandidate()];
    const sleep = async (milliseconds: number, signal: AbortSignal | undefined) => {
      await time.sleep(milliseconds, signal);
      // The provider's window has passed too: it admits again.
      primary.clearScript('openai');
      primary.script('openai', { rateLimit: { requests: 2, windowMs: LONG_WINDOW_MS } });
    };
    const outcomes: Array<{ waitsMs: readonly number[]; provider: string }> = [];
    const options = {
      registry,
      sleep,
      maxResetWaitMs: LONG_WINDOW_MS,
      onOutcome: (outcome: { waitsMs: readonly number[]; provider: string }) => outcomes.push(outcome),
    };
    for (let call = 0; call < 3; call++)
      expect(answered(await runWithFallback(candidates, options))).toBe('primary');
    // The third call waited for the reset the second answer stated, then the primary answered it.
    expect(time.slept).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.waitsMs.length)).toEqual([0, 0, 1]);
    expect(outcomes[2]?.waitsMs[0]).toBe(Math.ceil(time.slept[0] ?? Number.NaN));
    expect(count(primary)).toEqual({ ok: 3, limited: 0 });
    expect(backup.requests('openai')).toHaveLength(0);
  });

  it("a streamed success's budget is read from the response headers the stream carries: the spent key gets no request", async () => {
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: fakeTime().now }) });
    const client = openai(primary);
    const backupClient = openai(backup);
    const candidates: Candidate<AsyncIterable<unknown>>[] = [
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        withClassifiedErrors: withOpenAI,
        // The stream with the response it came in (withResponse()), for readRateLimit to read.
        call: async ({ signal }) => {
          const { data, response } = await client.chat.completions
            .create({ ...CHAT_PARAMS, stream: true }, { signal })
            .withResponse();
          return Object.assign(guardStream(data, { signal }), { response });
        },
        readRateLimit,
      },
      {
        provider: 'backup',
        model: 'gpt-4o-mini',
        withClassifiedErrors: withOpenAI,
        call: async ({ signal }) =>
          guardStream(
            await backupClient.chat.completions.create({ ...CHAT_PARAMS, stream: true }, { signal }),
            {
              signal,
            },
          ),
      },
    ];
    const delta = (chunk: unknown) =>
      (chunk as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content ?? '';
    const stream = () => streamWithFallback(candidates, { registry, maxCooldownWaitMs: 0 });
    // The budget is read as the stream opens: a call made while the first stream is still being
    // read already knows the key is spent.
    const first = stream()[Symbol.asyncIterator]();
    let firstText = delta((await first.next()).value);
    let secondText = '';
    for await (const chunk of stream()) secondText += delta(chunk);
    for (let step = await first.next(); step.done !== true; step = await first.next())
      firstText += delta(step.value);
    expect([firstText, secondText]).toEqual(['primary', 'backup']);
    expect(count(primary)).toEqual({ ok: 1, limited: 0 });
  });

  it("past a spent window's reset, admits the window's limit until an answer restates the count, not every waiting caller", async () => {
    const time = fakeTime();
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: time.now }) });
    const key = { provider: 'openai', model: 'gpt-4o-mini' };
    await registry.recordRateLimit(key, { requests: { limit: 3, remaining: 0, resetSeconds: 0.2 } });
    expect(await registry.takeRateLimit(key)).toEqual({ kind: 'spent', waitMs: 200 });
    time.advance(200);
    const takes = await Promise.all(Array.from({ length: 5 }, () => registry.takeRateLimit(key)));
    expect(takes.map((take) => take.kind)).toEqual(['allow', 'allow', 'allow', 'spent', 'spent']);
    // The first answer of the new window counts only what had reached the provider: the three
    // calls sent are all spent from it.
    await registry.recordRateLimit(key, { requests: { limit: 3, remaining: 2, resetSeconds: 0.8 } });
    expect((await registry.takeRateLimit(key)).kind).toBe('spent');
    // A window where one call was sent before the first answer: the answer's count holds.
    await registry.recordRateLimit(key, { requests: { limit: 3, remaining: 0, resetSeconds: 0.8 } });
    time.advance(800);
    expect((await registry.takeRateLimit(key)).kind).toBe('allow');
    await registry.recordRateLimit(key, { requests: { limit: 3, remaining: 1, resetSeconds: 0.9 } });
    expect((await registry.takeRateLimit(key)).kind).toBe('allow');
    expect((await registry.takeRateLimit(key)).kind).toBe('spent');
    // With no answer at all, the cap lapses and calls find out again.
    time.advance(2_000);
    expect((await registry.takeRateLimit(key)).kind).toBe('allow');
  });

  it('moves on at once, with no request to the spent key, when its reset is further than the cap', async () => {
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    const time = fakeTime();
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: time.now }) });
    const candidates = [primaryCandidate(), backupCandidate()];
    const options = { registry, sleep: time.sleep };
    expect(answered(await runWithFallback(candidates, options))).toBe('primary');
    let skipped: unknown;
    const second = await runWithFallback(candidates, {
      ...options,
      onOutcome: (outcome, index) => {
        if (index === 0) skipped = outcome;
      },
    });
    expect(answered(second)).toBe('backup');
    expect(skipped).toMatchObject({ status: 'skipped', skipped: 'cooling', attempts: 0 });
    expect(time.slept).toEqual([]);
    expect(count(primary)).toEqual({ ok: 1, limited: 0 });
  });

  it('a 429 cools the key only until its precise wait, and a wait within the cap is waited for on the key', async () => {
    primary.script('openai', [
      fault.status(429, {
        retryAfter: 1,
        headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '200ms' },
      }),
      fault.ok(),
    ]);
    const time = fakeTime();
    const events: HealthEvent[] = [];
    const registry = new HealthRegistry({
      store: new MemoryHealthStore({ now: time.now }),
      onEvent: (event) => events.push(event),
    });
    const result = await runWithFallback([primaryCandidate(), backupCandidate()], {
      registry,
      sleep: time.sleep,
      retry: { random: () => 0 },
    });
    expect(answered(result)).toBe('primary');
    expect(events).toEqual([
      { type: 'cooldown', key: { provider: 'openai', model: 'gpt-4o-mini' }, ms: 200, reason: 'rate_limit' },
    ]);
    expect(time.slept).toEqual([200]);
    expect(primary.requests('openai').map((request) => request.answer.status ?? 200)).toEqual([429, 200]);
    expect(backup.requests('openai')).toHaveLength(0);
  });

  it('refuses unknown keys and bad values with a TypeError at the call', async () => {
    const candidate = primaryCandidate();
    await expect(runWithFallback([{ ...candidate, credentialID: 'a' } as never])).rejects.toThrow(
      'unknown option "credentialID" in "candidates[0]" for runWithFallback; did you mean "credentialId"?',
    );
    await expect(
      runWithFallback([
        {
          provider: 'openai',
          model: 'm',
          credentials: [{ credentialId: 'a', call: candidate.call, key: 'sk-x' }],
        } as never,
      ]),
    ).rejects.toThrow(/unknown option "key" in "candidates\[0\]\.credentials\[0\]" for runWithFallback/);
    await expect(runWithFallback([candidate], { maxResetWaitMs: -1 })).rejects.toThrow(TypeError);
    await expect(runWithFallback([candidate], { maxResetWait: 100 } as never)).rejects.toThrow(
      'unknown option "maxResetWait" for runWithFallback; did you mean "maxResetWaitMs"?',
    );
    await expect(
      runWithFallback([{ provider: 'openai', model: 'm', credentials: [] } as never]),
    ).rejects.toThrow('runWithFallback: candidates[0].credentials must be a non-empty array');
    expect(primary.requests()).toHaveLength(0);
  });
});

/**
 * A store under load: each operation's reply takes `delayMs` of the fake clock to come back (a
 * Redis round trip on a busy host), so that an answer is recorded well after it arrived.
 */
function slowStore(
  time: ReturnType<typeof fakeTime>,
  delayMs: number,
): { store: HealthStore; memory: MemoryHealthStore } {
  const memory = new MemoryHealthStore({ now: time.now });
  const slow =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      const result = await operation(...args);
      time.advance(delayMs);
      return result;
    };
  return {
    memory,
    store: {
      read: slow((keys) => memory.read(keys)),
      increment: slow((key, ttlMs, by) => memory.increment(key, ttlMs, by)),
      write: slow((key, value, ttlMs, mode) => memory.write(key, value, ttlMs, mode)),
      delete: slow((keys) => memory.delete(keys)),
      now: () => time.now(),
    },
  };
}

describe('resets stated relative to the answer', () => {
  it("count from the answer's arrival, not from when the store records them (a success's budget, a 429's wait)", async () => {
    const time = fakeTime();
    const { store, memory } = slowStore(time, 40);
    const registry = new HealthRegistry({ store });
    const client = openai(primary);
    let arrivedAt = 0;
    let stated: number | undefined;
    const candidate: Candidate<unknown> = {
      provider: 'openai',
      model: 'gpt-4o-mini',
      withClassifiedErrors: withOpenAI,
      readRateLimit,
      call: async ({ signal }) => {
        try {
          const answer = await client.chat.completions.create(CHAT_PARAMS, { signal }).withResponse();
          stated = readRateLimit(answer)?.requests?.resetSeconds;
          return answer;
        } finally {
          arrivedAt = time.now();
        }
      },
    };
    const id = keyId({ provider: 'openai', model: 'gpt-4o-mini' });

    // A success says the window is spent and resets in `stated` seconds ("1s" in the header's form).
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    await runWithFallback([candidate], { registry, retry: false });
    const age = time.now() - arrivedAt;
    // The store's own waits came between the answer and its record.
    expect(age).toBeGreaterThan(0);
    const [left] = memory.readNow([`left:${id}`]);
    expect(left?.value).toBe(0);
    expect(left?.ttlMs).toBe((stated ?? Number.NaN) * 1000 - age);

    // A 429 asking for 2 s cools the key until 2 s after it arrived.
    primary.clearScript('openai');
    primary.script('openai', [fault.status(429, { retryAfter: 2 })]);
    await memory.delete([`left:${id}`]);
    await expect(runWithFallback([candidate], { registry, retry: false })).rejects.toBeInstanceOf(
      FallbackChainError,
    );
    const [cool] = memory.readNow([`cool:${id}`]);
    expect(time.now() - arrivedAt).toBeGreaterThan(0);
    expect(cool?.ttlMs).toBe(2000 - (time.now() - arrivedAt));
  });
});

describe('credential pools', () => {
  let other: MockProvider;
  beforeAll(async () => {
    other = await startMockProvider({ providers: ['openai'], reply: 'second key' });
  });
  afterAll(() => other.close());
  afterEach(() => other.reset());

  function pool(accounts: [string | undefined, string | undefined]): Candidate<unknown> {
    const first = openai(primary, 'sk-canary-pool-0001');
    const second = openai(other, 'sk-canary-pool-0002');
    return {
      provider: 'openai',
      model: 'gpt-4o-mini',
      withClassifiedErrors: withOpenAI,
      credentials: [
        {
          credentialId: 'key-1',
          account: accounts[0],
          call: ({ signal }) => first.chat.completions.create(CHAT_PARAMS, { signal }),
        },
        {
          credentialId: 'key-2',
          account: accounts[1],
          call: ({ signal }) => second.chat.completions.create(CHAT_PARAMS, { signal }),
        },
      ],
    };
  }

  it('a 429 moves to the next key of another account first, before another provider', async () => {
    primary.script('openai', [fault.status(429, { retryAfter: 30 })]);
    const time = fakeTime();
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: time.now }) });
    const result = await runWithFallback([pool(['project-a', 'project-b']), backupCandidate()], {
      registry,
      sleep: time.sleep,
    });
    expect(textOf(result)).toBe('second key');
    expect(primary.requests('openai')).toHaveLength(1);
    expect(other.requests('openai')).toHaveLength(1);
    expect(backup.requests('openai')).toHaveLength(0);
  });

  it('keys of one account share its limits (OpenAI limits per project): a 429 on one cools both, no rotation', async () => {
    expect(QUOTA_SCOPES.openai?.scope).toBe('account');
    expect(QUOTA_SCOPES['google-genai']?.holder).toContain('per project, not per API key');
    primary.script('openai', [fault.status(429, { retryAfter: 30 })]);
    const time = fakeTime();
    const registry = new HealthRegistry({ store: new MemoryHealthStore({ now: time.now }) });
    const outcomes: Array<{
      credentialId?: string | undefined;
      status: string;
      skipped?: string | undefined;
    }> = [];
    const result = await runWithFallback([pool([undefined, undefined]), backupCandidate()], {
      registry,
      sleep: time.sleep,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    expect(textOf(result)).toBe('backup');
    expect(outcomes.map(({ credentialId, status, skipped }) => ({ credentialId, status, skipped }))).toEqual([
      { credentialId: 'key-1', status: 'failed', skipped: undefined },
      { credentialId: 'key-2', status: 'skipped', skipped: 'cooling' },
      { credentialId: undefined, status: 'succeeded', skipped: undefined },
    ]);
    expect(other.requests('openai')).toHaveLength(0);
  });

  it('a rejected key is set aside with an event; the next key of the pool answers', async () => {
    primary.script('openai', [fault.status(401)]);
    const events: HealthEvent[] = [];
    const registry = new HealthRegistry({ rejectedKeyMs: 60_000, onEvent: (event) => events.push(event) });
    const result = await runWithFallback([pool([undefined, undefined]), backupCandidate()], { registry });
    expect(textOf(result)).toBe('second key');
    // Set aside for every caller of the registry, for its rejectedKeyMs.
    expect(events).toContainEqual({
      type: 'credential-rejected',
      key: { provider: 'openai', model: 'gpt-4o-mini', credentialId: 'key-1' },
      reason: 'auth',
      ms: 60_000,
    });
    expect(primary.requests('openai')).toHaveLength(1);
    expect(backup.requests('openai')).toHaveLength(0);
    // No key leaves in what the chain reports.
    expect(JSON.stringify(events)).not.toContain('sk-canary-pool');
  });
});

const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

describe.runIf(redisUrl !== undefined || inCi)('the budget shared through Redis', () => {
  let redis: Redis;
  const prefix = `faultline-test-budget:${process.pid}:${Date.now()}:`;
  beforeAll(async () => {
    if (redisUrl === undefined) throw new Error('REDIS_URL must be set in CI: .ci/run starts redis-server');
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    await redis.ping();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('a budget one process read keeps another off the spent key (counted at the server)', async () => {
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    const registry = () =>
      new HealthRegistry({ store: new RedisHealthStore(redis, { prefix, timeoutMs: 2000 }) });
    const candidates = [primaryCandidate(), backupCandidate()];
    expect(answered(await runWithFallback(candidates, { registry: registry() }))).toBe('primary');
    expect(answered(await runWithFallback(candidates, { registry: registry() }))).toBe('backup');
    expect(count(primary)).toEqual({ ok: 1, limited: 0 });
    const left = await redis.keys(`${prefix}left:*`);
    expect(left).toHaveLength(1);
    expect(await redis.pttl(left[0] as string)).toBeGreaterThan(0);
  });

  it('a failed chain reports every key it skipped with its wait', async () => {
    primary.script('openai', { rateLimit: { requests: 1, windowMs: LONG_WINDOW_MS } });
    const store = new RedisHealthStore(redis, { prefix: `${prefix}only:`, timeoutMs: 2000 });
    const candidates = [primaryCandidate()];
    await runWithFallback(candidates, { registry: new HealthRegistry({ store }) });
    const error = await runWithFallback(candidates, {
      registry: new HealthRegistry({ store }),
      maxCooldownWaitMs: 0,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(FallbackChainError);
    expect((error as FallbackChainError).candidates[0]).toMatchObject({
      status: 'skipped',
      skipped: 'cooling',
    });
    expect((error as FallbackChainError).toErrorReport().reason).toBe('rate_limit');
    expect(count(primary)).toEqual({ ok: 1, limited: 0 });
  });
});
