import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, startLoopbackServer } from '@faultline/test-fixtures';
import {
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOpenRouterStream, guardStream } from './index.ts';
import { chatChunk, clientOf, SDKS } from './test-support.ts';

const REQUEST = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };
const event = (data: string): SseEvent => ({ data });

/** A chunk carrying OpenRouter's mid-stream error, as the API reference types it (an integer code). */
const errorChunk = (code: number, message: string, errorType: string) =>
  JSON.stringify({
    id: 'gen-1763760000-faultline0000',
    object: 'chat.completion.chunk',
    created: 1763760000,
    model: 'openai/gpt-4o-mini',
    error: { code, message, metadata: { error_type: errorType } },
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
  });

const partial = [event(chatChunk('Hel')), event(chatChunk('lo'))];

/**
 * A chat stream ends with a chunk carrying a finish reason, then `[DONE]`. A generation that fails
 * after the 200 says so in a chunk with `error` and `finish_reason: "error"`, which the SDK yields
 * like any other: the guard classifies it by its code and words.
 */
const wire: StreamWire<SseEvent> = {
  frame: sseFrame,
  complete: [...partial, event(chatChunk('', 'stop')), event('[DONE]')],
  partial,
  delivered: { chunks: 2, characters: 'Hello'.length },
  errorEvent: {
    events: [event(errorChunk(502, 'Provider disconnected unexpectedly', 'provider_unavailable'))],
    reason: 'server_error',
  },
};

const open = (
  sdk: (typeof SDKS)[number],
  baseUrl: string,
  options: { signal?: AbortSignal | undefined; timeoutMs: number; fetch?: typeof globalThis.fetch },
) =>
  clientOf(sdk, baseUrl, options.timeoutMs, options.fetch).chat.send(
    { chatRequest: { ...REQUEST, stream: true } },
    options.signal === undefined ? {} : { signal: options.signal },
  ) as Promise<AsyncIterable<unknown>>;

streamMatrix({
  provider: 'openrouter',
  sdks: SDKS,
  sdkPackage: { name: '@openrouter/sdk', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardOpenRouterStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'chat.send (stream)',
      wire,
      acceptsFetch: true,
      releasesRequest: true,
      open: (sdk, baseUrl, { signal, timeoutMs, fetch }) => open(sdk, baseUrl, { signal, timeoutMs, fetch }),
    },
  ],
});

// What the matrix does not cover: a content_filter finish, a finish_reason "error" without an error
// member, and tool-call and reasoning deltas counted as delivered output.

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

async function guarded(events: SseEvent[], options: { detectBlockedAnswer?: boolean } = {}) {
  const sdk = SDKS[0]!;
  const baseUrl = server.baseUrlFor({ response: sseFrame([...events, event('[DONE]')], 'end') });
  return drain(
    guardStream(await open(sdk, baseUrl, { timeoutMs: 60_000 }), { idleTimeoutMs: 3000, ...options }),
  );
}

describe('guardStream: what the matrix does not cover', () => {
  it('a content_filter finish is content_policy, and lets the answer through when asked', async () => {
    const blocked = await guarded([...partial, event(chatChunk('', 'content_filter'))]);
    expect((blocked.error as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'content_policy',
      delivered: { characters: 5 },
    });
    const through = await guarded([...partial, event(chatChunk('', 'content_filter'))], {
      detectBlockedAnswer: false,
    });
    expect(through.error).toBeUndefined();
  });

  it('finish_reason "error" without an error member is still a failure, in words of its own', async () => {
    const { error } = await guarded([...partial, event(chatChunk('', 'error'))]);
    const report = (error as FaultlineError).toErrorReport();
    expect(report.providerMetadata).toMatchObject({ origin: 'stream_event', providerCode: 'error' });
    expect(report.message).toContain('finish_reason "error"');
  });

  it('counts tool-call arguments and reasoning as delivered output', async () => {
    const toolDelta = JSON.stringify({
      id: 'gen-1',
      object: 'chat.completion.chunk',
      created: 1763760000,
      model: 'openai/gpt-4o-mini',
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            reasoning: 'Think',
            tool_calls: [
              { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    const sdk = SDKS[0]!;
    const baseUrl = server.baseUrlFor({ response: sseFrame([event(toolDelta)], 'cut') });
    const { error } = await drain(
      guardStream(await open(sdk, baseUrl, { timeoutMs: 60_000 }), { idleTimeoutMs: 3000 }),
    );
    expect((error as FaultlineError).toErrorReport().delivered).toMatchObject({
      characters: 'Think'.length + '{"a":1}'.length,
    });
  });
});
