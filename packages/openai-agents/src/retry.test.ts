import { fault, type MockProvider, type Step, startMockProvider } from '@faultline/llm-mock';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentsClassifyOptions,
  classifyAgentsError,
  type FaultlineRetryOptions,
  faultlineModelProvider,
  faultlineRetryAdvice,
  faultlineRetryPolicy,
  withFaultlineRetryAdvice,
} from './index.ts';
import { AGENTS_CLASSIFY_OPTION_KEYS, RETRY_OPTION_KEYS } from './option-keys.ts';

// The types refuse what the calls refuse.
// @ts-expect-error: maxRetries is the runner's, not faultline's
const _misnamed: FaultlineRetryOptions = { maxRetries: 3 };
// @ts-expect-error: streaming comes from the failed request
const _streaming: FaultlineRetryOptions = { streaming: true };

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ providers: ['openai'] });
});
afterAll(async () => {
  await mock.close();
});

/** What the openai SDK throws for one answer of the mock (one attempt). */
async function thrownFor(step: Step): Promise<unknown> {
  mock.script('openai', [step]);
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: mock.url('openai'), maxRetries: 0 });
  return client.responses.create({ model: 'gpt-4o-mini', input: 'x' }).then(
    () => {
      throw new Error('the call did not fail');
    },
    (error: unknown) => error,
  );
}
const rateLimit = (headers: Record<string, string>) => thrownFor(fault.status(429, { headers }));

const context = (error: unknown, extra: object = {}) => ({
  error,
  attempt: 1,
  maxRetries: 2,
  stream: false,
  normalized: { isAbort: false },
  ...extra,
});

describe('options', () => {
  it('refuses unknown keys and bad values with a TypeError at the call', () => {
    for (const make of [faultlineRetryPolicy, faultlineRetryAdvice] as const) {
      expect(() => make({ maxRetries: 3 } as FaultlineRetryOptions)).toThrow(TypeError);
      expect(() => make({ maxRetryAfterSeconds: -1 })).toThrow(/maxRetryAfterSeconds/);
      expect(() => make({ maxRetryAfterSeconds: Number.NaN })).toThrow(TypeError);
    }
    expect(() => classifyAgentsError(new Error('x'), { stream: true } as AgentsClassifyOptions)).toThrow(
      'unknown option "stream" for classifyAgentsError; did you mean "streaming"?',
    );
    expect(() => withFaultlineRetryAdvice({}, { idempotnt: true } as FaultlineRetryOptions)).toThrow(
      TypeError,
    );
    expect(() => faultlineModelProvider({} as { getModel(): unknown })).toThrow(TypeError);
  });

  it('accepts every documented key', () => {
    expect(() => faultlineRetryPolicy(everyKey(RETRY_OPTION_KEYS))).not.toThrow();
    expect(() => faultlineRetryAdvice(everyKey(RETRY_OPTION_KEYS))).not.toThrow();
    expect(() => classifyAgentsError(new Error('x'), everyKey(AGENTS_CLASSIFY_OPTION_KEYS))).not.toThrow();
  });
});

describe('the decision', () => {
  it('does not wait out a Retry-After longer than maxRetryAfterSeconds', async () => {
    const error = await rateLimit({ 'retry-after': '30' });
    expect(faultlineRetryPolicy()(context(error))).toEqual({
      retry: true,
      delayMs: 30_000,
      reason: 'faultline: rate_limit (transient)',
    });
    expect(faultlineRetryPolicy({ maxRetryAfterSeconds: 10 })(context(error))).toMatchObject({
      retry: false,
    });
  });

  it('never retries once the runner says the answer started, or the call was aborted', async () => {
    const error = await rateLimit({});
    expect(faultlineRetryPolicy()(context(error, { responseStarted: true })).retry).toBe(false);
    expect(faultlineRetryPolicy()(context(error, { normalized: { isAbort: true } })).retry).toBe(false);
  });

  it('advises a replay of a refused request as safe, with the wait', async () => {
    const advice = faultlineRetryAdvice()({
      error: await rateLimit({ 'retry-after-ms': '250' }),
      stream: false,
      attempt: 1,
    });
    expect(advice).toEqual({
      suggested: true,
      retryAfterMs: 250,
      reason: 'faultline: rate_limit (transient)',
      replaySafety: 'safe',
    });
  });

  it('is total: any context or thrown value gets a decision', () => {
    const policy = faultlineRetryPolicy();
    const advice = faultlineRetryAdvice();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('getter');
        },
      },
    );
    for (const value of [undefined, null, 'string', 42, hostile, { error: hostile }]) {
      expect(policy(value as never).retry).toBe(false);
      expect(advice(value as never).suggested).toBe(false);
    }
  });
});
