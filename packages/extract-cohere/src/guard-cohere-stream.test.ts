import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import {
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardCohereStream, guardStream } from './index.ts';
import { callApi, clientOf, SDKS } from './test-support.ts';

/** One v2 chat stream event as Cohere sends it: `event: <type>` and the same `type` in the data. */
const event = (type: string, fields: object): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});
const delta = (text: string) =>
  event('content-delta', { index: 0, delta: { message: { content: { text } } } });
const messageEnd = (finishReason: string, error?: string) =>
  event('message-end', {
    delta: {
      ...(error === undefined ? {} : { error }),
      finish_reason: finishReason,
      usage: { billed_units: { input_tokens: 5, output_tokens: 2 } },
    },
  });

const partial = [
  event('message-start', {
    id: '00000000-0000-0000-0000-000000000000',
    delta: { message: { role: 'assistant' } },
  }),
  event('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
  delta('Hel'),
  delta('lo'),
];

/**
 * A chat stream ends with `message-end`. A generation that fails after the 200 says so in that
 * event (`finish_reason: "ERROR"` and `delta.error`), which cohere-ai yields like any other: the
 * guard classifies it by its words.
 */
const wire: StreamWire<SseEvent> = {
  frame: sseFrame,
  complete: [...partial, event('content-end', { index: 0 }), messageEnd('COMPLETE')],
  partial,
  delivered: { chunks: 4, characters: 'Hello'.length },
  errorEvent: {
    events: [messageEnd('ERROR', 'internal server error, this has been reported to our developers')],
    reason: 'server_error',
  },
};

streamMatrix({
  provider: 'cohere',
  sdks: SDKS,
  sdkPackage: { name: 'cohere-ai', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardCohereStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'chatStream',
      wire,
      acceptsFetch: true,
      open: (sdk, baseUrl, { signal, timeoutMs, fetch }) =>
        callApi(clientOf(sdk, baseUrl, timeoutMs, fetch), 'chat', true, { abortSignal: signal }) as Promise<
          AsyncIterable<unknown>
        >,
    },
  ],
});

// What the matrix does not cover: the recorded stream scenarios through the guard, and a message-end
// that says ERROR without words.

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

for (const sdk of SDKS) {
  describe.concurrent(`guardStream, ${sdk.alias}: what the matrix does not cover`, () => {
    for (const name of ['stream-message-end-error', 'stream-ends-without-message-end']) {
      it(`${name}: classified as the scenario expects, with what was delivered`, async () => {
        const scenario = loadScenario(`cohere/${name}`);
        const stream = (await callApi(
          clientOf(sdk, server.baseUrlFor(scenario), 60_000),
          'chat',
          true,
        )) as AsyncIterable<unknown>;
        const { error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
        expect(FaultlineError.isInstance(error), String(error)).toBe(true);
        expect((error as FaultlineError).toErrorReport()).toMatchObject({
          provider: 'cohere',
          reason: scenario.expected.reason,
          retryable: scenario.expected.retryable,
          delivered: { characters: 5 },
        });
      });
    }

    it('a message-end with finish_reason ERROR and no words is still a failure, in words of its own', async () => {
      const baseUrl = server.baseUrlFor({ response: sseFrame([...partial, messageEnd('ERROR')], 'end') });
      const stream = (await callApi(clientOf(sdk, baseUrl, 60_000), 'chat', true)) as AsyncIterable<unknown>;
      const { error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
      const report = (error as FaultlineError).toErrorReport();
      expect(report.providerMetadata).toMatchObject({ origin: 'stream_event', providerCode: 'ERROR' });
      expect(report.message).toContain('finish_reason ERROR');
    });

    it('a message-end with finish_reason TIMEOUT (stopped at the time limit) is a cut answer, not a complete one', async () => {
      const baseUrl = server.baseUrlFor({ response: sseFrame([...partial, messageEnd('TIMEOUT')], 'end') });
      const stream = (await callApi(clientOf(sdk, baseUrl, 60_000), 'chat', true)) as AsyncIterable<unknown>;
      const { error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
      expect(FaultlineError.isInstance(error), String(error)).toBe(true);
      const report = (error as FaultlineError).toErrorReport();
      expect(report.providerMetadata).toMatchObject({ origin: 'timeout', providerCode: 'TIMEOUT' });
      // Cohere's deadline fired after output: a cut answer, read like every deadline during a stream.
      expect(report).toMatchObject({ delivered: { characters: 5 }, reason: 'interrupted' });
      expect(report.message).toContain('finish_reason TIMEOUT');
    });
  });
}
