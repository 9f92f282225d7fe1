import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { drain, ndjsonFrame, type StreamWire, streamMatrix } from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOllamaStream, guardStream } from './index.ts';
import { clientOf, SDKS, type Sdk } from './test-support.ts';

const CREATED = '2026-11-20T10:00:00.000000Z';

/** One `/api/chat` part as Ollama streams it (one JSON text per line). */
function chatPart(content: string, done = false): string {
  return JSON.stringify({
    model: 'llama3.2',
    created_at: CREATED,
    message: { role: 'assistant', content },
    done,
    ...(done ? { done_reason: 'stop', total_duration: 812000000, eval_count: 2 } : {}),
  });
}

/** One `/api/generate` part. */
function generatePart(response: string, done = false): string {
  return JSON.stringify({
    model: 'llama3.2',
    created_at: CREATED,
    response,
    done,
    ...(done ? { done_reason: 'stop', total_duration: 812000000, eval_count: 2 } : {}),
  });
}

/**
 * A wire of NDJSON parts ending with `done: true`. A failure mid-generation is one more line,
 * `{"error":"..."}` (the server's streamResponse), which both majors throw as a plain Error in the
 * line's words: the guard classifies it by those words.
 */
function wireOf(part: (text: string, done?: boolean) => string): StreamWire<string> {
  const partial = [part('Hel'), part('lo')];
  return {
    frame: ndjsonFrame,
    complete: [...partial, part('', true)],
    partial,
    delivered: { chunks: 2, characters: 'Hello'.length },
    errorEvent: {
      events: [JSON.stringify({ error: 'an error was encountered while running the model: unexpected EOF' })],
      reason: 'server_error',
    },
  };
}

/** The streaming calls, with the caller's signal on the client's fetch (ollama-js takes no per-call signal). */
const SURFACES = {
  chat: {
    wire: wireOf(chatPart),
    open: (sdk: Sdk, host: string, signal: AbortSignal, timeoutMs: number) =>
      clientOf(sdk, host, { timeoutMs, signal }).chat({
        model: 'llama3.2',
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
      }) as Promise<AsyncIterable<unknown>>,
  },
  generate: {
    wire: wireOf(generatePart),
    open: (sdk: Sdk, host: string, signal: AbortSignal, timeoutMs: number) =>
      clientOf(sdk, host, { timeoutMs, signal }).generate({
        model: 'llama3.2',
        prompt: 'hello',
        stream: true,
      }) as Promise<AsyncIterable<unknown>>,
  },
} as const;

streamMatrix({
  provider: 'ollama',
  sdks: SDKS,
  sdkPackage: { name: 'ollama', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardOllamaStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: (Object.keys(SURFACES) as Array<keyof typeof SURFACES>).map((name) => ({
    name,
    wire: SURFACES[name].wire,
    releasesRequest: true,
    open: (sdk: Sdk, baseUrl: string, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }) =>
      SURFACES[name].open(sdk, baseUrl, signal, timeoutMs),
  })),
});

// What the matrix does not cover: what each major does on its own with an early end (why the
// guard and the extractor read it), and the recorded error-line scenarios through the guard.

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

for (const sdk of SDKS) {
  describe.concurrent(`guardStream, ${sdk.alias}: what the matrix does not cover`, () => {
    for (const name of [
      'stream-error-line-runner',
      'stream-error-line-overflow',
      'stream-ends-without-done',
    ]) {
      it(`${name}: classified as the scenario expects, with what was delivered`, async () => {
        const scenario = loadScenario(`ollama/${name}`);
        const stream = await SURFACES.chat.open(
          sdk,
          server.baseUrlFor(scenario),
          new AbortController().signal,
          60_000,
        );
        const { chunks, error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
        expect(chunks).toHaveLength(2);
        expect(FaultlineError.isInstance(error), String(error)).toBe(true);
        const report = (error as FaultlineError).toErrorReport();
        expect(report).toMatchObject({
          provider: 'ollama',
          reason: scenario.expected.reason,
          retryable: scenario.expected.retryable,
          delivered: { chunks: 2, characters: 5 },
        });
      });
    }

    it('a tool call (whole, its arguments an object) is delivered output', async () => {
      const toolCall = JSON.stringify({
        model: 'llama3.2',
        created_at: CREATED,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'weather', arguments: { city: 'Oslo' } } }],
        },
        done: false,
      });
      // The stream ends after the call, without `done`: cut after output.
      const stream = await SURFACES.chat.open(
        sdk,
        server.baseUrlFor({ response: ndjsonFrame([toolCall], 'end') }),
        new AbortController().signal,
        60_000,
      );
      const { error } = await drain(guardStream(stream, { idleTimeoutMs: 3000 }));
      expect(FaultlineError.isInstance(error), String(error)).toBe(true);
      expect((error as FaultlineError).toErrorReport()).toMatchObject({
        delivered: { chunks: 1, characters: 1 },
        recovery: { fallback: false },
      });
    });
  });
}
