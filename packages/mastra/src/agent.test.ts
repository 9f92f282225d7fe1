// biome-ignore-all lint/suspicious/noThenProperty: `then` is the scenario contract's field name (data, never awaited)
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { fault, type MockProvider, startMockProvider } from '@faultline/llm-mock';
import {
  type LoopbackServer,
  loadScenario,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { Agent, type AgentConfig } from '@mastra/core/agent';
import { ModelRouterLanguageModel } from '@mastra/core/llm';
import { noopLogger } from '@mastra/core/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyMastraError, faultlineErrorProcessor, faultlineModels, withFaultline } from './index.ts';

// The real Mastra Agent (its fallback list, its error processors, its stream) with real AI SDK
// models and Mastra's own model router, against llm-mock on 127.0.0.1: what faultline decided, and
// how many requests reached each model.

const KEY = 'sk-test-faultline-canary-0123456789abcdef';
let server: LoopbackServer;
let mock: MockProvider;

beforeAll(async () => {
  [server, mock] = await Promise.all([startLoopbackServer(), startMockProvider({ providers: ['openai'] })]);
});
afterAll(async () => {
  await Promise.all([server.close(), mock.close()]);
});

const fresh = (id: string): Scenario => structuredClone(loadScenario(id));

/** A real Agent whose own logger stays quiet: every failure here is on purpose. */
function agentOf(config: AgentConfig): Agent {
  const agent = new Agent(config);
  agent.__setLogger(noopLogger);
  return agent;
}

/** A chat completions stream that answers `text` (the OpenAI-compatible shape). */
function streamed(text: string): Scenario {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    JSON.stringify({
      id: 'chatcmpl-answer',
      object: 'chat.completion.chunk',
      created: 1763760000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  return {
    ...openaiChatCompletion(text),
    id: 'openai/streamed-answer',
    response: {
      kind: 'sse',
      events: [
        { data: chunk({ role: 'assistant', content: text }, null) },
        { data: chunk({}, 'stop') },
        { data: '[DONE]' },
      ],
      then: 'end',
    },
  };
}

/**
 * A rate limit told as an error event of a 200 Anthropic stream, after `message_start` and before
 * any content: Anthropic reports a failure that happens once the stream has begun as an `error`
 * event (https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events).
 */
function rateLimitEvent(): Scenario {
  const base = fresh('anthropic/stream-overloaded-event');
  const response = base.response as { kind: 'sse'; events: Array<{ event?: string; data: string }> };
  return {
    ...base,
    id: 'anthropic/stream-rate-limit-event',
    description: 'A 200 stream: message_start, then an error event with rate_limit_error, no content.',
    response: {
      ...response,
      events: [
        response.events[0]!,
        {
          event: 'error',
          data: JSON.stringify({
            type: 'error',
            error: {
              type: 'rate_limit_error',
              message:
                'This request would exceed the rate limit for your organization of 50 requests per minute.',
            },
          }),
        },
      ],
      then: 'end',
    },
    expected: {
      category: 'transient',
      reason: 'rate_limit',
      retryable: true,
      userAction: 'wait_and_retry',
      httpStatus: 429,
    },
  } as Scenario;
}

function anthropicAt(scenario: Scenario) {
  return createAnthropic({ apiKey: KEY, baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) })(
    'claude-sonnet-4-5',
  );
}

function modelAt(scenario: Scenario) {
  return createOpenAI({ apiKey: KEY, baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) }).chat(
    'gpt-4o-mini',
  );
}

/** What a Mastra stream ended with: its text, and the error it reports (`text` may reject with it). */
async function streamEnd(stream: {
  readonly text: PromiseLike<string>;
  readonly error: Error | undefined;
}): Promise<{ text: string; error: unknown }> {
  try {
    return { text: await stream.text, error: stream.error };
  } catch (error) {
    return { text: '', error };
  }
}

const FAST = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };

describe('faultlineModels: the fallback list of a real Mastra Agent', () => {
  it('asks a spent quota once, then the backup answers', async () => {
    const spent = fresh('openai/insufficient-quota');
    const backup = openaiChatCompletion('Hello from the backup');
    const agent = agentOf({
      id: 'quota',
      name: 'quota',
      instructions: 'Answer briefly.',
      model: faultlineModels([modelAt(spent), modelAt(backup)]),
      errorProcessors: [faultlineErrorProcessor()],
    });
    const result = await agent.generate('hi');
    expect(result.text).toBe('Hello from the backup');
    expect(server.requests(spent)).toHaveLength(1);
    expect(server.requests(backup)).toHaveLength(1);
  });

  it('moves on after a rate limit sent as an error event before the first chunk of a 200 stream, retried once (not twice over)', async () => {
    const limited = rateLimitEvent();
    const backup = streamed('Hello from the backup');
    const agent = agentOf({
      id: 'in-band',
      name: 'in-band',
      instructions: 'Answer briefly.',
      model: faultlineModels([anthropicAt(limited), modelAt(backup)], { retry: FAST }),
      // The processor's own retries would multiply the wrapper's; it reads that they were made.
      errorProcessors: [faultlineErrorProcessor({ retry: FAST })],
    });
    const end = await streamEnd(await agent.stream('hi'));
    expect(end).toEqual({ text: 'Hello from the backup', error: undefined });
    expect(server.requests(limited)).toHaveLength(FAST.maxAttempts);
    expect(server.requests(backup)).toHaveLength(1);
  });

  it('without faultline, Mastra ends the run on that event and never asks the backup', async () => {
    const limited = rateLimitEvent();
    const backup = streamed('Hello from the backup');
    const agent = agentOf({
      id: 'plain',
      name: 'plain',
      instructions: 'Answer briefly.',
      model: [{ model: anthropicAt(limited) }, { model: modelAt(backup) }],
    });
    const end = await streamEnd(await agent.stream('hi'));
    expect(end.text).toBe('');
    expect(server.requests(backup)).toHaveLength(0);
    // What Mastra reports is the provider's event itself: classified, a rate limit.
    const report = classifyMastraError(end.error, { provider: 'anthropic' }).toErrorReport();
    expect(report).toMatchObject({ reason: 'rate_limit', retryable: true });
  });

  it('keeps a failure after the first content part in the stream: no fallback, what was delivered in the report', async () => {
    const cut = fresh('openai/stream-error-event');
    const backup = streamed('Hello from the backup');
    const agent = agentOf({
      id: 'mid-stream',
      name: 'mid-stream',
      instructions: 'Answer briefly.',
      model: faultlineModels([modelAt(cut), modelAt(backup)], { retry: FAST }),
    });
    const end = await streamEnd(await agent.stream('hi'));
    expect(server.requests(cut)).toHaveLength(1);
    expect(server.requests(backup)).toHaveLength(0);
    const report = classifyMastraError(end.error).toErrorReport();
    expect(report).toMatchObject({ reason: 'server_error', delivered: { characters: 5 } });
    expect(JSON.stringify(report)).not.toContain(KEY);
  });
});

describe("faultlineErrorProcessor on Mastra's model router", () => {
  const routerAgent = (id: string) =>
    agentOf({
      id,
      name: id,
      instructions: 'Answer briefly.',
      model: { id: 'openai/gpt-4o-mini', url: mock.url('openai'), apiKey: KEY },
      errorProcessors: [faultlineErrorProcessor()],
    });

  it('retries a rate limit after its Retry-After, then answers', async () => {
    mock.reset();
    mock.script('openai', [fault.status(429, { retryAfter: 0 }), fault.ok({ reply: 'Paris.' })]);
    const result = await routerAgent('rate-limit').generate('Capital of France?');
    expect(result.text).toBe('Paris.');
    expect(mock.requests('openai')).toHaveLength(2);
  });

  it("wraps the router's own model: a rate limit retried by faultline, then the streamed answer", async () => {
    mock.reset();
    mock.script('openai', [fault.status(429, { retryAfter: 0 }), fault.ok({ reply: 'Paris.' })]);
    const agent = agentOf({
      id: 'router-wrapped',
      name: 'router-wrapped',
      instructions: 'Answer briefly.',
      model: withFaultline(
        new ModelRouterLanguageModel({ id: 'openai/gpt-4o-mini', url: mock.url('openai'), apiKey: KEY }),
        { retry: FAST },
      ),
    });
    const end = await streamEnd(await agent.stream('Capital of France?'));
    expect(end).toEqual({ text: 'Paris.', error: undefined });
    expect(mock.requests('openai')).toHaveLength(2);
  });

  it('never retries a spent quota, and the failure it leaves is classified', async () => {
    mock.reset();
    mock.script('openai', [fault.scenario('openai/insufficient-quota'), fault.ok()]);
    let failure: unknown;
    try {
      const result = await routerAgent('quota').generate('hi');
      failure = result.error;
    } catch (error) {
      failure = error;
    }
    expect(mock.requests('openai')).toHaveLength(1);
    const report = classifyMastraError(failure).toErrorReport();
    expect(report).toMatchObject({ reason: 'quota', retryable: false, nextStep: 'fallback' });
    expect(JSON.stringify(report)).not.toContain(KEY);
  });
});
