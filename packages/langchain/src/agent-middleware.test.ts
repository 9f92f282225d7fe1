// biome-ignore-all lint/suspicious/noThenProperty: the scenario format's field
import { FaultlineError } from '@faultline/render';
import { type CandidateOutcome, FallbackChainError, HealthRegistry } from '@faultline/resilience';
import {
  type LoopbackServer,
  loadScenario,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, MiddlewareError, modelRetryMiddleware } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultlineModelFallbackMiddleware, faultlineModelRetryMiddleware } from './agent-middleware.ts';
import { classifyLangChainError } from './classify-langchain-error.ts';
import { faultlineRetryOn } from './policies.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

const KEY = 'sk-test-faultline-canary-agent-0123456789';

/** A fresh registration (its own token, so its request count is its own). */
const fresh = (scenario: Pick<Scenario, 'response'>): Pick<Scenario, 'response'> => ({
  response: structuredClone(scenario.response),
});
const recorded = (id: string) => fresh(loadScenario(id));

const anthropicAnswer = (text: string): Pick<Scenario, 'response'> => ({
  response: {
    kind: 'http',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'msg_01FaultlineBackup',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 3 },
    }),
  },
});

const openai = (scenario: Pick<Scenario, 'response'>, model = 'gpt-4o') =>
  new ChatOpenAI({
    model,
    apiKey: KEY,
    configuration: { baseURL: `${server.baseUrlFor(scenario)}/v1` },
    maxRetries: 0,
  });
const anthropic = (scenario: Pick<Scenario, 'response'>) =>
  new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: KEY,
    anthropicApiUrl: server.baseUrlFor(scenario),
    maxRetries: 0,
  });

const NO_WAIT = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('resolved without throwing');
}

/** The answer's text: the agent's last message. */
async function answer(agent: {
  invoke(input: {
    messages: { role: string; content: string }[];
  }): Promise<{ messages: { content: unknown }[] }>;
}) {
  const state = await agent.invoke({ messages: [{ role: 'user', content: 'hi' }] });
  return state.messages.at(-1)?.content;
}

/**
 * What leaves `agent.invoke`: langchain's MiddlewareError around what the middleware threw, which
 * classifyLangChainError hands back as it is.
 */
function failureOf(error: unknown): FaultlineError {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  const failure = classifyLangChainError(error);
  expect(failure).toBe((error as { cause?: unknown }).cause);
  return failure;
}

/** Each error of a cause chain, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && chain.length < 8; link = (link as { cause?: unknown }).cause)
    chain.push(link);
  return chain;
}

describe('createAgent with faultlineModelRetryMiddleware', () => {
  it('retries a transient failure, then fails with a FaultlineError whose cause chain ends in the SDK error', async () => {
    const failing = recorded('openai/server-error-json');
    const agent = createAgent({
      model: openai(failing),
      tools: [],
      middleware: [faultlineModelRetryMiddleware({ retry: NO_WAIT, registry: new HealthRegistry() })],
    });
    const error = failureOf(await rejection(() => answer(agent)));
    expect(server.requests(failing)).toHaveLength(2);
    expect(FallbackChainError.isInstance(error)).toBe(true);
    const report = error.toErrorReport();
    expect([report.reason, report.retryable]).toEqual(['server_error', true]);
    expect(report.attempts?.made).toBe(2);
    const sdkError = causes(error).at(-1);
    expect(FaultlineError.isInstance(sdkError)).toBe(false);
    expect((sdkError as { status?: unknown }).status).toBe(500);
    expect(JSON.stringify(report)).not.toContain(KEY);
  });

  it('never retries a spent quota: one request', async () => {
    const quota = recorded('openai/insufficient-quota');
    const agent = createAgent({
      model: openai(quota),
      tools: [],
      middleware: [faultlineModelRetryMiddleware({ registry: new HealthRegistry() })],
    });
    const error = failureOf(await rejection(() => answer(agent)));
    expect(error.toErrorReport().reason).toBe('quota');
    expect(server.requests(quota)).toHaveLength(1);
  });
});

describe("langchain's own modelRetryMiddleware with faultlineRetryOn as its retryOn", () => {
  const agentOver = (scenario: Pick<Scenario, 'response'>) =>
    createAgent({
      model: openai(scenario),
      tools: [],
      middleware: [
        modelRetryMiddleware({
          maxRetries: 2,
          initialDelayMs: 1,
          jitter: false,
          retryOn: faultlineRetryOn(),
          onFailure: 'error',
        }),
      ],
    });

  it('retries what faultline calls transient', async () => {
    const failing = recorded('openai/server-error-json');
    await rejection(() => answer(agentOver(failing)));
    expect(server.requests(failing)).toHaveLength(3);
  });

  it("does not retry a spent quota; classifyLangChainError reads the SDK error inside the agent's wrapper", async () => {
    const quota = recorded('openai/insufficient-quota');
    const error = await rejection(() => answer(agentOver(quota)));
    expect(server.requests(quota)).toHaveLength(1);
    expect(MiddlewareError.isInstance(error)).toBe(true);
    const failure = classifyLangChainError(error);
    expect([failure.toErrorReport().reason, failure.toErrorReport().retryable]).toEqual(['quota', false]);
    expect(failure.cause).toBe((error as { cause?: unknown }).cause);
  });
});

describe('createAgent with faultlineModelFallbackMiddleware', () => {
  it('a spent quota moves on to the backup at once, and the quota key gets no further request', async () => {
    const quota = recorded('openai/insufficient-quota');
    const backup = anthropicAnswer('from the backup');
    const outcomes: CandidateOutcome[] = [];
    const agent = createAgent({
      model: openai(quota),
      tools: [],
      middleware: [
        faultlineModelFallbackMiddleware({
          models: [anthropic(backup)],
          registry: new HealthRegistry(),
          onOutcome: (outcome) => outcomes.push(outcome),
        }),
      ],
    });
    expect(await answer(agent)).toBe('from the backup');
    expect(await answer(agent)).toBe('from the backup');
    expect(outcomes.map((outcome) => outcome.skipped ?? outcome.report?.reason ?? outcome.status)).toEqual([
      'quota',
      'succeeded',
      'cooling',
      'succeeded',
    ]);
    expect(outcomes.map((outcome) => `${outcome.provider}/${outcome.model}`).slice(0, 2)).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-sonnet-4-5',
    ]);
    expect(server.requests(quota)).toHaveLength(1);
    expect(server.requests(backup)).toHaveLength(2);
  });

  it('a context overflow moves on only to a larger declared window', async () => {
    const overflow = recorded('openai/context-length-exceeded');
    const smaller = fresh(openaiChatCompletion('from the smaller model'));
    const larger = anthropicAnswer('from the larger window');
    const agent = createAgent({
      model: openai(overflow),
      tools: [],
      middleware: [
        faultlineModelFallbackMiddleware({
          primary: { contextWindow: 128_000 },
          models: [
            { model: openai(smaller, 'gpt-4o-mini'), contextWindow: 64_000 },
            { model: anthropic(larger), contextWindow: 200_000 },
          ],
          registry: new HealthRegistry(),
        }),
      ],
    });
    expect(await answer(agent)).toBe('from the larger window');
    expect(server.requests(overflow)).toHaveLength(1);
    expect(server.requests(smaller)).toHaveLength(0);
  });

  it('a 400 no model can fix does not move on: a FaultlineError whose cause chain ends in the SDK error', async () => {
    const invalid = recorded('anthropic/invalid-request');
    const backup = fresh(openaiChatCompletion('never asked'));
    const agent = createAgent({
      model: anthropic(invalid),
      tools: [],
      middleware: [
        faultlineModelFallbackMiddleware({ models: [openai(backup)], registry: new HealthRegistry() }),
      ],
    });
    const error = failureOf(await rejection(() => answer(agent)));
    expect(FallbackChainError.isInstance(error)).toBe(true);
    expect(error.toErrorReport().reason).toBe('invalid_request');
    expect(
      (error as FallbackChainError).candidates.map((outcome) => outcome.skipped ?? outcome.status),
    ).toEqual(['failed', 'chain_ended']);
    expect((causes(error).at(-1) as { status?: unknown }).status).toBe(400);
    expect(server.requests(invalid)).toHaveLength(1);
    expect(server.requests(backup)).toHaveLength(0);
  });

  it('an unknown option key, or a model string, is a TypeError at the call', () => {
    const model = anthropic(anthropicAnswer('unused'));
    expect(() => faultlineModelFallbackMiddleware({ models: [model], fallbakOn: {} } as never)).toThrow(
      /unknown option "fallbakOn" for faultlineModelFallbackMiddleware; did you mean "fallbackOn"\?/,
    );
    expect(() => faultlineModelRetryMiddleware({ maxRetries: 2 } as never)).toThrow(
      /unknown option "maxRetries" for faultlineModelRetryMiddleware/,
    );
    expect(() => faultlineModelFallbackMiddleware({ models: [{ model, contextWindw: 1 }] } as never)).toThrow(
      /unknown option "contextWindw" in "models\[0\]"/,
    );
    expect(() => faultlineModelFallbackMiddleware({ models: ['openai:gpt-4o-mini'] } as never)).toThrow(
      /models\[0\] must be a chat model instance/,
    );
    expect(() =>
      faultlineModelFallbackMiddleware({ models: [model], fallbackOn: { unknown: true } }),
    ).toThrow(/fallbackOn\.unknown cannot be turned on/);
  });
});
