import { TAXONOMY } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import {
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import { HTTPClient as HTTPClientV1, Mistral as MistralV1 } from 'mistralai-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardMistralStream } from './guard-mistral-stream.ts';
import { timedClientOptions } from './test-support.ts';

/** Each supported major, by its devDependency alias. */
const SDKS = [
  { alias: '@mistralai/mistralai', Mistral, HTTPClient },
  {
    alias: 'mistralai-v1',
    Mistral: MistralV1 as unknown as typeof Mistral,
    HTTPClient: HTTPClientV1 as unknown as typeof HTTPClient,
  },
] as const;
type Sdk = (typeof SDKS)[number];

/** A `CompletionChunk` as the API streams it (chat, FIM and agents alike). */
function chunk(content: string, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'cmpl-e5cc70bb28c444948073e77776eb30ef',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: 'mistral-small-latest',
    choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finishReason }],
  });
}

const partial: SseEvent[] = [{ data: chunk('Hel') }, { data: chunk('lo') }];

/**
 * `data: {chunk}` … a chunk with a finish reason, then `data: [DONE]` (the SDK turns `[DONE]` into
 * the end of the iterator, so the last chunk the caller sees is the one with the finish reason).
 */
const completionWire: StreamWire<SseEvent> = {
  frame: sseFrame,
  complete: [...partial, { data: chunk('', 'stop') }, { data: '[DONE]' }],
  partial,
  delivered: { chunks: 2, characters: 'Hello'.length },
  errorEvent: {
    // How the API reports a failure mid-generation: a chunk whose finish_reason is "error" (an
    // enum value of Mistral's OpenAPI spec, in both majors' CompletionResponseStreamChoice; seen in
    // the wild in mistralai/client-python#74), then [DONE]. Both majors parse it as an ordinary
    // chunk (the enum is open) and end normally: only the guard can tell. Same outcome on both.
    events: [{ data: chunk('', 'error') }, { data: '[DONE]' }],
    reason: 'server_error',
  },
};

const MESSAGES = [{ role: 'user' as const, content: 'hello' }];

interface StreamingClient {
  chat: { stream(request: object, options: object): Promise<AsyncIterable<unknown>> };
  fim: { stream(request: object, options: object): Promise<AsyncIterable<unknown>> };
  agents: { stream(request: object, options: object): Promise<AsyncIterable<unknown>> };
}
const clientOf = (sdk: Sdk, serverURL: string, timeoutMs: number) =>
  new sdk.Mistral({ apiKey: 'test-key', serverURL, timeoutMs }) as unknown as StreamingClient;

/**
 * The streaming methods, with the caller's signal (both majors take `RequestInit` fields flat in the
 * request options; a signal given there replaces the SDK's own `timeoutMs` timer, see the README).
 */
const SURFACES = {
  'chat.stream': (client: StreamingClient, options: object) =>
    client.chat.stream({ model: 'mistral-small-latest', messages: MESSAGES }, options),
  'fim.stream': (client: StreamingClient, options: object) =>
    client.fim.stream({ model: 'codestral-latest', prompt: 'def add(a, b):', suffix: '' }, options),
  'agents.stream': (client: StreamingClient, options: object) =>
    client.agents.stream({ agentId: 'ag:faultline:20250101:stream', messages: MESSAGES }, options),
} as const;
type SurfaceName = keyof typeof SURFACES;
const SURFACE_NAMES = Object.keys(SURFACES) as SurfaceName[];

streamMatrix({
  provider: 'mistral',
  sdks: SDKS,
  sdkPackage: { name: '@mistralai/mistralai', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardMistralStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: SURFACE_NAMES.map((name) => ({
    name,
    wire: completionWire,
    releasesRequest: true,
    open: (sdk: Sdk, baseUrl: string, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }) =>
      SURFACES[name](clientOf(sdk, baseUrl, timeoutMs), { timeoutMs, signal }),
  })),
});

// What the matrix does not cover: the other in-stream failure shapes, and what each SDK does with
// them on its own (why the guard is needed).

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

type WireResponse = Parameters<LoopbackServer['baseUrlFor']>[0]['response'];
async function open(sdk: Sdk, surface: SurfaceName, response: WireResponse) {
  const client = clientOf(sdk, server.baseUrlFor({ response }), 60_000);
  return SURFACES[surface](client, {});
}
const guarded = async (sdk: Sdk, surface: SurfaceName, response: WireResponse) =>
  drain(guardMistralStream(await open(sdk, surface, response), { idleTimeoutMs: 3000 }));

function reportOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).toErrorReport();
}

/** The API's error body sent as a stream event (recorded scenario); the SDK cannot parse it. */
const errorBodyScenario = loadScenario('mistral/stream-error-event');
const withFinish = (finishReason: string) =>
  sseFrame([...partial, { data: chunk('', finishReason) }, { data: '[DONE]' }], 'end');

for (const sdk of SDKS) {
  for (const surface of SURFACE_NAMES) {
    describe.concurrent(`guardMistralStream, ${sdk.alias} ${surface}: what the matrix does not cover`, () => {
      it('an error body as a stream event: the SDK throws a raw ZodError, read as the scenario expects', async () => {
        const plain = await drain(await open(sdk, surface, errorBodyScenario.response));
        expect((plain.error as Error)?.name).toBe('ZodError');
        const { chunks, error } = await guarded(sdk, surface, errorBodyScenario.response);
        const events = (errorBodyScenario.response as { events: unknown[] }).events;
        expect(chunks).toHaveLength(events.length - 1);
        const report = reportOf(error);
        expect(report).toMatchObject({
          reason: errorBodyScenario.expected.reason,
          category: errorBodyScenario.expected.category,
          retryable: errorBodyScenario.expected.retryable,
          provider: 'mistral',
        });
        expect((error as FaultlineError).metadata).toMatchObject({
          origin: 'malformed_response',
          networkPhase: 'stream',
        });
        expect(((error as FaultlineError).cause as Error).name).toBe('ZodError');
      });

      it('finish_reason "error": the SDK ends normally, the guard throws server_error', async () => {
        const plain = await drain(await open(sdk, surface, withFinish('error')));
        expect(plain.threw).toBe(false);
        expect(plain.chunks).toHaveLength(partial.length + 1);
        const { chunks, error } = await guarded(sdk, surface, withFinish('error'));
        expect(chunks).toHaveLength(partial.length);
        const report = reportOf(error);
        expect(report).toMatchObject({
          reason: 'server_error',
          category: TAXONOMY.server_error.category,
          retryable: TAXONOMY.server_error.retryable,
        });
        expect(report.delivered).toEqual({ chunks: 2, characters: 'Hello'.length });
      });

      it('finish_reason "content_filter": content_policy, unless detectBlockedAnswer is false', async () => {
        const { chunks, error } = await guarded(sdk, surface, withFinish('content_filter'));
        expect(chunks).toHaveLength(partial.length);
        expect(reportOf(error)).toMatchObject({
          reason: 'content_policy',
          category: TAXONOMY.content_policy.category,
          retryable: TAXONOMY.content_policy.retryable,
        });
        const off = await drain(
          guardMistralStream(await open(sdk, surface, withFinish('content_filter')), {
            idleTimeoutMs: 3000,
            detectBlockedAnswer: false,
          }),
        );
        expect(off.threw, String(off.error)).toBe(false);
        expect(off.chunks).toHaveLength(partial.length + 1);
      });

      it('every other finish reason ends the answer (length, model_length, tool_calls)', async () => {
        for (const finishReason of ['length', 'model_length', 'tool_calls']) {
          const outcome = await guarded(sdk, surface, withFinish(finishReason));
          expect(outcome.threw, `${finishReason}: ${String(outcome.error)}`).toBe(false);
          expect(outcome.chunks).toHaveLength(partial.length + 1);
        }
      });

      it("a tool call's arguments are delivered output", async () => {
        const args = '{"city":"Oslo"}';
        const toolCall = JSON.stringify({
          id: 'cmpl-e5cc70bb28c444948073e77776eb30ef',
          object: 'chat.completion.chunk',
          created: 1732000000,
          model: 'mistral-small-latest',
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                content: '',
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    index: 0,
                    function: { name: 'weather', arguments: args },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        });
        // The stream ends after the call, without a finish: cut after output.
        const { error } = await guarded(sdk, surface, sseFrame([{ data: toolCall }], 'end'));
        expect(reportOf(error)).toMatchObject({
          delivered: { chunks: 1, characters: args.length },
          recovery: { fallback: false },
        });
      });

      it('unguarded, the SDK says nothing about an end without a finish reason, and throws a raw TypeError on a cut', async () => {
        const ended = await drain(await open(sdk, surface, sseFrame(partial, 'end')));
        expect(ended).toMatchObject({ threw: false, chunks: partial.map(() => expect.anything()) });
        const cut = await drain(await open(sdk, surface, sseFrame(partial, 'cut')));
        expect(cut.error).toBeInstanceOf(TypeError);
        const guardedCut = await guarded(sdk, surface, sseFrame(partial, 'cut'));
        expect((guardedCut.error as FaultlineError).cause).toBeInstanceOf(TypeError);
      });
    });
  }
}

/** One chunk, then silence (recorded scenario). */
const stallScenario = loadScenario('mistral/stream-stall');
const stalledChunks = (stallScenario.response as { events: unknown[] }).events.length;
const expectStallReport = (error: unknown) =>
  expect(reportOf(error)).toMatchObject({
    reason: stallScenario.expected.reason,
    category: stallScenario.expected.category,
    retryable: stallScenario.expected.retryable,
  });

/**
 * The SDK's `timeoutMs` in these cases: it bounds the whole request, headers and chunks included,
 * so it is long enough for both to arrive on a loaded machine before it ends the stall.
 */
const SDK_STALL_TIMEOUT_MS = 2_000;

for (const sdk of SDKS) {
  describe.concurrent(`guardMistralStream, ${sdk.alias}: the SDK's timeoutMs and the caller's signal`, () => {
    const openWith = (options: object) =>
      clientOf(sdk, server.baseUrlFor(stallScenario), SDK_STALL_TIMEOUT_MS).chat.stream(
        { model: 'mistral-small-latest', messages: MESSAGES },
        options,
      );

    it('without a signal, the SDK timeoutMs covers stream reads: its raw TimeoutError, classified as the scenario expects', async () => {
      // The SDK's timeout handed to fetch directly (test-support.ts says why).
      const client = new sdk.Mistral(
        timedClientOptions(sdk.HTTPClient, server.baseUrlFor(stallScenario), SDK_STALL_TIMEOUT_MS),
      ) as unknown as StreamingClient;
      const stream = await client.chat.stream({ model: 'mistral-small-latest', messages: MESSAGES }, {});
      const { chunks, error } = await drain(guardMistralStream(stream, { idleTimeoutMs: 10_000 }));
      expect(chunks).toHaveLength(stalledChunks);
      expect(((error as FaultlineError).cause as Error)?.name).toBe('TimeoutError');
      expectStallReport(error);
    });

    it('with a signal, the SDK drops its timeoutMs (lib/sdks.js): only the idle timer ends the stall', async () => {
      const signal = new AbortController().signal;
      const { chunks, error } = await drain(
        guardMistralStream(await openWith({ signal }), { idleTimeoutMs: 1500, signal }),
      );
      expect(chunks).toHaveLength(stalledChunks);
      expect((error as FaultlineError).cause).toBeUndefined();
      expectStallReport(error);
      expect(reportOf(error).providerMetadata).toMatchObject({ origin: 'timeout', networkPhase: 'stream' });
    });
  });
}
