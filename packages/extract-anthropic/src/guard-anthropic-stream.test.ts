import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import {
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AnyClient, clientFor, events, type MessagesLike, REQUEST, SDKS } from '../test/support.ts';
import { guardAnthropicStream } from './guard-anthropic-stream.ts';

type Sdk = (typeof SDKS)[number];

const partial: SseEvent[] = [
  events.messageStart,
  events.blockStart,
  events.delta('Hello'),
  events.delta(' there'),
];

/** The Messages API: message_start … content blocks … message_delta, then `message_stop`. */
const messagesWire: StreamWire<SseEvent> = {
  frame: sseFrame,
  complete: [...partial, events.blockStop, events.messageDelta('end_turn'), events.messageStop],
  partial,
  delivered: { chunks: partial.length, characters: 'Hello there'.length },
  errorEvent: {
    // 1.12/0.137 throw an APIError carrying the event's body; 0.39 an APIConnectionError whose
    // cause is "SSE Error: {json}", which the extractor parses: overloaded on every major.
    events: [events.error('overloaded_error', 'Overloaded')],
    reason: 'overloaded',
  },
};

const clientOf = (sdk: Sdk, baseUrl: string, timeoutMs: number, fetch?: typeof globalThis.fetch): AnyClient =>
  clientFor(sdk.Client, baseUrl, timeoutMs, fetch);

/** `create({ stream: true })` on `messages` or `beta.messages`: the SDK's raw event stream. */
const createStream = (messagesOf: (client: AnyClient) => MessagesLike) => ({
  wire: messagesWire,
  releasesRequest: true,
  acceptsFetch: true,
  open: async (
    sdk: Sdk,
    baseUrl: string,
    {
      signal,
      timeoutMs,
      fetch,
    }: { signal: AbortSignal; timeoutMs: number; fetch?: typeof globalThis.fetch | undefined },
  ) =>
    (await messagesOf(clientOf(sdk, baseUrl, timeoutMs, fetch)).create(
      { ...REQUEST, stream: true },
      { signal },
    )) as AsyncIterable<unknown>,
});
/** The `.stream()` helper (MessageStream, BetaMessageStream), nothing attached to it. */
const helperStream = (messagesOf: (client: AnyClient) => MessagesLike) => ({
  wire: messagesWire,
  releasesRequest: true,
  open: async (
    sdk: Sdk,
    baseUrl: string,
    { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number },
  ) => messagesOf(clientOf(sdk, baseUrl, timeoutMs)).stream(REQUEST, { signal }),
});
const messages = (client: AnyClient) => client.messages;
const betaMessages = (client: AnyClient) => client.beta.messages;

streamMatrix({
  provider: 'anthropic',
  sdks: SDKS,
  sdkPackage: { name: '@anthropic-ai/sdk', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardAnthropicStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  // The guard closes the request itself when it gives up on a stall, on every surface.
  surfaces: [
    { name: 'messages.create({ stream: true })', ...createStream(messages) },
    { name: 'messages.stream() → finalMessage()', resultMethod: 'finalMessage', ...helperStream(messages) },
    // A caller who only awaits the text: the helper's other result method, its own error path.
    { name: 'messages.stream() → finalText()', resultMethod: 'finalText', ...helperStream(messages) },
    { name: 'beta.messages.create({ stream: true })', ...createStream(betaMessages) },
    {
      name: 'beta.messages.stream() → finalMessage()',
      resultMethod: 'finalMessage',
      ...helperStream(betaMessages),
    },
  ],
});

// What the matrix does not cover: Anthropic's refusal, its other error event, the result methods
// after a guarded iteration, the request the guard closes, and what counts as delivered output.

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

function reportOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).toErrorReport();
}

/** Both kinds of stream, on `messages`: the raw events and the helper. */
const kinds = [
  {
    name: 'messages.create({ stream: true })',
    open: async (client: AnyClient) =>
      (await client.messages.create({ ...REQUEST, stream: true })) as AsyncIterable<unknown>,
  },
  { name: 'messages.stream()', open: async (client: AnyClient) => client.messages.stream(REQUEST) },
];
const openOn = (sdk: Sdk, list: readonly SseEvent[], ending: 'end' | 'cut' | 'stall' = 'end') =>
  clientOf(sdk, server.baseUrlFor({ response: sseFrame(list, ending) }), 60_000);

const refusalScenario = loadScenario('anthropic/refusal');
const refusal = [events.messageStart, events.messageDelta('refusal'), events.messageStop];
const apiErrorScenario = loadScenario('anthropic/stream-api-error-event');
const apiErrorEvents =
  apiErrorScenario.response.kind === 'sse' ? apiErrorScenario.response.events.slice(0, -1) : [];
const textOf = (event: { data: string }) =>
  (JSON.parse(event.data) as { delta?: { text?: string } }).delta?.text ?? '';

for (const sdk of SDKS) {
  describe(`guardAnthropicStream with real ${sdk.alias}`, () => {
    for (const kind of kinds) {
      it(`${kind.name}: a streamed refusal is the refusal scenario's classification, unless detectBlockedAnswer is false`, async () => {
        const expected = expectedFor(refusalScenario, sdk.alias);
        const blocked = await drain(
          guardAnthropicStream(await kind.open(openOn(sdk, refusal)), { idleTimeoutMs: 3_000 }),
        );
        expect(reportOf(blocked.error)).toMatchObject({
          reason: expected.reason,
          category: expected.category,
          retryable: expected.retryable,
          delivered: { chunks: 1, characters: 0 },
        });
        expect(blocked.chunks).toHaveLength(1);
        const passed = await drain(
          guardAnthropicStream(await kind.open(openOn(sdk, refusal)), {
            idleTimeoutMs: 3_000,
            detectBlockedAnswer: false,
          }),
        );
        expect(passed.error).toBeUndefined();
        expect(passed.chunks).toHaveLength(refusal.length);
      });

      it(`${kind.name}: an in-stream api_error event is the scenario's classification`, async () => {
        const expected = expectedFor(apiErrorScenario, sdk.alias);
        const client = clientOf(sdk, server.baseUrlFor(apiErrorScenario), 60_000);
        const outcome = await drain(guardAnthropicStream(await kind.open(client), { idleTimeoutMs: 3_000 }));
        expect(reportOf(outcome.error)).toMatchObject({
          reason: expected.reason,
          category: expected.category,
          retryable: expected.retryable,
          delivered: {
            chunks: apiErrorEvents.length,
            characters: apiErrorEvents.map(textOf).join('').length,
          },
        });
        expect(reportOf(outcome.error).providerMetadata.origin).toBe('stream_event');
      });

      it(`${kind.name}: delivered counts text, thinking and tool-input deltas`, async () => {
        const thinking = 'Let me check the weather.';
        const toolInput = '{"city": "Par';
        const list: SseEvent[] = [
          events.messageStart,
          block(0, { type: 'thinking', thinking: '', signature: '' }),
          delta(0, { type: 'thinking_delta', thinking }),
          block(1, { type: 'text', text: '' }),
          delta(1, { type: 'text_delta', text: 'Checking.' }),
          block(2, { type: 'tool_use', id: 'toolu_01Faultline', name: 'get_weather', input: {} }),
          delta(2, { type: 'input_json_delta', partial_json: toolInput }),
        ];
        const outcome = await drain(
          guardAnthropicStream(await kind.open(openOn(sdk, list)), { idleTimeoutMs: 3_000 }),
        );
        expect(reportOf(outcome.error).delivered).toEqual({
          chunks: list.length,
          characters: thinking.length + 'Checking.'.length + toolInput.length,
        });
      });
    }

    it('messages.stream(): after a guarded iteration, the result methods answer as the SDK does', async () => {
      const complete = messagesWire.complete;
      const own = await openOn(sdk, complete).messages.stream(REQUEST).finalMessage();
      const guarded = guardAnthropicStream(openOn(sdk, complete).messages.stream(REQUEST), {
        idleTimeoutMs: 3_000,
      });
      expect((await drain(guarded)).error).toBeUndefined();
      expect(await guarded.finalMessage()).toEqual(own);
      expect(await guarded.finalText()).toBe('Hello there');

      // A failed iteration: every result method rejects with the very error the iteration threw.
      const failing = guardAnthropicStream(
        openOn(sdk, [...partial, ...messagesWire.errorEvent.events]).messages.stream(REQUEST),
        { idleTimeoutMs: 3_000 },
      );
      const { error } = await drain(failing);
      expect(reportOf(error).reason).toBe(messagesWire.errorEvent.reason);
      await expect(failing.finalMessage()).rejects.toBe(error);
      await expect(failing.finalText()).rejects.toBe(error);
    });

    it("messages.stream(): the caller's abort is the very APIUserAbortError the SDK emitted (0.39's is named Error)", async () => {
      const controller = new AbortController();
      const source = openOn(sdk, partial, 'stall').messages.stream(REQUEST, { signal: controller.signal });
      const emitted: unknown[] = [];
      source.on('abort', (error) => emitted.push(error));
      const chunks: unknown[] = [];
      let thrown: unknown;
      try {
        for await (const chunk of guardAnthropicStream(source, {
          idleTimeoutMs: 10_000,
          signal: controller.signal,
        })) {
          chunks.push(chunk);
          controller.abort();
        }
      } catch (error) {
        thrown = error;
      }
      expect(chunks).toHaveLength(1);
      expect(emitted).toHaveLength(1);
      expect(thrown).toBe(emitted[0]);
      expect((thrown as Error).message).toBe('Request was aborted.');
    });

    it('messages.stream(): a refusal rejects finalMessage() classified, or resolves it with detectBlockedAnswer false', async () => {
      const expected = expectedFor(refusalScenario, sdk.alias);
      const blocked = guardAnthropicStream(openOn(sdk, refusal).messages.stream(REQUEST), {
        idleTimeoutMs: 3_000,
      });
      const error = await blocked.finalMessage().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(reportOf(error).reason).toBe(expected.reason);
      const passed = guardAnthropicStream(openOn(sdk, refusal).messages.stream(REQUEST), {
        idleTimeoutMs: 3_000,
        detectBlockedAnswer: false,
      });
      expect(await passed.finalMessage()).toMatchObject({ stop_reason: 'refusal' });
    });
  });
}

function block(index: number, contentBlock: Record<string, unknown>): SseEvent {
  return {
    event: 'content_block_start',
    data: JSON.stringify({ type: 'content_block_start', index, content_block: contentBlock }),
  };
}
function delta(index: number, body: Record<string, unknown>): SseEvent {
  return {
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index, delta: body }),
  };
}

/** A server that sends the start of an answer, then stays silent, and counts the requests the client closed. */
async function stallingServer(): Promise<{ url: string; closed: () => number; close: () => Promise<void> }> {
  let closed = 0;
  const httpServer = createServer((_request, response) => {
    response.on('close', () => {
      closed += 1;
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of partial) response.write(`event: ${event.event}\ndata: ${event.data}\n\n`);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    closed: () => closed,
    close: async () => {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

describe('guardAnthropicStream closes the request of a stream it gives up on', () => {
  // The loopback server does not tell whether the client closed a stalled stream; a bare server does.
  const surfaces = [
    ['messages.create({ stream: true })', createStream(messages).open],
    ['beta.messages.create({ stream: true })', createStream(betaMessages).open],
    ['messages.stream()', helperStream(messages).open],
    ['beta.messages.stream()', helperStream(betaMessages).open],
  ] as const;
  for (const sdk of SDKS) {
    for (const [name, open] of surfaces) {
      it(`${sdk.alias} ${name}: the server sees the request closed after the idle timeout`, async () => {
        const stalling = await stallingServer();
        try {
          const source = await open(sdk, stalling.url, {
            signal: new AbortController().signal,
            timeoutMs: 60_000,
          });
          const outcome = await drain(guardAnthropicStream(source, { idleTimeoutMs: 300 }));
          expect(reportOf(outcome.error).providerMetadata.origin).toBe('timeout');
          await vi.waitFor(() => expect(stalling.closed()).toBe(1), { timeout: 5_000 });
        } finally {
          await stalling.close();
        }
      });
    }
  }
});
