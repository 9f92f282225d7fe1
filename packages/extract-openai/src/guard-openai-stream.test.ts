import { FaultlineError, guardStream } from '@faultline/render';
import { type LoopbackServer, startLoopbackServer } from '@faultline/test-fixtures';
import {
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiExtractor as extractor } from './extract-openai.ts';
import { guardOpenAIStream } from './guard-openai-stream.ts';
import {
  CHAT_PARAMS,
  type ChatClient,
  chatChunk,
  newClient,
  SDKS,
  type Sdk,
  streamHelper,
} from './test-support.ts';

const frame = sseFrame;

/** Chat Completions: chunks, a finish_reason, then `[DONE]`. */
const chatWire: StreamWire<SseEvent> = {
  frame,
  complete: [
    { data: chatChunk('Hel') },
    { data: chatChunk('lo') },
    { data: chatChunk(null, 'stop') },
    { data: '[DONE]' },
  ],
  partial: [{ data: chatChunk('Hel') }, { data: chatChunk('lo') }],
  delivered: { chunks: 2, characters: 'Hello'.length },
  errorEvent: {
    // An `error` object in a data line: the SDKs throw an APIError for it.
    events: [
      {
        data: JSON.stringify({
          error: { message: 'The server had an error while processing your request.', type: 'server_error' },
        }),
      },
    ],
    reason: 'server_error',
  },
};

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
const delta = (text: string, sequence: number) =>
  responsesEvent(
    'response.output_text.delta',
    { item_id: 'msg_1', output_index: 0, content_index: 0, delta: text },
    sequence,
  );
const message = (status: string, text: string | undefined) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status,
  content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }],
});
const part = (text: string) => ({ type: 'output_text', text, annotations: [] });
const textRef = { item_id: 'msg_1', output_index: 0, content_index: 0 };
/** The events of a real Responses stream up to the text, in the order the API sends them. */
const responsesPartial = [
  responsesEvent('response.created', { response: responseObject('in_progress') }, 0),
  responsesEvent(
    'response.output_item.added',
    { output_index: 0, item: message('in_progress', undefined) },
    1,
  ),
  responsesEvent('response.content_part.added', { ...textRef, part: part('') }, 2),
  delta('Hel', 3),
  delta('lo', 4),
];
const responsesDone = [
  responsesEvent('response.output_text.done', { ...textRef, text: 'Hello' }, 5),
  responsesEvent('response.content_part.done', { ...textRef, part: part('Hello') }, 6),
  responsesEvent('response.output_item.done', { output_index: 0, item: message('completed', 'Hello') }, 7),
  responsesEvent(
    'response.completed',
    { response: responseObject('completed', { output: [message('completed', 'Hello')] }) },
    8,
  ),
];

/** The Responses API: typed events ending with `response.completed`. */
const responsesWire: StreamWire<SseEvent> = {
  frame,
  complete: [...responsesPartial, ...responsesDone],
  partial: responsesPartial,
  delivered: { chunks: responsesPartial.length, characters: 'Hello'.length },
  errorEvent: {
    events: [
      responsesEvent(
        'response.failed',
        {
          response: responseObject('failed', {
            error: { code: 'server_error', message: 'The model failed to generate a response.' },
          }),
        },
        5,
      ),
    ],
    reason: 'server_error',
  },
};

interface StreamingClient {
  chat: { completions: { create(body: object, options: object): Promise<AsyncIterable<unknown>> } };
  responses: {
    create(body: object, options: object): Promise<AsyncIterable<unknown>>;
    stream(body: object, options: object): AsyncIterable<unknown>;
  };
}
const clientOf = (sdk: Sdk, baseURL: string, timeout: number, fetch?: typeof globalThis.fetch) =>
  newClient(sdk, { baseURL, timeout, ...(fetch && { fetch }) }) as unknown as StreamingClient & ChatClient;
const RESPONSES_PARAMS = { model: 'gpt-4o-mini', input: 'Say hello' };

streamMatrix({
  provider: 'openai',
  sdks: SDKS,
  sdkPackage: { name: 'openai', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardOpenAIStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'chat.completions.create({ stream: true })',
      wire: chatWire,
      pathPrefix: '/v1',
      releasesRequest: true,
      acceptsFetch: true,
      open: (sdk, baseUrl, { signal, timeoutMs, fetch }) =>
        clientOf(sdk, baseUrl, timeoutMs, fetch).chat.completions.create(
          { ...CHAT_PARAMS, stream: true },
          { signal },
        ),
    },
    {
      name: 'chat.completions.stream() (beta. on openai 4)',
      wire: chatWire,
      pathPrefix: '/v1',
      releasesRequest: true,
      resultMethod: 'finalChatCompletion',
      open: async (sdk, baseUrl, { signal, timeoutMs }) =>
        streamHelper(clientOf(sdk, baseUrl, timeoutMs), { ...CHAT_PARAMS }, { signal }),
    },
    {
      name: 'responses.create({ stream: true })',
      wire: responsesWire,
      pathPrefix: '/v1',
      releasesRequest: true,
      acceptsFetch: true,
      open: (sdk, baseUrl, { signal, timeoutMs, fetch }) =>
        clientOf(sdk, baseUrl, timeoutMs, fetch).responses.create(
          { ...RESPONSES_PARAMS, stream: true },
          { signal },
        ),
    },
    {
      name: 'responses.stream()',
      wire: responsesWire,
      pathPrefix: '/v1',
      releasesRequest: true,
      resultMethod: 'finalResponse',
      open: async (sdk, baseUrl, { signal, timeoutMs }) =>
        clientOf(sdk, baseUrl, timeoutMs).responses.stream({ ...RESPONSES_PARAMS }, { signal }),
    },
  ],
});

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

async function guardedCreate(sdk: Sdk, events: SseEvent[], options = {}) {
  const client = newClient(sdk, {
    timeout: 2000,
    baseURL: server.baseUrlFor({ response: frame(events, 'end') }, { pathPrefix: '/v1' }),
  });
  const stream = (await client.chat.completions.create({
    ...CHAT_PARAMS,
    stream: true,
  })) as AsyncIterable<unknown>;
  return drain(guardOpenAIStream(stream, { idleTimeoutMs: 3000, ...options }));
}

function reportOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).toErrorReport();
}

const filtered = [
  { data: chatChunk('Once upon') },
  { data: chatChunk(null, 'content_filter') },
  { data: '[DONE]' },
];
const routerError = [
  { data: chatChunk('Hel') },
  {
    data: JSON.stringify({
      id: 'gen-1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    }),
  },
];

for (const sdk of SDKS) {
  describe.concurrent(`guardOpenAIStream, blocked and failed finishes, with real ${sdk.alias}`, () => {
    it('throws content_policy for a content_filter finish, unless turned off', async () => {
      const { error } = await guardedCreate(sdk, filtered);
      expect(reportOf(error)).toMatchObject({ reason: 'content_policy' });
      const off = await guardedCreate(sdk, filtered, { detectBlockedAnswer: false });
      expect(off.error).toBeUndefined();
      expect(off.chunks).toHaveLength(2);
    });

    it("reports OpenRouter's finish_reason error chunk as a server error", async () => {
      const { error } = await guardedCreate(sdk, routerError);
      expect(reportOf(error)).toMatchObject({ reason: 'server_error' });
      // A failure is not a withheld answer: letting those through leaves it thrown.
      const kept = await guardedCreate(sdk, routerError, { detectBlockedAnswer: false });
      expect(reportOf(kept.error)).toMatchObject({ reason: 'server_error' });
      expect((error as FaultlineError).metadata.delivered).toEqual({ chunks: 1, characters: 3 });
    });

    it("counts a tool call's argument deltas as output, a role-only delta as none", async () => {
      const chunkWith = (delta: object) =>
        JSON.stringify({
          id: 'chatcmpl-fl1',
          object: 'chat.completion.chunk',
          created: 1763760000,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, delta, finish_reason: null }],
        });
      const failed = {
        data: JSON.stringify({ error: { message: 'The server had an error.', type: 'server_error' } }),
      };
      const roleOnly = { data: chunkWith({ role: 'assistant', content: null }) };
      const args = '{"city":"Oslo"}';
      const toolCall = {
        data: chunkWith({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } },
          ],
        }),
      };
      const before = await guardedCreate(sdk, [roleOnly, failed]);
      expect(reportOf(before.error).delivered).toEqual({ chunks: 1, characters: 0 });
      const after = await guardedCreate(sdk, [roleOnly, toolCall, failed]);
      expect(reportOf(after.error)).toMatchObject({
        delivered: { chunks: 2, characters: args.length },
        recovery: { fallback: false },
      });
    });
  });
}

/**
 * A custom fetch that listens to the request's signal but does not hand it on (as a wrapper that
 * only follows it does, e.g. through `new Request(input, init)` for its own bookkeeping): the
 * signal has a listener, yet an abort cannot end the read.
 */
const listeningFetch: typeof globalThis.fetch = (input, init) => {
  const { signal, ...rest } = init ?? {};
  signal?.addEventListener('abort', () => {});
  return globalThis.fetch(input, rest);
};

for (const sdk of SDKS) {
  describe.concurrent(`guardOpenAIStream, a fetch whose abort cannot end the read, with real ${sdk.alias}`, () => {
    it("a stall ends through the guard's own promise", async () => {
      const client = newClient(sdk, {
        timeout: 60_000,
        baseURL: server.baseUrlFor({ response: frame(chatWire.partial, 'stall') }, { pathPrefix: '/v1' }),
        fetch: listeningFetch,
      });
      const stream = (await client.chat.completions.create({
        ...CHAT_PARAMS,
        stream: true,
      })) as AsyncIterable<unknown>;
      const hung = Symbol('hung');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const outcome = await Promise.race([
        drain(guardOpenAIStream(stream, { idleTimeoutMs: 200 })),
        new Promise<typeof hung>((resolve) => {
          timer = setTimeout(() => resolve(hung), 5_000);
        }),
      ]);
      clearTimeout(timer);
      expect(outcome, 'the guard waited for a read the abort could not end').not.toBe(hung);
      const { error } = outcome as Awaited<ReturnType<typeof drain>>;
      expect(reportOf(error).providerMetadata).toMatchObject({ origin: 'timeout', networkPhase: 'stream' });
    });
  });
}

describe("render's guardStream without a readChunk, over a real openai stream", () => {
  it('counts the object chunks that reached the consumer as output: no fallback after them', async () => {
    const spent = [
      { data: chatChunk('Hel') },
      { data: chatChunk('lo') },
      {
        data: JSON.stringify({
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          },
        }),
      },
    ];
    const client = newClient(SDKS[3], {
      timeout: 2000,
      baseURL: server.baseUrlFor({ response: frame(spent, 'end') }, { pathPrefix: '/v1' }),
    });
    const stream = (await client.chat.completions.create({
      ...CHAT_PARAMS,
      stream: true,
    })) as AsyncIterable<unknown>;
    // The generic guard cannot see inside a chunk: one that reached the consumer counts one.
    const { chunks, error } = await drain(
      guardStream(stream, { extractors: [extractor], idleTimeoutMs: 3000 }),
    );
    expect(chunks).toHaveLength(2);
    expect(reportOf(error)).toMatchObject({
      reason: 'quota',
      nextStep: 'fix_configuration',
      delivered: { chunks: 2, characters: 2 },
      recovery: { fallback: false },
    });
  });
});
