import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOpenAIStream, isOpenAITerminalChunk } from './guard-openai-stream.ts';
import {
  CHAT_PARAMS,
  type ChatClient,
  chatChunk,
  newClient,
  SDKS,
  type Sdk,
  streamHelper,
} from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

type Then = 'end' | 'cut' | 'stall';
const sse = (events: Array<{ data: string; event?: string }>, then: Then) =>
  ({ response: { kind: 'sse', events, then } }) as const;

const complete = sse(
  [
    { data: chatChunk('Hel') },
    { data: chatChunk('lo') },
    { data: chatChunk(null, 'stop') },
    { data: '[DONE]' },
  ],
  'end',
);
const noFinish = sse([{ data: chatChunk('Hel') }, { data: chatChunk('lo') }], 'end');
const cut = sse([{ data: chatChunk('Hel') }, { data: chatChunk('lo') }], 'cut');
const stall = sse([{ data: chatChunk('Hel') }], 'stall');
const errorEvent = sse(
  [
    { data: chatChunk('Hel') },
    {
      data: JSON.stringify({
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      }),
    },
  ],
  'end',
);
const filtered = sse(
  [{ data: chatChunk('Once upon') }, { data: chatChunk(null, 'content_filter') }, { data: '[DONE]' }],
  'end',
);
const routerError = sse(
  [
    { data: chatChunk('Hel') },
    {
      data: JSON.stringify({
        id: 'gen-1',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
      }),
    },
  ],
  'end',
);

function client(sdk: Sdk, scenario: Parameters<LoopbackServer['baseUrlFor']>[0]): ChatClient {
  return newClient(sdk, { timeout: 2000, baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) });
}

async function drain(stream: AsyncIterable<unknown>): Promise<{ chunks: unknown[]; error?: unknown }> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

async function guardedCreate(sdk: Sdk, scenario: typeof complete, options = {}) {
  const stream = (await client(sdk, scenario).chat.completions.create({
    ...CHAT_PARAMS,
    stream: true,
  })) as AsyncIterable<unknown>;
  return drain(guardOpenAIStream(stream, { idleTimeoutMs: 3000, ...options }));
}

function reportOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).toErrorReport();
}

for (const sdk of SDKS) {
  describe.concurrent(`guardOpenAIStream with real ${sdk.alias}`, () => {
    it('passes a complete stream through untouched', async () => {
      const { chunks, error } = await guardedCreate(sdk, complete);
      expect(error).toBeUndefined();
      expect(chunks).toHaveLength(3);
      expect(isOpenAITerminalChunk(chunks[2])).toBe(true);
    });

    it('reports a stream that ends without finish_reason as interrupted', async () => {
      const { chunks, error } = await guardedCreate(sdk, noFinish);
      expect(chunks).toHaveLength(2);
      expect(reportOf(error)).toMatchObject({ reason: 'interrupted', category: 'ambiguous' });
      expect((error as FaultlineError).metadata.delivered).toEqual({ chunks: 2, characters: 5 });
    });

    it('reports a cut stream as interrupted with the delivered progress', async () => {
      const { error } = await guardedCreate(sdk, cut);
      expect(reportOf(error)).toMatchObject({ reason: 'interrupted', provider: 'openai' });
      expect((error as FaultlineError).metadata.delivered).toEqual({ chunks: 2, characters: 5 });
    });

    it('ends a stall after the headers with the idle timeout', async () => {
      const started = Date.now();
      const { chunks, error } = await guardedCreate(sdk, stall, { idleTimeoutMs: 800 });
      expect(chunks).toHaveLength(1);
      expect(reportOf(error)).toMatchObject({ reason: 'interrupted' });
      expect((error as FaultlineError).metadata.origin).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(4000);
    });

    it('classifies an error event thrown by the SDK mid-stream', async () => {
      const { error } = await guardedCreate(sdk, errorEvent);
      expect(reportOf(error)).toMatchObject({ reason: 'server_error', retryable: true });
      expect((error as FaultlineError).metadata).toMatchObject({
        origin: 'stream_event',
        delivered: { chunks: 1, characters: 3 },
      });
    });

    it('throws content_policy for a content_filter finish, unless turned off', async () => {
      const { error } = await guardedCreate(sdk, filtered);
      expect(reportOf(error)).toMatchObject({ reason: 'content_policy' });
      const off = await guardedCreate(sdk, filtered, { inspectChunk: undefined });
      expect(off.error).toBeUndefined();
      expect(off.chunks).toHaveLength(2);
    });

    it("reports OpenRouter's finish_reason error chunk as a server error", async () => {
      const { error } = await guardedCreate(sdk, routerError);
      expect(reportOf(error)).toMatchObject({ reason: 'server_error' });
    });

    it("ends with the caller's abort reason when the caller aborts mid-stream", async () => {
      const controller = new AbortController();
      const stream = (await client(sdk, stall).chat.completions.create(
        { ...CHAT_PARAMS, stream: true },
        { signal: controller.signal },
      )) as AsyncIterable<unknown>;
      setTimeout(() => controller.abort(), 100);
      const { error } = await drain(
        guardOpenAIStream(stream, { signal: controller.signal, idleTimeoutMs: 5000 }),
      );
      expect(error).toBeDefined();
      expect(error === controller.signal.reason || (error as Error).name === 'AbortError').toBe(true);
      expect(FaultlineError.isInstance(error)).toBe(false);
    });

    it('guards the chat.completions.stream() helper: a cut stream is interrupted', async () => {
      const { chunks, error } = await drain(
        guardOpenAIStream(streamHelper(client(sdk, cut), { ...CHAT_PARAMS }), { idleTimeoutMs: 3000 }),
      );
      expect(chunks).toHaveLength(2);
      expect(reportOf(error)).toMatchObject({ reason: 'interrupted' });
    });

    it('guards the chat.completions.stream() helper: a complete stream passes', async () => {
      const { chunks, error } = await drain(
        guardOpenAIStream(streamHelper(client(sdk, complete), { ...CHAT_PARAMS }), { idleTimeoutMs: 3000 }),
      );
      expect(error).toBeUndefined();
      expect(chunks).toHaveLength(3);
    });
  });
}

const responseObject = (status: string, extra: Record<string, unknown> = {}) => ({
  id: 'resp_fl1',
  object: 'response',
  created_at: 1763760000,
  model: 'gpt-4o-mini',
  status,
  output: [],
  ...extra,
});
const responsesEvent = (type: string, fields: Record<string, unknown>, sequence: number) => ({
  event: type,
  data: JSON.stringify({ type, sequence_number: sequence, ...fields }),
});
const created = responsesEvent('response.created', { response: responseObject('in_progress') }, 0);
const delta = (text: string, sequence: number) =>
  responsesEvent(
    'response.output_text.delta',
    { item_id: 'msg_1', output_index: 0, content_index: 0, delta: text },
    sequence,
  );
const responsesComplete = sse(
  [
    created,
    delta('Hel', 1),
    delta('lo', 2),
    responsesEvent('response.completed', { response: responseObject('completed') }, 3),
  ],
  'end',
);
const responsesCut = sse([created, delta('Hel', 1), delta('lo', 2)], 'cut');
const responsesFailed = sse(
  [
    created,
    delta('Hel', 1),
    responsesEvent(
      'response.failed',
      {
        response: responseObject('failed', {
          error: { code: 'server_error', message: 'The model failed to generate a response.' },
        }),
      },
      2,
    ),
  ],
  'end',
);

interface ResponsesClient {
  responses: { create(body: Record<string, unknown>): Promise<AsyncIterable<unknown>> };
}

async function guardedResponses(sdk: Sdk, scenario: typeof responsesComplete) {
  const responses = (client(sdk, scenario) as unknown as ResponsesClient).responses;
  const stream = await responses.create({ model: 'gpt-4o-mini', input: 'Say hello', stream: true });
  return drain(guardOpenAIStream(stream, { idleTimeoutMs: 3000 }));
}

for (const sdk of SDKS) {
  describe.concurrent(`guardOpenAIStream on the Responses API with real ${sdk.alias}`, () => {
    it('passes a completed response stream through', async () => {
      const { chunks, error } = await guardedResponses(sdk, responsesComplete);
      expect(error).toBeUndefined();
      expect(chunks).toHaveLength(4);
    });

    it('reports a cut response stream as interrupted with the delivered text', async () => {
      const { error } = await guardedResponses(sdk, responsesCut);
      expect(reportOf(error)).toMatchObject({ reason: 'interrupted' });
      expect((error as FaultlineError).metadata.delivered).toEqual({ chunks: 3, characters: 5 });
    });

    it('reports response.failed as a stream_event failure', async () => {
      const { error } = await guardedResponses(sdk, responsesFailed);
      expect(reportOf(error)).toMatchObject({ reason: 'server_error' });
      expect((error as FaultlineError).metadata).toMatchObject({
        origin: 'stream_event',
        providerCode: 'server_error',
      });
    });
  });
}
