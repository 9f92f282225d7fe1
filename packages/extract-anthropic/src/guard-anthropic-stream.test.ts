import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyClient, clientFor, events, REQUEST, SDKS } from '../test/support.ts';
import { guardAnthropicStream } from './guard-anthropic-stream.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

type SseEvent = { event?: string; data: string };
const sse = (list: SseEvent[], then: 'end' | 'cut' | 'stall') => ({
  response: { kind: 'sse' as const, events: list, then },
});
const complete = [
  events.messageStart,
  events.blockStart,
  events.delta('Hello'),
  events.delta(' there'),
  events.blockStop,
  events.messageDelta('end_turn'),
  events.messageStop,
];
const partial = [events.messageStart, events.blockStart, events.delta('Hello'), events.delta(' there')];

type Outcome = { events: unknown[]; error?: unknown };
async function drain(stream: AsyncIterable<unknown>): Promise<Outcome> {
  const seen: unknown[] = [];
  try {
    for await (const event of stream) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

/** Both ways of streaming: `create({ stream: true })` and the `messages.stream()` helper. */
const modes = [
  {
    name: 'messages.create({ stream: true })',
    open: async (client: AnyClient, signal?: AbortSignal) =>
      (await client.messages.create(
        { ...REQUEST, stream: true },
        signal ? { signal } : {},
      )) as AsyncIterable<unknown>,
  },
  {
    name: 'messages.stream()',
    open: async (client: AnyClient, signal?: AbortSignal) => {
      const stream = client.messages.stream(REQUEST, signal ? { signal } : {});
      stream.on('error', () => {});
      // finalMessage() is awaited by the test where it matters; never leave it unhandled.
      stream.finalMessage().catch(() => {});
      return stream;
    },
  },
];

function reportOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).toErrorReport();
}

for (const { alias, Client } of SDKS) {
  for (const mode of modes) {
    describe(`${alias}, ${mode.name}: guardAnthropicStream`, () => {
      it('passes a complete stream through untouched', async () => {
        const client = clientFor(Client, server.baseUrlFor(sse(complete, 'end')));
        const source = await mode.open(client);
        const outcome = await drain(guardAnthropicStream(source, { idleTimeoutMs: 2_000 }));
        expect(outcome.error).toBeUndefined();
        expect(outcome.events.map((event) => (event as { type: string }).type)).toEqual([
          'message_start',
          'content_block_start',
          'content_block_delta',
          'content_block_delta',
          'content_block_stop',
          'message_delta',
          'message_stop',
        ]);
        if (mode.name === 'messages.stream()') {
          const message = (await (
            source as unknown as { finalMessage(): Promise<unknown> }
          ).finalMessage()) as {
            content: Array<{ text: string }>;
          };
          expect(message.content[0]?.text).toBe('Hello there');
        }
      });

      it('a stream cut mid-way is interrupted, with what was delivered', async () => {
        const client = clientFor(Client, server.baseUrlFor(loadScenario('anthropic/stream-cut')));
        const outcome = await drain(guardAnthropicStream(await mode.open(client), { idleTimeoutMs: 2_000 }));
        const report = reportOf(outcome.error);
        expect(report.reason).toBe('interrupted');
        expect(report.provider).toBe('anthropic');
        // Read by the Anthropic extractor with guardStream's streaming context.
        expect(report.providerMetadata.networkPhase).toBe('stream');
        expect(report.delivered).toEqual({ chunks: 4, characters: 'Hello'.length });
      });

      it('a stream that stalls is ended by the idle timer', async () => {
        const client = clientFor(Client, server.baseUrlFor(sse(partial, 'stall')));
        const started = Date.now();
        const outcome = await drain(guardAnthropicStream(await mode.open(client), { idleTimeoutMs: 300 }));
        expect(Date.now() - started).toBeLessThan(5_000);
        const report = reportOf(outcome.error);
        expect(report.reason).toBe('interrupted');
        expect(report.providerMetadata.origin).toBe('timeout');
        expect(report.delivered).toEqual({ chunks: 4, characters: 'Hello there'.length });
      });

      it('a stream that ends quietly without message_stop is interrupted', async () => {
        const client = clientFor(Client, server.baseUrlFor(sse(partial, 'end')));
        const outcome = await drain(guardAnthropicStream(await mode.open(client), { idleTimeoutMs: 2_000 }));
        expect(outcome.events).toHaveLength(4);
        expect(reportOf(outcome.error).reason).toBe('interrupted');
      });

      it('an in-stream overloaded_error event is overloaded', async () => {
        const client = clientFor(
          Client,
          server.baseUrlFor(loadScenario('anthropic/stream-overloaded-event')),
        );
        const outcome = await drain(guardAnthropicStream(await mode.open(client), { idleTimeoutMs: 2_000 }));
        const report = reportOf(outcome.error);
        expect(report.reason).toBe('overloaded');
        expect(report.retryable).toBe(true);
        expect(report.delivered?.characters).toBe('Hello'.length);
      });

      it('a streamed refusal is content_policy unless detectRefusal is false', async () => {
        const refusal = sse([events.messageStart, events.messageDelta('refusal'), events.messageStop], 'end');
        const client = clientFor(Client, server.baseUrlFor(refusal));
        const outcome = await drain(guardAnthropicStream(await mode.open(client), { idleTimeoutMs: 2_000 }));
        expect(reportOf(outcome.error).reason).toBe('content_policy');
        const passed = await drain(
          guardAnthropicStream(await mode.open(clientFor(Client, server.baseUrlFor(refusal))), {
            idleTimeoutMs: 2_000,
            detectRefusal: false,
          }),
        );
        expect(passed.error).toBeUndefined();
        expect(passed.events).toHaveLength(3);
      });

      it("the caller's abort is re-thrown as the abort, not classified", async () => {
        const controller = new AbortController();
        const client = clientFor(Client, server.baseUrlFor(sse(partial, 'stall')));
        const source = await mode.open(client, controller.signal);
        setTimeout(() => controller.abort(), 150);
        const outcome = await drain(
          guardAnthropicStream(source, { idleTimeoutMs: 5_000, signal: controller.signal }),
        );
        expect(outcome.error).toBeDefined();
        expect(FaultlineError.isInstance(outcome.error)).toBe(false);
        // An AbortError (create) or the SDK's APIUserAbortError (messages.stream()), as thrown.
        expect(String((outcome.error as { name?: unknown }).name) + String(outcome.error)).toMatch(
          /Abort|aborted/,
        );
      });
    });
  }
}
