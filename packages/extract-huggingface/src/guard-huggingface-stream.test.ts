import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { drain, type SseEvent, sseFrame, streamMatrix } from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardHuggingfaceStream, guardStream } from './index.ts';
import { openChatStream, SDKS } from './test-support.ts';

/** One chatCompletionStream chunk as the router and text-generation-inference send it (OpenAI-shaped). */
function chunk(content: string, finish: string | null = null): SseEvent {
  return {
    data: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1732000000,
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      choices: [{ index: 0, delta: { role: 'assistant', content }, logprobs: null, finish_reason: finish }],
    }),
  };
}

const partial = [chunk('Hel'), chunk('lo')];

streamMatrix({
  provider: 'huggingface',
  sdks: SDKS,
  sdkPackage: { name: '@huggingface/inference', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardHuggingfaceStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'chatCompletionStream',
      wire: {
        frame: sseFrame,
        complete: [...partial, chunk('', 'stop'), { data: '[DONE]' }],
        partial,
        delivered: { chunks: 2, characters: 'Hello'.length },
        // text-generation-inference's event for a generation that failed (the SDK throws it as
        // ProviderApiError with status 200): classified by its words.
        errorEvent: {
          events: [
            {
              data: JSON.stringify({
                error: 'Request failed during generation: Server error: CUDA out of memory',
                error_type: 'generation',
              }),
            },
          ],
          reason: 'server_error',
        },
      },
      open: async (sdk, baseUrl, { signal, timeoutMs }) =>
        openChatStream(sdk, baseUrl, { signal, timeoutMs }),
    },
  ],
});

// What the matrix does not cover: the recorded error-event scenario through the guard.
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

describe('guardStream: the recorded scenarios', () => {
  it('stream-error-event-generation: classified as the scenario expects, with what was delivered', async () => {
    const scenario = loadScenario('huggingface/stream-error-event-generation');
    const stream = openChatStream(SDKS[0], server.baseUrlFor(scenario), { timeoutMs: 60_000 });
    const { chunks, error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
    expect(chunks).toHaveLength(2);
    expect(FaultlineError.isInstance(error), String(error)).toBe(true);
    expect((error as FaultlineError).toErrorReport()).toMatchObject({
      provider: 'huggingface',
      reason: scenario.expected.reason,
      retryable: scenario.expected.retryable,
      delivered: { chunks: 2, characters: 5 },
    });
  });

  it("a tool call's argument deltas are delivered output", async () => {
    const args = '{"city":"Oslo"}';
    const toolCall: SseEvent = {
      data: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1732000000,
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } },
              ],
            },
            logprobs: null,
            finish_reason: null,
          },
        ],
      }),
    };
    // The stream ends after the call, without a finish: cut after output.
    const stream = openChatStream(SDKS[0], server.baseUrlFor({ response: sseFrame([toolCall], 'end') }), {
      timeoutMs: 60_000,
    });
    const { error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
    expect(FaultlineError.isInstance(error), String(error)).toBe(true);
    expect((error as FaultlineError).toErrorReport()).toMatchObject({
      delivered: { chunks: 1, characters: args.length },
      recovery: { fallback: false },
    });
  });
});
