// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
// A chain across SDKs: each candidate's failure is read by its own adapter's extractor.
import Anthropic from '@anthropic-ai/sdk';
import { guardAnthropicStream, withClassifiedErrors as withAnthropic } from '@faultline/extract-anthropic';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Candidate,
  type CandidateOutcome,
  FallbackChainError,
  HealthRegistry,
  MemoryHealthStore,
  runWithFallback,
  streamWithFallback,
} from './index.ts';
import {
  answerScenario,
  chatCandidate,
  deltaText,
  fakeTime,
  type ResponseScenario,
  streamCandidate,
  streamScenario,
  textOf,
} from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

function anthropicClient(scenario: ResponseScenario): Anthropic {
  return new Anthropic({
    apiKey: 'sk-ant-test-faultline',
    maxRetries: 0,
    baseURL: server.baseUrlFor(scenario),
  });
}

const MESSAGE_PARAMS = {
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'canary-prompt-7f3a: say hello' }],
};

function anthropicCandidate(scenario: ResponseScenario): Candidate<unknown> {
  const client = anthropicClient(scenario);
  return {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    withClassifiedErrors: withAnthropic,
    call: ({ signal }) => client.messages.create(MESSAGE_PARAMS, { signal }),
  };
}

function anthropicStreamCandidate(scenario: ResponseScenario): Candidate<AsyncIterable<unknown>> {
  const client = anthropicClient(scenario);
  return {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    withClassifiedErrors: withAnthropic,
    call: async ({ signal }) =>
      guardAnthropicStream(await client.messages.create({ ...MESSAGE_PARAMS, stream: true }, { signal }), {
        signal,
      }),
  };
}

const registry = () => new HealthRegistry({ store: new MemoryHealthStore({ now: fakeTime().now }) });

describe('a chain across the anthropic and openai SDKs', () => {
  it("an anthropic 529 is read by anthropic's extractor, retried, and falls back to openai", async () => {
    const overloaded = loadScenario('anthropic/overloaded');
    const answer = answerScenario('from-openai');
    const time = fakeTime();
    const outcomes: CandidateOutcome[] = [];
    const result = await runWithFallback(
      [anthropicCandidate(overloaded), chatCandidate(server, () => answer, { model: 'gpt-4o' })],
      { registry: registry(), sleep: time.sleep, onOutcome: (outcome) => outcomes.push(outcome) },
    );
    expect(textOf(result)).toBe('from-openai');
    // The default retry (3 attempts, as withClassifiedErrors'), then the next candidate.
    expect(server.requests(overloaded)).toHaveLength(3);
    expect(outcomes[0]).toMatchObject({ provider: 'anthropic', status: 'failed', attempts: 3 });
    expect(outcomes[0]?.waitsMs).toEqual(time.slept);
    // The report is the retry loop's: it counts the attempts and says the retries ran out.
    expect(outcomes[0]?.report).toMatchObject({
      reason: 'overloaded',
      provider: 'anthropic',
      attempts: { made: 3, waitsMs: time.slept },
      retriesExhausted: true,
      nextStep: 'fallback',
    });
  });

  it('an openai quota falls back to anthropic; an anthropic invalid request then ends the chain', async () => {
    const quota = loadScenario('openai/insufficient-quota');
    const invalid = loadScenario('anthropic/invalid-request');
    const error = (await runWithFallback(
      [chatCandidate(server, () => quota, { model: 'gpt-4o' }), anthropicCandidate(invalid)],
      { registry: registry() },
    ).catch((thrown: unknown) => thrown)) as FallbackChainError;
    expect(FallbackChainError.isInstance(error)).toBe(true);
    expect(error.candidates.map((outcome) => [outcome.provider, outcome.report?.reason])).toEqual([
      ['openai', 'quota'],
      ['anthropic', 'invalid_request'],
    ]);
    expect(error.toErrorReport()).toMatchObject({ reason: 'invalid_request', provider: 'anthropic' });
  });

  it('an anthropic stream error after text was delivered ends the chain; one before any text falls back', async () => {
    const afterText = loadScenario('anthropic/stream-overloaded-event');
    const beforeText: ResponseScenario = {
      response: {
        kind: 'sse',
        events:
          afterText.response.kind === 'sse'
            ? [afterText.response.events[0]!, afterText.response.events.at(-1)!]
            : [],
        then: 'end',
      },
    };
    const backup = streamScenario(['from ', 'openai']);
    const drain = async (candidates: Candidate<AsyncIterable<unknown>>[]) => {
      const texts: string[] = [];
      try {
        for await (const chunk of streamWithFallback(candidates, { registry: registry(), retry: false })) {
          texts.push(deltaText(chunk));
        }
        return { texts, error: undefined };
      } catch (error) {
        return { texts, error: error as FallbackChainError };
      }
    };
    const delivered = await drain([
      anthropicStreamCandidate(afterText),
      streamCandidate(server, backup, { model: 'gpt-4o' }),
    ]);
    expect(delivered.error?.classification.reason).toBe('overloaded');
    expect(delivered.error?.candidates[0]?.delivered?.characters).toBe(5);
    expect(server.requests(backup)).toHaveLength(0);

    const early = await drain([
      anthropicStreamCandidate(beforeText),
      streamCandidate(server, backup, { model: 'gpt-4o' }),
    ]);
    expect(early.error).toBeUndefined();
    expect(early.texts.join('')).toBe('from openai');
    expect(server.requests(backup)).toHaveLength(1);
  });
});
