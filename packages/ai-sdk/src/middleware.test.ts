// biome-ignore-all lint/suspicious/noThenProperty: scenario contract

import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { createOpenAI as createOpenAIV2 } from 'ai-sdk-openai-v2';
import type { LanguageModel as LanguageModelOfAi5 } from 'ai-v5';
import * as ai5 from 'ai-v5';
import { MockLanguageModelV2 } from 'ai-v5/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3, simulateReadableStream } from 'ai-v6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FaultlineAiSdkOptions, faultlineMiddleware, withFaultlineEmbedding } from './middleware.ts';
import { MODELS_V5, MODELS_V6, type Provider } from './test-support.ts';

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

/** ai 5's model stream part (its @ai-sdk/provider 2.x, which ai 5 does not re-export). */
type LanguageModelV2StreamPart =
  Awaited<ReturnType<Exclude<LanguageModelOfAi5, string>['doStream']>>['stream'] extends ReadableStream<
    infer Part
  >
    ? Part
    : never;

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

type Options = FaultlineAiSdkOptions;
/** What a stream surface gave: its parts, and what the stream threw after them. */
interface Drained {
  readonly parts: { type: string; error?: unknown }[];
  readonly thrown: unknown;
}

async function drain(stream: AsyncIterable<{ type: string; error?: unknown }>): Promise<Drained> {
  const parts: { type: string; error?: unknown }[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (thrown) {
    return { parts, thrown };
  }
  return { parts, thrown: undefined };
}

/**
 * The calls each test makes, typed per major: faultlineMiddleware() goes to each major's own
 * wrapLanguageModel and withFaultlineEmbedding's model to its own embed, as in a user's app.
 */
interface Kit {
  readonly alias: string;
  generateText(provider: Provider, baseUrl: string, options: Options): Promise<unknown>;
  generateObject(provider: Provider, baseUrl: string, options: Options): Promise<unknown>;
  streamText(provider: Provider, baseUrl: string, options: Options): Promise<Drained>;
  streamObject(provider: Provider, baseUrl: string, options: Options): Promise<Drained>;
  embed(baseUrl: string, options: Options): Promise<{ modelId: string; result: Promise<unknown> }>;
}

const schema = z.object({ a: z.string() });
const KITS: readonly Kit[] = [
  {
    alias: 'ai-v6',
    generateText: (provider, baseUrl, options) =>
      ai6.generateText({
        model: ai6.wrapLanguageModel({
          model: MODELS_V6[provider](baseUrl),
          middleware: faultlineMiddleware(options),
        }),
        prompt: 'hi',
        maxRetries: 0,
      }),
    generateObject: (provider, baseUrl, options) =>
      ai6.generateObject({
        model: ai6.wrapLanguageModel({
          model: MODELS_V6[provider](baseUrl),
          middleware: faultlineMiddleware(options),
        }),
        prompt: 'hi',
        schema,
        maxRetries: 0,
      }),
    streamText: (provider, baseUrl, options) =>
      drain(
        ai6.streamText({
          model: ai6.wrapLanguageModel({
            model: MODELS_V6[provider](baseUrl),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
    streamObject: (provider, baseUrl, options) =>
      drain(
        ai6.streamObject({
          model: ai6.wrapLanguageModel({
            model: MODELS_V6[provider](baseUrl),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          schema,
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
    embed: async (baseUrl, options) => {
      const base = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-test' });
      const model = withFaultlineEmbedding(base.embedding('text-embedding-3-small'), options);
      return { modelId: model.modelId, result: ai6.embed({ model, value: 'hello', maxRetries: 0 }) };
    },
  },
  {
    alias: 'ai-v5',
    generateText: (provider, baseUrl, options) =>
      ai5.generateText({
        model: ai5.wrapLanguageModel({
          model: MODELS_V5[provider](baseUrl),
          middleware: faultlineMiddleware(options),
        }),
        prompt: 'hi',
        maxRetries: 0,
      }),
    generateObject: (provider, baseUrl, options) =>
      ai5.generateObject({
        model: ai5.wrapLanguageModel({
          model: MODELS_V5[provider](baseUrl),
          middleware: faultlineMiddleware(options),
        }),
        prompt: 'hi',
        schema,
        maxRetries: 0,
      }),
    streamText: (provider, baseUrl, options) =>
      drain(
        ai5.streamText({
          model: ai5.wrapLanguageModel({
            model: MODELS_V5[provider](baseUrl),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
    streamObject: (provider, baseUrl, options) =>
      drain(
        ai5.streamObject({
          model: ai5.wrapLanguageModel({
            model: MODELS_V5[provider](baseUrl),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          schema,
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
    embed: async (baseUrl, options) => {
      const base = createOpenAIV2({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-test' });
      const model = withFaultlineEmbedding(base.textEmbeddingModel('text-embedding-3-small'), options);
      return { modelId: model.modelId, result: ai5.embed({ model, value: 'hello', maxRetries: 0 }) };
    },
  },
];

/** The error part holding the classified error, and the stream then failing with that same error. */
function failedWith(outcome: Drained): FaultlineError {
  const error = errorIn(outcome.parts);
  expect(outcome.thrown, 'the stream fails with its error part').toBe(error);
  return error;
}

for (const kit of KITS) {
  const retrying = (options: Options = {}): Options => ({ retry: FAST_RETRY, ...options });

  describe(`${kit.alias}: faultlineMiddleware`, () => {
    it('generateText: retries a transient failure, then throws it classified with its attempts', async () => {
      const failing = fresh(scenario('openai', 'openai/server-error-json'));
      const error = await thrown(() => kit.generateText('openai', server.baseUrlFor(failing), retrying()));
      expect(FaultlineError.isInstance(error)).toBe(true);
      const report = (error as FaultlineError).toErrorReport();
      expect(report).toMatchObject({ reason: 'server_error', retryable: true });
      expect(server.requests(failing)).toHaveLength(3);
      expect((error as FaultlineError).cause).toMatchObject({ name: 'AI_APICallError' });
    });

    it('generateText: never retries a failure that is not transient', async () => {
      const failing = fresh(scenario('anthropic', 'anthropic/invalid-api-key'));
      const error = await thrown(() => kit.generateText('anthropic', server.baseUrlFor(failing), retrying()));
      expect((error as FaultlineError).toErrorReport()).toMatchObject({
        reason: 'auth',
        provider: 'anthropic',
      });
      expect(server.requests(failing)).toHaveLength(1);
    });

    it('generateObject: a rate limit leaves classified, with the Retry-After', async () => {
      const limited = fresh(scenario('groq', 'groq/rate-limit-tokens-per-minute'));
      const error = await thrown(() =>
        kit.generateObject('groq', server.baseUrlFor(limited), { retry: false }),
      );
      const report = (error as FaultlineError).toErrorReport();
      expect(report).toMatchObject({ reason: 'rate_limit', retryable: true });
      expect(report.retryAfterSeconds).toBeGreaterThan(0);
    });

    it('streamText: a stream cut mid-answer is one error part holding the classified error, then the stream fails with it', async () => {
      const cut = fresh(scenario('anthropic', 'anthropic/stream-cut'));
      const errors: unknown[] = [];
      const outcome = await kit.streamText(
        'anthropic',
        server.baseUrlFor(cut),
        retrying({ onError: (error) => errors.push(error) }),
      );
      expect(failedWith(outcome).toErrorReport()).toMatchObject({
        category: 'ambiguous',
        reason: 'interrupted',
      });
      expect(errors).toHaveLength(1);
    });

    it('streamText: an HTTP failure before the stream starts is retried, then classified', async () => {
      const failing = fresh(scenario('mistral', 'mistral/overloaded-503'));
      const outcome = await kit.streamText('mistral', server.baseUrlFor(failing), retrying());
      expect(errorIn(outcome.parts).toErrorReport()).toMatchObject({ reason: 'overloaded' });
      expect(server.requests(failing)).toHaveLength(3);
    });

    it('streamObject: an error event inside the stream is classified', async () => {
      const event = fresh(scenario('openai', 'openai/stream-context-overflow-event'));
      const outcome = await kit.streamObject('openai', server.baseUrlFor(event), retrying());
      // streamObject reports a failed stream in its error part (it ends its own stream after it).
      expect(errorIn(outcome.parts).toErrorReport()).toMatchObject({ reason: 'context_overflow' });
    });

    it('embed: withFaultlineEmbedding retries and classifies', async () => {
      const failing = fresh(scenario('openai', 'openai/server-error-json'));
      const { modelId, result } = await kit.embed(server.baseUrlFor(failing), retrying());
      expect(modelId).toBe('text-embedding-3-small');
      const error = await thrown(() => result);
      expect((error as FaultlineError).toErrorReport()).toMatchObject({
        reason: 'server_error',
        errorType: expect.stringMatching(/Embedding/),
      });
      expect(server.requests(failing)).toHaveLength(3);
    });
  });
}

describe('faultlineMiddleware on a model stream that misbehaves (the AI SDK mock models)', () => {
  const textV3: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: '1' },
    { type: 'text-delta', id: '1', delta: 'Hello there' },
  ];
  const textV2: LanguageModelV2StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: '1' },
    { type: 'text-delta', id: '1', delta: 'Hello there' },
  ];
  const stalled = <T>(chunks: readonly T[]) =>
    new ReadableStream<T>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
      },
    });
  const runs = {
    'ai-v6': (stream: () => ReadableStream<LanguageModelV3StreamPart>, options: Options) =>
      drain(
        ai6.streamText({
          model: ai6.wrapLanguageModel({
            model: new MockLanguageModelV3({ doStream: async () => ({ stream: stream() }) }),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
    'ai-v5': (stream: () => ReadableStream<LanguageModelV2StreamPart>, options: Options) =>
      drain(
        ai5.streamText({
          model: ai5.wrapLanguageModel({
            model: new MockLanguageModelV2({ doStream: async () => ({ stream: stream() }) }),
            middleware: faultlineMiddleware(options),
          }),
          prompt: 'hi',
          maxRetries: 0,
          onError: () => undefined,
        }).fullStream,
      ),
  };
  const cases = [
    {
      alias: 'ai-v6',
      ended: () => runs['ai-v6'](() => simulateReadableStream({ chunks: textV3 }), {}),
      stalled: () => runs['ai-v6'](() => stalled(textV3), { idleTimeoutMs: 200 }),
    },
    {
      alias: 'ai-v5',
      ended: () => runs['ai-v5'](() => simulateReadableStream({ chunks: textV2 }), {}),
      stalled: () => runs['ai-v5'](() => stalled(textV2), { idleTimeoutMs: 200 }),
    },
  ];
  for (const { alias, ended, stalled: stalls } of cases) {
    it(`${alias}: a model stream that ends without its finish part: interrupted, with what was delivered`, async () => {
      const report = failedWith(await ended()).toErrorReport();
      expect(report).toMatchObject({ category: 'ambiguous', reason: 'interrupted' });
      expect(report.delivered).toMatchObject({ characters: 'Hello there'.length });
    });

    it(`${alias}: a model stream that stalls: interrupted after idleTimeoutMs`, async () => {
      const report = failedWith(await stalls()).toErrorReport();
      expect(report).toMatchObject({ reason: 'interrupted' });
    });
  }
});
