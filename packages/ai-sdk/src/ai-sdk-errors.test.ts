// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyAiSdkError, guardAiSdkStream } from './classify-ai-sdk-error.ts';
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

/** A 200 chat completion whose message content is `content` and finish reason `finishReason`. */
function chatCompletion(content: string, finishReason = 'stop'): Pick<Scenario, 'response'> {
  return {
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1763760000,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
        usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
      }),
    },
  };
}

async function thrown(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('resolved without throwing');
}

for (const major of MAJORS) {
  const { ai } = major;
  describe(`${major.alias}: the AI SDK's own errors`, () => {
    it('RetryError: classified as its last attempt, with the attempts the AI SDK made', async () => {
      const overloaded = scenario('openai', 'openai/server-error-json');
      const model = major.models.openai(server.baseUrlFor(overloaded));
      const error = await thrown(() => ai.generateText({ model, prompt: 'hi', maxRetries: 1 }));
      expect((error as Error).name).toBe('AI_RetryError');
      const failure = classifyAiSdkError(error, { provider: model.provider });
      const report = failure.toErrorReport();
      expect(report).toMatchObject({ category: 'transient', reason: 'server_error', retryable: true });
      expect(report.providerMetadata?.sdkAttempts).toBe(2);
      expect(report.providerMetadata?.statusCode).toBe(500);
      expect(failure.cause).toBe(error);
    });

    it('LoadAPIKeyError: auth', async () => {
      const saved = process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_API_KEY;
      try {
        const openai = major.models.openai(server.baseUrlFor(scenario('openai', 'openai/invalid-api-key')));
        // The same provider without a key.
        const { createOpenAI } = await import(
          major.alias === 'ai-v6' ? '@ai-sdk/openai' : 'ai-sdk-openai-v2'
        );
        const model = createOpenAI({ baseURL: 'http://127.0.0.1:9/v1' }).chat('gpt-4o-mini');
        expect(openai.provider).toBe(model.provider);
        const error = await thrown(() => ai.generateText({ model, prompt: 'hi', maxRetries: 0 }));
        expect((error as Error).name).toBe('AI_LoadAPIKeyError');
        expect(classifyAiSdkError(error).toErrorReport()).toMatchObject({
          category: 'configuration',
          reason: 'auth',
          userAction: { kind: 'check_credentials' },
        });
      } finally {
        if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      }
    });

    it('LoadSettingError (Bedrock without a region): endpoint', async () => {
      const saved = process.env.AWS_REGION;
      delete process.env.AWS_REGION;
      try {
        const { createAmazonBedrock } = await import(
          major.alias === 'ai-v6' ? '@ai-sdk/amazon-bedrock' : 'ai-sdk-amazon-bedrock-v3'
        );
        const model = createAmazonBedrock({ accessKeyId: 'AKIAFAULTLINETEST0001', secretAccessKey: 'x' })(
          'anthropic.claude-3-5-haiku-20241022-v1:0',
        );
        const error = await thrown(() => ai.generateText({ model, prompt: 'hi', maxRetries: 0 }));
        expect((error as Error).name).toBe('AI_LoadSettingError');
        expect(classifyAiSdkError(error).toErrorReport()).toMatchObject({
          reason: 'endpoint',
          retryable: false,
        });
      } finally {
        if (saved !== undefined) process.env.AWS_REGION = saved;
      }
    });

    it('NoSuchModelError from a provider registry: model_not_found', () => {
      const registry = ai.customProvider({ languageModels: {} });
      let error: unknown;
      try {
        registry.languageModel('gpt-none');
      } catch (caught) {
        error = caught;
      }
      expect((error as Error).name).toBe('AI_NoSuchModelError');
      expect(classifyAiSdkError(error).toErrorReport()).toMatchObject({
        reason: 'model_not_found',
        category: 'configuration',
      });
    });

    it('NoObjectGeneratedError (the model answered text that is not the object): invalid_request, no model output in the report', async () => {
      const answer = chatCompletion('Sure! Here is the thing you asked for: secret-model-output-canary');
      const model = major.models.openai(server.baseUrlFor(answer));
      const error = await thrown(() =>
        ai.generateObject({ model, prompt: 'hi', schema: z.object({ name: z.string() }), maxRetries: 0 }),
      );
      expect((error as Error).name).toBe('AI_NoObjectGeneratedError');
      const report = classifyAiSdkError(error, { provider: model.provider }).toErrorReport();
      expect(report).toMatchObject({ category: 'content', reason: 'invalid_request', retryable: false });
      expect(JSON.stringify(report)).not.toContain('secret-model-output-canary');
    });

    it('a content-filter finish of generateObject: content_policy', async () => {
      const answer = chatCompletion('', 'content_filter');
      const model = major.models.openai(server.baseUrlFor(answer));
      const error = await thrown(() =>
        ai.generateObject({ model, prompt: 'hi', schema: z.object({ name: z.string() }), maxRetries: 0 }),
      );
      expect((error as Error).name).toBe('AI_NoObjectGeneratedError');
      expect(classifyAiSdkError(error).toErrorReport()).toMatchObject({ reason: 'content_policy' });
    });

    it('InvalidPromptError (the call itself is wrong): invalid_request, the prompt never in the report', async () => {
      const model = major.models.openai(server.baseUrlFor(chatCompletion('hi')));
      const error = await thrown(() =>
        ai.generateText({
          model,
          prompt: 'prompt-canary',
          messages: [{ role: 'user', content: 'x' }],
          maxRetries: 0,
        }),
      );
      expect((error as Error).name).toBe('AI_InvalidPromptError');
      const report = classifyAiSdkError(error).toErrorReport();
      expect(report).toMatchObject({ reason: 'invalid_request', category: 'content' });
      expect(JSON.stringify(report)).not.toContain('prompt-canary');
    });

    it("the caller's abort stays the caller's", async () => {
      const controller = new AbortController();
      const never = scenario('openai', 'openai/never-answer');
      const model = major.models.openai(server.baseUrlFor(never));
      setTimeout(() => controller.abort(), 50);
      const error = await thrown(() =>
        ai.generateText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal }),
      );
      const failure = classifyAiSdkError(error, { signal: controller.signal });
      expect(failure.classification.callerAborted).toBe(true);
      expect(failure.classification.retryable).toBe(false);
    });

    it('a stream that stalls after its first parts: interrupted, with what was delivered', async () => {
      const stall = scenario('mistral', 'mistral/stream-stall');
      const model = major.models.mistral(server.baseUrlFor(stall));
      const result = ai.streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => undefined });
      const error = await thrown(async () => {
        for await (const _part of guardAiSdkStream(result.fullStream, { idleTimeoutMs: 1_000 })) {
          // drain
        }
      });
      const report = classifyAiSdkError(error).toErrorReport();
      expect(report).toMatchObject({ category: 'ambiguous', reason: 'interrupted' });
      expect(report.delivered?.characters).toBeGreaterThan(0);
    });
  });
}

describe('totality', () => {
  it('classifies hostile values without throwing', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('getter');
        },
      },
    );
    const values: unknown[] = [
      null,
      undefined,
      'AI_APICallError',
      hostile,
      { name: 'AI_APICallError', statusCode: 'abc', responseBody: 42 },
      { name: 'AI_APICallError', statusCode: 503, responseBody: `<html>${'x'.repeat(5 * 1024 * 1024)}` },
      { name: 'AI_RetryError', errors: 'not an array', lastError: { name: 'AI_RetryError' } },
      { name: 'AI_NoObjectGeneratedError', cause: { name: 'AI_NoObjectGeneratedError' } },
    ];
    for (const value of values) {
      const report = classifyAiSdkError(value).toErrorReport();
      expect(typeof report.reason).toBe('string');
    }
  });
});
