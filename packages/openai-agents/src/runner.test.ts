import { fault, type MockProvider, type MockRequest, startMockProvider, verdict } from '@faultline/llm-mock';
import { FaultlineError } from '@faultline/render';
import {
  Agent,
  type ModelSettings,
  OpenAIProvider,
  type RetryDecision,
  type RetryPolicy,
  Runner,
  retryPolicies,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  classifyAgentsError,
  faultlineModelProvider,
  faultlineRetryAdvice,
  faultlineRetryPolicy,
} from './index.ts';

// The real Runner with the real OpenAI model provider (the Responses API, its default) against
// llm-mock on 127.0.0.1, into the catalogue's failures: what faultline decided, and what reached
// the server. The OpenAI client's own retries are off (`maxRetries: 0`): the runner's policy is
// the one retry loop, so the requests counted are its decisions.

const KEY = 'sk-test-faultline-canary-0123456789abcdef';
let mock: MockProvider;
let onRequest: ((request: MockRequest) => void) | undefined;
let decisions: RetryDecision[];

beforeAll(async () => {
  mock = await startMockProvider({ providers: ['openai'], onRequest: (request) => onRequest?.(request) });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
  onRequest = undefined;
  decisions = [];
});

/** faultline's policy, its decisions recorded. */
function recorded(policy: RetryPolicy): RetryPolicy {
  return async (context) => {
    const decision = await policy(context);
    decisions.push(decision);
    return decision;
  };
}

function runnerFor(options: { advice?: boolean } = {}): Runner {
  const provider = new OpenAIProvider({
    openAIClient: new OpenAI({ apiKey: KEY, baseURL: mock.url('openai'), maxRetries: 0 }),
  });
  return new Runner({
    modelProvider: options.advice === false ? provider : faultlineModelProvider(provider),
    tracingDisabled: true,
  });
}

// A short backoff for the failures without a Retry-After; a Retry-After is waited in full.
const BACKOFF = { initialDelayMs: 20, maxDelayMs: 40, jitter: false };

function agentWith(policy: RetryPolicy, prompt = 'x'): Agent {
  const modelSettings: ModelSettings = {
    retry: { maxRetries: 2, backoff: BACKOFF, policy: recorded(policy) },
  };
  return new Agent({
    name: `assistant ${prompt}`,
    instructions: 'Answer briefly.',
    model: 'gpt-4o-mini',
    modelSettings,
  });
}

async function failureOf(run: Promise<unknown>): Promise<unknown> {
  try {
    await run;
  } catch (error) {
    return error;
  }
  throw new Error('the run did not fail');
}

describe('faultlineRetryPolicy in the real Runner, against llm-mock', () => {
  it('waits a rate limit out for its Retry-After (retry-after-ms 1500), then answers', async () => {
    mock.script('openai', [
      fault.scenario('openai/rate-limit-retry-after-ms'),
      fault.ok({ reply: 'Paris.' }),
    ]);
    const result = await runnerFor().run(agentWith(faultlineRetryPolicy()), 'Capital of France?');
    expect(result.finalOutput).toBe('Paris.');
    expect(decisions).toEqual([{ retry: true, delayMs: 1500, reason: 'faultline: rate_limit (transient)' }]);
    const [first, second] = mock.requests('openai');
    expect(mock.requests('openai')).toHaveLength(2);
    expect((second?.time ?? 0) - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(1400);
    expect(verdict(mock).findings).toEqual([]);
  });

  it('never retries a spent quota (429 insufficient_quota), which the OpenAI provider advises retrying', async () => {
    mock.script('openai', [fault.scenario('openai/insufficient-quota'), fault.ok()]);
    const error = await failureOf(runnerFor().run(agentWith(faultlineRetryPolicy()), 'quota'));
    expect(mock.requests('openai')).toHaveLength(1);
    expect(decisions).toEqual([{ retry: false, reason: 'faultline: quota (capacity), not retryable' }]);
    const report = classifyAgentsError(error).toErrorReport();
    expect(report).toMatchObject({ reason: 'quota', retryable: false, nextStep: 'fallback' });
    expect(report.providerMetadata).toMatchObject({ statusCode: 429, providerCode: 'insufficient_quota' });
    expect(JSON.stringify(report)).not.toContain(KEY);
  });

  it('vetoes the spent quota in retryPolicies.providerSuggested() too, through the advice', async () => {
    const scripts = [fault.scenario('openai/insufficient-quota'), fault.ok()];
    mock.script('openai', scripts);
    await failureOf(runnerFor().run(agentWith(retryPolicies.providerSuggested()), 'advised'));
    expect(mock.requests('openai')).toHaveLength(1);
    // The same policy on the provider's own advice replays the spent key.
    mock.reset();
    mock.script('openai', scripts);
    await runnerFor({ advice: false }).run(agentWith(retryPolicies.providerSuggested()), 'unadvised');
    expect(mock.requests('openai')).toHaveLength(2);
  });

  it('retries 500s with the runner backoff and answers', async () => {
    mock.script('openai', [
      fault.scenario('openai/server-error-json', { times: 2 }),
      fault.ok({ reply: 'Done.' }),
    ]);
    const result = await runnerFor().run(agentWith(faultlineRetryPolicy()), 'server error');
    expect(result.finalOutput).toBe('Done.');
    expect(mock.requests('openai')).toHaveLength(3);
    expect(decisions).toEqual([
      { retry: true, reason: 'faultline: server_error (transient)' },
      { retry: true, reason: 'faultline: server_error (transient)' },
    ]);
  });

  it.each([
    ['openai/invalid-api-key', 'auth'],
    ['openai/context-length-exceeded', 'context_overflow'],
  ] as const)('sends %s once (%s)', async (id, reason) => {
    mock.script('openai', [fault.scenario(id), fault.ok()]);
    const error = await failureOf(runnerFor().run(agentWith(faultlineRetryPolicy()), id));
    expect(mock.requests('openai')).toHaveLength(1);
    expect(decisions.map((decision) => typeof decision === 'object' && decision.retry)).toEqual([false]);
    expect(classifyAgentsError(error).classification.reason).toBe(reason);
  });

  it('does not replay a stream cut after output; the failure is interrupted', async () => {
    mock.script('openai', [fault.streamCut(2), fault.ok()]);
    const result = await runnerFor().run(agentWith(faultlineRetryPolicy()), 'stream', { stream: true });
    const error = await failureOf(
      (async () => {
        for await (const _event of result);
      })(),
    );
    expect(mock.requests('openai')).toHaveLength(1);
    const failure = classifyAgentsError(error, { streaming: true });
    expect(failure.classification).toMatchObject({ reason: 'interrupted', retryable: false });
    // The runner vetoed the replay itself (an event had been emitted): the policy was not asked.
    expect(decisions).toEqual([]);
    expect(faultlineRetryAdvice()({ error, stream: true, attempt: 1 })).toEqual({
      suggested: false,
      reason: 'faultline: interrupted (ambiguous), not retryable',
      replaySafety: 'unsafe',
      responseStarted: true,
    });
    expect(verdict(mock).findings).toEqual([]);
  });

  it('does not retry after the caller aborted; the abort is the caller’s', async () => {
    const controller = new AbortController();
    onRequest = () => controller.abort();
    mock.script('openai', [fault.stall(), fault.ok()]);
    const error = await failureOf(
      runnerFor().run(agentWith(faultlineRetryPolicy()), 'abort', { signal: controller.signal }),
    );
    expect(mock.requests('openai')).toHaveLength(1);
    expect(classifyAgentsError(error, { signal: controller.signal }).classification.callerAborted).toBe(true);
    expect(decisions).toEqual([]);
    expect(FaultlineError.isInstance(error)).toBe(false);
  });
});
