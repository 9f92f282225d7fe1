import { FaultlineError } from '@faultline/render';
import { loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { Mistral } from '@mistralai/mistralai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectMistralBlockedAnswer, mistralExtractor, withClassifiedErrors } from './index.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

const request = { model: 'mistral-small-latest', messages: [{ role: 'user' as const, content: 'hello' }] };

function completion(finishReason: string, content: string): string {
  return JSON.stringify({
    id: 'cmpl-1',
    object: 'chat.completion',
    created: 1732000000,
    model: 'mistral-small-latest',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
}

describe('withClassifiedErrors (bound to mistralExtractor)', () => {
  it('throws a FaultlineError whose cause is the SDKError', async () => {
    const scenario = loadScenario('mistral/context-overflow');
    const client = new Mistral({ apiKey: 'test-key', serverURL: server.baseUrlFor(scenario) });
    let sdkError: unknown;
    const failure = await withClassifiedErrors(() =>
      client.chat.complete(request).catch((error: unknown) => {
        sdkError = error;
        throw error;
      }),
    ).catch((error: unknown) => error);
    expect(FaultlineError.isInstance(failure)).toBe(true);
    const error = failure as FaultlineError;
    expect(error.cause).toBe(sdkError);
    expect((sdkError as Error).name).toBe('SDKError');
    expect(error.toErrorReport()).toMatchObject({ reason: 'context_overflow', retryable: false });
    expect(JSON.stringify(error.toErrorReport())).not.toContain('"object":"error"');
  });

  it('turns a 200 whose answer was withheld (finish_reason content_filter) into content_policy', async () => {
    const scenario = {
      response: { kind: 'http' as const, status: 200, body: completion('content_filter', '') },
    };
    const client = new Mistral({ apiKey: 'test-key', serverURL: server.baseUrlFor(scenario) });
    const failure = await withClassifiedErrors(() => client.chat.complete(request)).catch(
      (error: unknown) => error,
    );
    expect(FaultlineError.isInstance(failure)).toBe(true);
    expect((failure as FaultlineError).classification.reason).toBe('content_policy');
    expect((failure as FaultlineError).metadata).toMatchObject({
      blockReason: 'content_filter',
      requestId: 'cmpl-1',
    });
  });

  it('returns an ordinary answer untouched', async () => {
    const scenario = { response: { kind: 'http' as const, status: 200, body: completion('stop', 'Hi') } };
    const client = new Mistral({ apiKey: 'test-key', serverURL: server.baseUrlFor(scenario) });
    const answer = await withClassifiedErrors(() => client.chat.complete(request));
    expect(answer.choices?.[0]?.message?.content).toBe('Hi');
    expect(detectMistralBlockedAnswer(answer)).toBeUndefined();
  });

  it('exports the extractor under the provider key', () => {
    expect(mistralExtractor.provider).toBe('mistral');
    expect(detectMistralBlockedAnswer(undefined)).toBeUndefined();
  });
});
