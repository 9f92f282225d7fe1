// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { MockLanguageModelV2 } from 'ai-v5/test';
import { MockLanguageModelV3, simulateReadableStream } from 'ai-v6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { faultlineMiddleware, withFaultlineEmbedding } from './middleware.ts';
import { MAJORS } from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

const scenario = (provider: string, id: string): Scenario => {
  const found = loadScenarios(provider).find((item) => item.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
};

/** A fresh registration of a scenario (its own token, so its request count is its own). */
const fresh = (item: Scenario): Pick<Scenario, 'response'> => ({ response: structuredClone(item.response) });

async function thrown(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('resolved without throwing');
}

/** The FaultlineError of the stream's error part (fails the test when there is none). */
function errorIn(parts: readonly { type: string; error?: unknown }[]): FaultlineError {
  const error = parts.find((part) => part.type === 'error')?.error;
  if (!FaultlineError.isInstance(error))
    throw new Error(`no classified error part in ${parts.map((part) => part.type)}`);
  return error;
}

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

for (const major of MAJORS) {
  const ai = major.ai as any;
  const wrap = (model: unknown, options = {}) =>
    ai.wrapLanguageModel({ model, middleware: faultlineMiddleware({ retry: FAST_RETRY, ...options }) });

  describe(`${major.alias}: faultlineMiddleware`, () => {
    it('generateText: retries a transient failure, then throws it classified with its attempts', async () => {
      const failing = fresh(scenario('openai', 'openai/server-error-json'));
      const model = wrap(major.models.openai(server.baseUrlFor(failing)));
      const error = await thrown(() => ai.generateText({ model, prompt: 'hi', maxRetries: 0 }));
      expect(FaultlineError.isInstance(error)).toBe(true);
      const report = (error as FaultlineError).toErrorReport();
      expect(report).toMatchObject({ reason: 'server_error', retryable: true });
      expect(server.requests(failing)).toHaveLength(3);
      expect((error as FaultlineError).cause).toMatchObject({ name: 'AI_APICallError' });
    });

    it('generateText: never retries a failure that is not transient', async () => {
      const failing = fresh(scenario('anthropic', 'anthropic/invalid-api-key'));
      const model = wrap(major.models.anthropic(server.baseUrlFor(failing)));
      const error = await thrown(() => ai.generateText({ model, prompt: 'hi', maxRetries: 0 }));
      expect((error as FaultlineError).toErrorReport()).toMatchObject({
        reason: 'auth',
        provider: 'anthropic',
      });
      expect(server.requests(failing)).toHaveLength(1);
    });

    it('generateObject: a rate limit leaves classified, with the Retry-After', async () => {
      const limited = fresh(scenario('groq', 'groq/rate-limit-tokens-per-minute'));
      const model = wrap(major.models.groq(server.baseUrlFor(limited)), { retry: false });
      const error = await thrown(() =>
        ai.generateObject({ model, prompt: 'hi', schema: z.object({ a: z.string() }), maxRetries: 0 }),
      );
      const report = (error as FaultlineError).toErrorReport();
      expect(report).toMatchObject({ reason: 'rate_limit', retryable: true });
      expect(report.retryAfterSeconds).toBeGreaterThan(0);
    });

    it('streamText: a stream cut mid-answer becomes one error part holding the classified error', async () => {
      const cut = fresh(scenario('anthropic', 'anthropic/stream-cut'));
      const errors: unknown[] = [];
      const model = wrap(major.models.anthropic(server.baseUrlFor(cut)), {
        onError: (e: unknown) => errors.push(e),
      });
      const result = ai.streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => undefined });
      const parts: { type: string; error?: unknown }[] = [];
      for await (const part of result.fullStream) parts.push(part);
      const errorPart = parts.find((part) => part.type === 'error');
      expect(FaultlineError.isInstance(errorPart?.error)).toBe(true);
      expect(errorIn(parts).toErrorReport()).toMatchObject({
        category: 'ambiguous',
        reason: 'interrupted',
      });
      expect(errors).toHaveLength(1);
    });

    it('streamText: an HTTP failure before the stream starts is retried, then classified', async () => {
      const failing = fresh(scenario('mistral', 'mistral/overloaded-503'));
      const model = wrap(major.models.mistral(server.baseUrlFor(failing)));
      const result = ai.streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => undefined });
      const parts: { type: string; error?: unknown }[] = [];
      for await (const part of result.fullStream) parts.push(part);
      expect(errorIn(parts).toErrorReport()).toMatchObject({ reason: 'overloaded' });
      expect(server.requests(failing)).toHaveLength(3);
    });

    it('streamObject: an error event inside the stream is classified', async () => {
      const event = fresh(scenario('openai', 'openai/stream-context-overflow-event'));
      const model = wrap(major.models.openai(server.baseUrlFor(event)));
      const result = ai.streamObject({
        model,
        prompt: 'hi',
        schema: z.object({ a: z.string() }),
        maxRetries: 0,
        onError: () => undefined,
      });
      const parts: { type: string; error?: unknown }[] = [];
      for await (const part of result.fullStream) parts.push(part);
      expect(errorIn(parts).toErrorReport()).toMatchObject({
        reason: 'context_overflow',
      });
    });

    it('embed: withFaultlineEmbedding retries and classifies', async () => {
      const failing = fresh(scenario('openai', 'openai/server-error-json'));
      const { createOpenAI } = await import(major.alias === 'ai-v6' ? '@ai-sdk/openai' : 'ai-sdk-openai-v2');
      const base = createOpenAI({ baseURL: `${server.baseUrlFor(failing)}/v1`, apiKey: 'sk-test' });
      const model = withFaultlineEmbedding(base.embedding('text-embedding-3-small'), { retry: FAST_RETRY });
      expect(model.modelId).toBe('text-embedding-3-small');
      const error = await thrown(() => ai.embed({ model, value: 'hello', maxRetries: 0 }));
      expect((error as FaultlineError).toErrorReport()).toMatchObject({
        reason: 'server_error',
        errorType: expect.stringMatching(/Embedding/),
      });
      expect(server.requests(failing)).toHaveLength(3);
    });
  });
}

describe('faultlineMiddleware on a model stream that misbehaves (the AI SDK mock models)', () => {
  const Mocks = [
    { alias: 'ai-v6', Mock: MockLanguageModelV3, ai: MAJORS[0]!.ai },
    { alias: 'ai-v5', Mock: MockLanguageModelV2, ai: MAJORS[1]!.ai },
  ];
  for (const { alias, Mock, ai } of Mocks) {
    const text = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'Hello there' },
    ];

    it(`${alias}: a model stream that ends without its finish part: interrupted, with what was delivered`, async () => {
      const model = new (Mock as any)({
        doStream: async () => ({ stream: simulateReadableStream({ chunks: text }) }),
      });
      const wrapped = ai.wrapLanguageModel({ model, middleware: faultlineMiddleware() });
      const result = ai.streamText({ model: wrapped, prompt: 'hi', maxRetries: 0, onError: () => undefined });
      const parts: { type: string; error?: unknown }[] = [];
      for await (const part of result.fullStream) parts.push(part);
      const report = errorIn(parts).toErrorReport();
      expect(report).toMatchObject({ category: 'ambiguous', reason: 'interrupted' });
      expect(report.delivered).toMatchObject({ characters: 'Hello there'.length });
    });

    it(`${alias}: a model stream that stalls: interrupted after idleTimeoutMs`, async () => {
      const stalled = new ReadableStream({
        start(controller) {
          for (const chunk of text) controller.enqueue(chunk);
        },
      });
      const model = new (Mock as any)({ doStream: async () => ({ stream: stalled }) });
      const wrapped = ai.wrapLanguageModel({
        model,
        middleware: faultlineMiddleware({ idleTimeoutMs: 200 }),
      });
      const result = ai.streamText({ model: wrapped, prompt: 'hi', maxRetries: 0, onError: () => undefined });
      const parts: { type: string; error?: unknown }[] = [];
      for await (const part of result.fullStream) parts.push(part);
      const report = errorIn(parts).toErrorReport();
      expect(report).toMatchObject({ reason: 'interrupted' });
    });
  }
});
