import { TAXONOMY } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenario,
  loadScenarios,
  type Scenario,
  type ScenarioResponse,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import {
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, type GenaiApi, type GenaiSdk, MODEL, newClient, SDKS } from '../test/genai-harness.ts';
import { GOOGLE_GENAI_PROVIDER } from './extract-google-genai.ts';
import {
  guardGeminiStream,
  inspectGeminiResult,
  isEmptyGeminiChunk,
  isGeminiTerminalChunk,
} from './guard-google-genai.ts';
import { withClassifiedErrors } from './index.ts';

const PROMPT = 'Tell me a story.';

/** How a loopback stream ends: 'end', 'cut' or 'stall'. */
type StreamEnding = Parameters<typeof sseFrame>[1];

/**
 * Node's http server stamps a `Date` header on every answer, and genai copies the response headers
 * into every chunk (`sdkHttpResponse.headers`): pinned, so that the chunks of two runs a second
 * apart are still deep-equal (the matrix compares a guarded run with an unguarded one).
 */
const PINNED_DATE = 'Sun, 22 Nov 2026 00:00:00 GMT';

/** The loopback response for a Gemini stream (`alt=sse`: `data:` lines, no event names). */
function frame(events: readonly SseEvent[], ending: StreamEnding): ScenarioResponse {
  const response = sseFrame(events, ending);
  return response.kind === 'sse'
    ? { ...response, headers: { ...response.headers, date: PINNED_DATE } }
    : response;
}

/** The events of a recorded stream scenario. */
function recordedEvents(id: string): SseEvent[] {
  const { response } = loadScenario(`google-genai/${id}`);
  if (response.kind !== 'sse') throw new Error(`google-genai/${id} is not a stream`);
  return response.events.map((event) => ({ data: event.data }));
}

function parsed(event: SseEvent): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(event.data);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isErrorEvent = (event: SseEvent) => parsed(event)?.error !== undefined;

/** The characters of answer text an event carries (what the guard counts as delivered). */
function textLength(event: SseEvent): number {
  const candidates = parsed(event)?.candidates as
    | Array<{ content?: { parts?: Array<{ text?: string }> } }>
    | undefined;
  return (candidates ?? [])
    .flatMap((candidate) => candidate.content?.parts ?? [])
    .reduce((total, part) => total + (part.text?.length ?? 0), 0);
}

/** The start of an answer, as recorded: two chunks with text and no finishReason. */
const partial = recordedEvents('gemini-stream-cut');
const terminal: SseEvent = {
  data: JSON.stringify({
    candidates: [{ content: { parts: [{ text: '.' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp-loopback-1',
  }),
};

/**
 * An error chunk after valid chunks, from a recorded scenario: its reason is the scenario's.
 * genai 1.x never throws for an error chunk: it yields an empty `{}` chunk in its place and ends
 * the stream normally (docs/contributing/sdk-surfaces.md section 3; its `processStreamResponse` only checks a raw
 * network chunk that is JSON as a whole, never a `data:` line). The guard flags that empty chunk
 * as an interruption: what gemini-stream-error-without-code records for the error chunk every
 * major swallows. The majors that swallow it are the ones the scenario skips.
 */
function errorEventOf(id: string): StreamWire<SseEvent>['errorEvent'] {
  const scenario = loadScenario(`google-genai/${id}`);
  const swallowed = loadScenario('google-genai/gemini-stream-error-without-code').expected.reason;
  const bySdk = Object.fromEntries(
    SDKS.filter((sdk) => expectedFor(scenario, sdk.alias).skip !== undefined).map((sdk) => [
      sdk.alias,
      { reason: swallowed },
    ]),
  );
  return {
    events: recordedEvents(id).filter(isErrorEvent),
    reason: scenario.expected.reason,
    bySdk,
  };
}

function wireFor(errorEvent: StreamWire<SseEvent>['errorEvent']): StreamWire<SseEvent> {
  return {
    frame,
    complete: [...partial, terminal],
    partial,
    delivered: {
      chunks: partial.length,
      characters: partial.reduce((total, event) => total + textLength(event), 0),
    },
    errorEvent,
  };
}

const geminiWire = wireFor(errorEventOf('gemini-stream-error-unavailable'));
const vertexWire = wireFor(errorEventOf('vertex-stream-error-internal'));

interface GenaiClient {
  models: { generateContentStream(request: object): Promise<AsyncIterable<unknown>> };
  chats: { create(params: { model: string }): GenaiChat };
}
interface GenaiChat {
  sendMessageStream(params: { message: string; config?: object }): Promise<AsyncIterable<unknown>>;
  getHistory(curated?: boolean): unknown[];
}

const clientOf = (sdk: GenaiSdk, api: GenaiApi, baseUrl: string, timeoutMs: number) =>
  newClient(sdk, { api, baseUrl, timeoutMs }) as GenaiClient;

const generateContentStream = (api: GenaiApi) => ({
  open: (sdk: GenaiSdk, baseUrl: string, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }) =>
    clientOf(sdk, api, baseUrl, timeoutMs).models.generateContentStream({
      model: MODEL,
      contents: PROMPT,
      config: { abortSignal: signal },
    }),
});

streamMatrix({
  provider: GOOGLE_GENAI_PROVIDER,
  sdks: SDKS,
  sdkPackage: { name: '@google/genai', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardGeminiStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'models.generateContentStream() (Gemini API)',
      wire: geminiWire,
      ...generateContentStream('gemini'),
    },
    {
      name: 'models.generateContentStream() (Vertex AI)',
      wire: vertexWire,
      ...generateContentStream('vertex'),
    },
    {
      // The chat helper: a generator over generateContentStream that records the turn in the chat's
      // history once the stream ends (see the history checks below).
      name: 'chats.create().sendMessageStream()',
      wire: geminiWire,
      open: (sdk, baseUrl, { signal, timeoutMs }) =>
        clientOf(sdk, 'gemini', baseUrl, timeoutMs)
          .chats.create({ model: MODEL })
          .sendMessageStream({ message: PROMPT, config: { abortSignal: signal } }),
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

interface Read {
  readonly chunks: unknown[];
  readonly thrown: unknown;
}

async function read(stream: AsyncIterable<unknown>): Promise<Read> {
  const chunks: unknown[] = [];
  try {
    for await (const item of stream) chunks.push(item);
    return { chunks, thrown: undefined };
  } catch (thrown) {
    return { chunks, thrown };
  }
}

/** Reads a recorded scenario through the guard, with the harness's SDK timeout for it. */
async function readGuarded(
  sdk: GenaiSdk,
  scenario: Scenario,
  options: { detectBlockedAnswer?: boolean } = {},
) {
  const client = clientFor(sdk, scenario, server.baseUrlFor(scenario)) as GenaiClient;
  try {
    const stream = await client.models.generateContentStream({ model: MODEL, contents: PROMPT });
    return await read(guardGeminiStream(stream, { idleTimeoutMs: 5_000, ...options }));
  } catch (thrown) {
    return { chunks: [], thrown };
  }
}

const streamScenarios = loadScenarios('google-genai').filter((scenario) => scenario.stream === true);

for (const sdk of SDKS) {
  describe(`guardGeminiStream over the recorded stream scenarios, real ${sdk.alias}`, () => {
    for (const scenario of streamScenarios) {
      const expected = expectedFor(scenario, sdk.alias);
      // genai 1.x swallows an error chunk: the guard sees the empty chunk it leaves instead, and
      // reports what the scenario of an error chunk every major swallows says.
      const swallowed = expected.skip !== undefined;
      const reason = swallowed
        ? loadScenario('google-genai/gemini-stream-error-without-code').expected.reason
        : expected.reason;
      it(`${scenario.id}: ${reason}`, async () => {
        const { thrown } = await readGuarded(sdk, scenario);
        expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
        const error = thrown as FaultlineError;
        expect(error.classification.reason).toBe(reason);
        expect(error.classification.category).toBe(TAXONOMY[reason].category);
        expect(error.classification.retryable).toBe(TAXONOMY[reason].retryable);
        expect(error.metadata.provider).toBe(GOOGLE_GENAI_PROVIDER);
        expect(error.metadata.delivered?.chunks).toBeGreaterThanOrEqual(1);
        expect(error.metadata.delivered?.characters).toBeGreaterThan(0);
        if (swallowed) {
          expect(error.metadata.origin).toBe('malformed_response');
        } else {
          expect(error.classification.category).toBe(expected.category);
          expect(error.classification.retryable).toBe(expected.retryable);
          if (expected.statusCode !== undefined) expect(error.metadata.statusCode).toBe(expected.statusCode);
          if (expected.providerCode !== undefined)
            expect(error.metadata.providerCode).toBe(expected.providerCode);
        }
        const response = scenario.response;
        if (response.kind === 'sse' && response.then === 'stall') {
          // The harness gives the stall scenario a short SDK timeout and the guard a long idle
          // timer: genai's own timer ended it, mid-stream (its timeout covers the body on every
          // major), and the guard classified genai's AbortError.
          expect((error.cause as Error | undefined)?.name).toBe('AbortError');
        }
      });
    }

    it('a function call part (whole, its args an object) is delivered output', async () => {
      const cut = loadScenario('google-genai/gemini-stream-cut');
      const call: SseEvent = {
        data: JSON.stringify({
          candidates: [
            {
              content: {
                parts: [{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }],
                role: 'model',
              },
              index: 0,
            },
          ],
          modelVersion: 'gemini-2.5-flash',
          responseId: 'resp-loopback-1',
        }),
      };
      // The recorded cut, after a function call instead of text.
      const scenario = { ...cut, response: { ...cut.response, events: [call] } } as Scenario;
      const { thrown } = await readGuarded(sdk, scenario);
      expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
      expect((thrown as FaultlineError).toErrorReport()).toMatchObject({
        delivered: { chunks: 1, characters: 1 },
        recovery: { fallback: false },
      });
    });

    it('lets a blocked chunk through with detectBlockedAnswer: false', async () => {
      const scenario = loadScenario('google-genai/gemini-stream-finish-prohibited-content');
      const { chunks, thrown } = await readGuarded(sdk, scenario, { detectBlockedAnswer: false });
      expect(thrown).toBeUndefined();
      expect(chunks).toHaveLength(scenario.response.kind === 'sse' ? scenario.response.events.length : -1);
    });

    it('detects a blocked chunk unless detectBlockedAnswer is false (null from JavaScript keeps the default, as on Bedrock)', async () => {
      const scenario = loadScenario('google-genai/gemini-stream-finish-prohibited-content');
      const { thrown } = await readGuarded(sdk, scenario, {
        detectBlockedAnswer: null as unknown as boolean,
      });
      expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
      expect((thrown as FaultlineError).classification.reason).toBe(scenario.expected.reason);
    });
  });
}

/** A chat whose only turn streams `events` then `ending`, guarded; the chat and what was read. */
async function guardedChatTurn(
  sdk: GenaiSdk,
  events: readonly SseEvent[],
  ending: StreamEnding,
  idleTimeoutMs = 5_000,
) {
  const client = clientOf(sdk, 'gemini', server.baseUrlFor({ response: frame(events, ending) }), 60_000);
  const chat = client.chats.create({ model: MODEL });
  const outcome = await read(
    guardGeminiStream(await chat.sendMessageStream({ message: PROMPT }), { idleTimeoutMs }),
  );
  return { chat, ...outcome };
}

const contentOf = (chunk: unknown) =>
  (chunk as { candidates: Array<{ content: unknown }> }).candidates[0]?.content;
const userTurn = { role: 'user', parts: [{ text: PROMPT }] };

for (const sdk of SDKS) {
  describe(`the chat helper's history after a guarded stream, real ${sdk.alias}`, () => {
    it('a complete stream: the history holds the question and every chunk of the answer', async () => {
      const { chat, chunks, thrown } = await guardedChatTurn(sdk, geminiWire.complete, 'end');
      expect(thrown).toBeUndefined();
      const answer = chunks.map(contentOf);
      expect(answer).toHaveLength(geminiWire.complete.length);
      expect(chat.getHistory()).toEqual([userTurn, ...answer]);
      expect(chat.getHistory(true)).toEqual([userTurn, ...answer]);
    });

    it('a stream that ends without a finishReason: interrupted, and the history per major', async () => {
      const { chat, chunks, thrown } = await guardedChatTurn(sdk, geminiWire.partial, 'end');
      expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
      expect((thrown as FaultlineError).classification.reason).toBe('interrupted');
      // The chat records the turn before its generator reports the end, so before the guard can
      // tell that the answer is cut short.
      if (sdk.alias === 'genai-v1') {
        // genai 1.x records whatever content arrived: the truncated answer stays in the history,
        // curated or not, and the next turn sends it as context.
        const truncated = [userTurn, ...chunks.map(contentOf)];
        expect(chat.getHistory()).toEqual(truncated);
        expect(chat.getHistory(true)).toEqual(truncated);
      } else {
        // genai 2/3 keep the answer only when a chunk carried a finishReason: an empty model turn
        // is recorded, which the curated history (what the next turn sends) drops with its question.
        expect(chat.getHistory()).toEqual([userTurn, { role: 'model', parts: [] }]);
        expect(chat.getHistory(true)).toEqual([]);
      }
    });

    const thrownCases: Array<[string, readonly SseEvent[], StreamEnding, number?]> = [
      ['an error chunk', [...geminiWire.partial, ...geminiWire.errorEvent.events], 'end'],
      ['a cut', geminiWire.partial, 'cut'],
      ['a stall (the guard gives up; the SDK is still waiting)', geminiWire.partial, 'stall', 300],
    ];
    for (const [name, events, ending, idleTimeoutMs] of thrownCases) {
      it(`${name}: classified, and the turn is not recorded`, async () => {
        const { chat, thrown } = await guardedChatTurn(sdk, events, ending, idleTimeoutMs);
        expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
        // Nothing recorded, the question included: the chat can send it again. On genai 1.x the
        // error chunk arrives as an empty chunk, which the unguarded chat would record as the end
        // of a complete answer; the guard throws on it and returns the chat's generator first.
        expect(chat.getHistory()).toEqual([]);
      });
    }
  });

  describe(`a stream the guard gave up on, real ${sdk.alias}`, () => {
    it("keeps genai's request open until the caller aborts genai's signal", async () => {
      // genai's stream is a generator parked in `reader.read()`: the guard's `return()` is queued
      // behind that read, and genai 2/3 turn undici's body timeout off, so the socket stays open
      // until httpOptions.timeout (if any). Aborting the signal handed to genai releases it.
      const controller = new AbortController();
      const baseUrl = server.baseUrlFor({ response: frame(geminiWire.partial, 'stall') });
      const stream = await clientOf(sdk, 'gemini', baseUrl, 60_000).models.generateContentStream({
        model: MODEL,
        contents: PROMPT,
        config: { abortSignal: controller.signal },
      });
      const { thrown } = await read(guardGeminiStream(stream, { idleTimeoutMs: 300 }));
      expect((thrown as FaultlineError).metadata.origin).toBe('timeout');
      controller.abort();
      // Settles only once genai's pending read has ended (a hang fails the test).
      await expect(stream[Symbol.asyncIterator]().next()).resolves.toMatchObject({ done: true });
    });
  });
}

/**
 * genai's stream reader throws plain `Error`s of its own: "Incomplete JSON segment at the end" when
 * the body ends part-way through an event (a connection closed cleanly mid-chunk: not a cut, which
 * undici reports as `terminated`), "Response body is empty" when there is no body (a 204).
 */
const readerFailures: Array<[string, ScenarioResponse, number]> = [
  [
    'a body that ends part-way through a chunk',
    {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `data: ${partial[0]!.data}\n\ndata: ${partial[1]!.data.slice(0, 20)}`,
    },
    1,
  ],
  ['a stream answer without a body (204)', { kind: 'http', status: 204, body: '' }, 0],
];

for (const sdk of SDKS) {
  describe(`genai's own stream-reader errors, real ${sdk.alias}`, () => {
    for (const [name, response, delivered] of readerFailures) {
      it(`${name}: interrupted, guarded or through withClassifiedErrors`, async () => {
        const client = clientOf(sdk, 'gemini', server.baseUrlFor({ response }), 10_000);
        const open = () => client.models.generateContentStream({ model: MODEL, contents: PROMPT });
        const unguarded = await read(await open());
        expect(unguarded.thrown, 'genai threw').toBeInstanceOf(Error);
        expect(FaultlineError.isInstance(unguarded.thrown)).toBe(false);

        const guarded = await read(guardGeminiStream(await open(), { idleTimeoutMs: 5_000 }));
        const drained = async () => {
          const chunks: unknown[] = [];
          for await (const item of await open()) chunks.push(item);
          return chunks;
        };
        const wrapped = await withClassifiedErrors(drained, { inspectResult: undefined }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        for (const thrown of [guarded.thrown, wrapped]) {
          expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
          const error = thrown as FaultlineError;
          expect(error.cause).toBeInstanceOf(Error);
          expect((error.cause as Error).message).toBe((unguarded.thrown as Error).message);
          expect(error.metadata.provider).toBe(GOOGLE_GENAI_PROVIDER);
          expect(error.classification).toMatchObject({
            reason: 'interrupted',
            category: TAXONOMY.interrupted.category,
            retryable: TAXONOMY.interrupted.retryable,
          });
        }
        expect((guarded.thrown as FaultlineError).metadata).toMatchObject({
          networkPhase: 'stream',
          delivered: { chunks: delivered },
        });
        expect(guarded.chunks).toHaveLength(delivered);
      });
    }
  });
}

describe("genai's own timeout, real SDKs", () => {
  it('genai copies the response headers into every chunk (why the Date header is pinned)', async () => {
    const baseUrl = server.baseUrlFor({ response: frame(geminiWire.complete, 'end') });
    const stream = await clientOf(SDKS[0]!, 'gemini', baseUrl, 10_000).models.generateContentStream({
      model: MODEL,
      contents: PROMPT,
    });
    const { chunks } = await read(stream);
    for (const chunk of chunks) {
      expect((chunk as { sdkHttpResponse?: { headers?: object } }).sdkHttpResponse?.headers).toMatchObject({
        date: PINNED_DATE,
      });
    }
  });

  for (const sdk of SDKS) {
    it(`${sdk.alias}: httpOptions.timeout is a deadline for the whole stream, not an idle timer`, async () => {
      // Forty chunks, one every streamEventDelayMilliseconds: the stream never goes quiet, yet
      // outlasts the SDK's timeout, which is never reset per chunk (genai 1.x never clears it;
      // genai 2/3 keep it armed while the body is read). The guard reads genai's AbortError
      // mid-stream as an interruption.
      const events = Array.from({ length: 40 }, () => partial[0]!);
      const baseUrl = server.baseUrlFor({ response: frame([...events, terminal], 'end') });
      const stream = await clientOf(sdk, 'gemini', baseUrl, 300).models.generateContentStream({
        model: MODEL,
        contents: PROMPT,
      });
      const { chunks, thrown } = await read(guardGeminiStream(stream, { idleTimeoutMs: 5_000 }));
      expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
      expect((thrown as FaultlineError).classification.reason).toBe('interrupted');
      expect(((thrown as FaultlineError).cause as Error).name).toBe('AbortError');
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.length).toBeLessThan(events.length);
    });
  }
});

describe('guardGeminiStream chunk readers', () => {
  it('inspectGeminiResult flags collected chunks holding an empty chunk, and nothing else', () => {
    expect(inspectGeminiResult([{ candidates: [{ content: { parts: [{ text: 'a' }] } }] }, {}])?.origin).toBe(
      'malformed_response',
    );
    expect(inspectGeminiResult([{ candidates: [{ finishReason: 'STOP' }] }])).toBeUndefined();
    expect(inspectGeminiResult({})).toBeUndefined();
    expect(inspectGeminiResult({ promptFeedback: { blockReason: 'OTHER' } })?.origin).toBe(
      'blocked_response',
    );
    expect(inspectGeminiResult(undefined)).toBeUndefined();
  });

  it('tells an empty chunk and a terminal chunk from normal ones', () => {
    expect(isEmptyGeminiChunk({})).toBe(true);
    expect(isEmptyGeminiChunk({ sdkHttpResponse: { headers: {} } })).toBe(true);
    expect(isEmptyGeminiChunk({ candidates: [] })).toBe(false);
    expect(isEmptyGeminiChunk({ usageMetadata: { totalTokenCount: 3 } })).toBe(false);
    expect(isEmptyGeminiChunk(null)).toBe(false);
    expect(isGeminiTerminalChunk({ candidates: [{ finishReason: 'MAX_TOKENS' }] })).toBe(true);
    expect(isGeminiTerminalChunk({ candidates: [{ content: {} }] })).toBe(false);
    expect(isGeminiTerminalChunk({ candidates: [{ finishReason: 'FINISH_REASON_UNSPECIFIED' }] })).toBe(
      false,
    );
    expect(isGeminiTerminalChunk('STOP')).toBe(false);
  });
});
