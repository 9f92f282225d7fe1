import type { Scenario } from '@faultline/test-fixtures';
import { type LoopbackServer, startLoopbackServer } from '@faultline/test-fixtures';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyLangChainError } from './classify-langchain-error.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

const answer = (status: number, body: unknown): Pick<Scenario, 'response'> => ({
  response: {
    kind: 'http',
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  },
});

async function invoked(scenario: Pick<Scenario, 'response'>): Promise<{ error: unknown; model: ChatOpenAI }> {
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test-faultline-canary-0123456789abcdef',
    configuration: { baseURL: `${server.baseUrlFor(scenario)}/v1` },
    maxRetries: 0,
  });
  const error = await model.invoke('hi').then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { error, model };
}

describe("the SDK's error as LangChain hands it on", () => {
  it('a string error body is read for its words, past the troubleshooting URL LangChain appends', async () => {
    const { error, model } = await invoked(
      answer(429, { error: "you've reached your weekly usage limit, please wait or upgrade to continue" }),
    );
    const message = (error as Error).message;
    expect(message).toContain('Troubleshooting URL');
    const report = classifyLangChainError(error, { provider: model._llmType() }).toErrorReport();
    expect(report).toMatchObject({ category: 'capacity', reason: 'quota', retryable: false });
    // Read from a copy: the error LangChain threw keeps its message and fields.
    expect((error as Error).message).toBe(message);
    expect((error as { lc_error_code?: unknown }).lc_error_code).toBe('MODEL_RATE_LIMIT');
  });

  it('a short-window limit stays a rate limit', async () => {
    const { error, model } = await invoked(answer(429, { error: 'too many requests, slow down' }));
    const report = classifyLangChainError(error, { provider: model._llmType() }).toErrorReport();
    expect(report).toMatchObject({ category: 'transient', reason: 'rate_limit', retryable: true });
  });
});
