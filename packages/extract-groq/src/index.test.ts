import { FaultlineError } from '@faultline/render';
import { loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import Groq from 'groq-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectGroqBlockedAnswer, groqExtractor, withClassifiedErrors } from './index.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

const messages = [{ role: 'user' as const, content: 'hello' }];

describe('withClassifiedErrors (bound to groqExtractor)', () => {
  it('throws a FaultlineError whose cause is the groq-sdk error', async () => {
    const scenario = loadScenario('groq/rate-limit-tokens-per-minute');
    const client = new Groq({ apiKey: 'gsk_test', baseURL: server.baseUrlFor(scenario), maxRetries: 0 });
    let sdkError: unknown;
    const failure = await withClassifiedErrors(
      () =>
        client.chat.completions
          .create({ model: 'llama-3.3-70b-versatile', messages })
          .catch((error: unknown) => {
            sdkError = error;
            throw error;
          }),
      // One attempt: what one failure is classified as (retries, on by default, would wait out the
      // 8 s Retry-After twice); the retry loop has its own tests.
      { retry: false },
    ).catch((error: unknown) => error);
    expect(FaultlineError.isInstance(failure)).toBe(true);
    const error = failure as FaultlineError;
    expect(error.cause).toBe(sdkError);
    expect(error.metadata.provider).toBe('groq');
    const report = error.toErrorReport();
    expect(report).toMatchObject({ reason: 'rate_limit', retryable: true, retryAfterSeconds: 7.16 });
    expect(JSON.stringify(report)).not.toContain('"error":{"message"');
  });

  it('turns a 200 whose answer was withheld (finish_reason content_filter) into content_policy', async () => {
    const body = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1732000000,
      model: 'llama-3.3-70b-versatile',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: 'content_filter',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
      x_groq: { id: 'req_01jblocked' },
    });
    const scenario = { response: { kind: 'http' as const, status: 200, body } };
    const client = new Groq({ apiKey: 'gsk_test', baseURL: server.baseUrlFor(scenario), maxRetries: 0 });
    const failure = await withClassifiedErrors(() =>
      client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages }),
    ).catch((error: unknown) => error);
    expect(FaultlineError.isInstance(failure)).toBe(true);
    expect((failure as FaultlineError).classification.reason).toBe('content_policy');
    expect((failure as FaultlineError).metadata).toMatchObject({
      blockReason: 'content_filter',
      requestId: 'req_01jblocked',
    });
  });

  it('returns an ordinary answer untouched', async () => {
    const body = JSON.stringify({
      id: 'chatcmpl-2',
      object: 'chat.completion',
      created: 1732000000,
      model: 'llama-3.3-70b-versatile',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi' }, logprobs: null, finish_reason: 'stop' },
      ],
    });
    const client = new Groq({
      apiKey: 'gsk_test',
      baseURL: server.baseUrlFor({ response: { kind: 'http', status: 200, body } }),
      maxRetries: 0,
    });
    const answer = await withClassifiedErrors(() =>
      client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages }),
    );
    expect(answer.choices[0]?.message.content).toBe('Hi');
    expect(detectGroqBlockedAnswer(answer)).toBeUndefined();
  });

  it('exports the extractor under the provider key', () => {
    expect(groqExtractor.provider).toBe('groq');
    expect(detectGroqBlockedAnswer(null)).toBeUndefined();
  });
});
