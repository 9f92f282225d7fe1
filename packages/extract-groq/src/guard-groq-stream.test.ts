import { type FailureReason, TAXONOMY } from '@faultline/classify';
import { type ErrorReport, FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenario,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import {
  type Drained,
  drain,
  type SseEvent,
  type StreamWire,
  sseFrame,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardGroqStream } from './guard-groq-stream.ts';
import { openChatStream, SDKS, type Sdk } from './test-support.ts';

const REQUEST_ID = 'req_01jgroqexample0000000000';

/** A Groq chat chunk; the one carrying `finish_reason` also carries `x_groq` (request id, usage). */
function chatChunk(content: string | null, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: 'llama-3.3-70b-versatile',
    system_fingerprint: 'fp_1',
    choices: [
      { index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finishReason },
    ],
    ...(finishReason === null
      ? {}
      : {
          x_groq: {
            id: REQUEST_ID,
            usage: { queue_time: 0.01, prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
          },
        }),
  });
}

const isChatChunk = (data: string): boolean => {
  try {
    return Array.isArray((JSON.parse(data) as { choices?: unknown }).choices);
  } catch {
    return false;
  }
};

/** A stream scenario's SSE events, as the matrix's frame takes them. */
function sseEventsOf(scenario: Scenario): SseEvent[] {
  if (scenario.response.kind !== 'sse') throw new Error(`${scenario.id} is not an SSE scenario`);
  return scenario.response.events.map(({ event, data }) =>
    event === undefined ? { data } : { event, data },
  );
}

/**
 * The error event of a recorded stream scenario (its events that are not chat chunks), and the
 * classification the scenario expects of it, per major.
 */
function errorEventFrom(id: string): StreamWire<SseEvent>['errorEvent'] {
  const scenario = loadScenario(`groq/${id}`);
  const events = sseEventsOf(scenario).filter((event) => !isChatChunk(event.data));
  expect(events.length, `${scenario.id} has an error event`).toBeGreaterThan(0);
  const bySdk: Record<string, { reason: FailureReason }> = {};
  for (const { alias } of SDKS) {
    const reason = expectedFor(scenario, alias).reason;
    if (reason !== scenario.expected.reason) bySdk[alias] = { reason };
  }
  return { events, reason: scenario.expected.reason, bySdk };
}

const partial: SseEvent[] = [{ data: chatChunk('Hel') }, { data: chatChunk('lo') }];
const complete: SseEvent[] = [...partial, { data: chatChunk(null, 'stop') }, { data: '[DONE]' }];

/** Chat Completions with the error as a data line, `data: {"error":{…}}`. */
const chatWire: StreamWire<SseEvent> = {
  frame: sseFrame,
  complete,
  partial,
  delivered: { chunks: 2, characters: 'Hello'.length },
  errorEvent: errorEventFrom('stream-error-event'),
};

/** The same, with the error as a named SSE event, `event: error` + `data: {"error":{…}}`. */
const namedErrorWire: StreamWire<SseEvent> = {
  ...chatWire,
  errorEvent: errorEventFrom('stream-error-event-named'),
};

const openCreate = (
  sdk: Sdk,
  baseUrl: string,
  call: { signal: AbortSignal; timeoutMs: number; fetch?: typeof globalThis.fetch | undefined },
) => openChatStream(sdk, baseUrl, call);

// Neither major has a stream helper (no `chat.completions.stream()`, no runner, no final*()
// methods): `create({ stream: true })` is the only streaming surface of groq-sdk 0.37 and 1.6.
streamMatrix({
  provider: 'groq',
  sdks: SDKS,
  sdkPackage: { name: 'groq-sdk', packageDir: new URL('..', import.meta.url).pathname },
  guard: (stream, options) => guardGroqStream(stream, options),
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  surfaces: [
    {
      name: 'chat.completions.create({ stream: true })',
      wire: chatWire,
      open: openCreate,
      releasesRequest: true,
      acceptsFetch: true,
    },
    {
      name: 'chat.completions.create({ stream: true }), error as a named `event: error`',
      wire: namedErrorWire,
      open: openCreate,
      releasesRequest: true,
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

const play = (sdk: Sdk, events: readonly SseEvent[]) =>
  openChatStream(sdk, server.baseUrlFor({ response: sseFrame(events, 'end') }));

async function guarded(sdk: Sdk, events: readonly SseEvent[], options = {}): Promise<Drained> {
  return drain(guardGroqStream(await play(sdk, events), { idleTimeoutMs: 3000, ...options }));
}

function failureOf(outcome: Drained): FaultlineError {
  expect(outcome.threw, 'the guarded stream ended without an error').toBe(true);
  expect(FaultlineError.isInstance(outcome.error), String(outcome.error)).toBe(true);
  return outcome.error as FaultlineError;
}

const expectReason = (report: ErrorReport, reason: FailureReason) =>
  expect(report).toMatchObject({
    reason,
    category: TAXONOMY[reason].category,
    retryable: TAXONOMY[reason].retryable,
  });

const dataLineError = [...partial, ...chatWire.errorEvent.events];
const namedError = [...partial, ...namedErrorWire.errorEvent.events];
/** The named event carrying the bare error object, without the `{"error": …}` wrapper. */
const bareNamedError: SseEvent[] = [
  ...partial,
  ...namedErrorWire.errorEvent.events.map((event) => ({
    event: 'error',
    data: JSON.stringify((JSON.parse(event.data) as { error: unknown }).error),
  })),
];

/** The recorded error event's message, sent as an object with only a message, and as a bare string. */
const recordedMessage = (JSON.parse(chatWire.errorEvent.events[0]!.data) as { error: { message: string } })
  .error.message;
const messageOnly = JSON.stringify({ error: { message: recordedMessage } });
const stringError = JSON.stringify({ error: recordedMessage });

for (const sdk of SDKS) {
  describe(`guardGroqStream through ${sdk.alias}: the two forms of an in-stream error`, () => {
    it('`event: error` and a `data: {"error":…}` line throw the same SDK error and classify the same', async () => {
      const plainData = await drain(await play(sdk, dataLineError));
      const plainNamed = await drain(await play(sdk, namedError));
      expect(plainData.threw && plainNamed.threw).toBe(true);
      // The SDK parses both alike: an APIError without status whose `error` is the inner object.
      expect((plainNamed.error as Error).constructor).toBe((plainData.error as Error).constructor);
      expect((plainNamed.error as { error: unknown }).error).toEqual(
        (plainData.error as { error: unknown }).error,
      );
      expect((plainNamed.error as { status: unknown }).status).toBeUndefined();

      const viaData = failureOf(await guarded(sdk, dataLineError));
      const viaNamed = failureOf(await guarded(sdk, namedError));
      expect(viaNamed.toErrorReport()).toEqual(viaData.toErrorReport());
      expect(viaNamed.toErrorReport().providerMetadata.origin).toBe('stream_event');
    });

    it('a named `event: error` whose data is the bare error object: the SDK yields it as a chunk, the guard throws it classified', async () => {
      const plain = await drain(await play(sdk, bareNamedError));
      expect(plain.threw, 'groq-sdk throws only when the JSON has an `error` field').toBe(false);
      expect(plain.chunks.at(-1)).toEqual(JSON.parse(bareNamedError.at(-1)!.data));

      const outcome = await guarded(sdk, bareNamedError);
      const failure = failureOf(outcome);
      expect(outcome.chunks).toHaveLength(partial.length);
      expect(failure.delivered).toEqual(chatWire.delivered);
      const wrapped = failureOf(await guarded(sdk, namedError)).toErrorReport();
      const report = failure.toErrorReport();
      expectReason(report, wrapped.reason as FailureReason);
      expect(report).toMatchObject({
        message: wrapped.message,
        providerMetadata: { origin: 'stream_event', providerType: wrapped.providerMetadata.providerType },
      });
    });
  });
}

for (const sdk of SDKS) {
  describe(`guardGroqStream through ${sdk.alias}: an error event whose error is a bare string`, () => {
    for (const event of [undefined, 'error']) {
      it(`\`{"error":"…"}\`${event === undefined ? '' : ' as a named event: error'} classifies like \`{"error":{"message":"…"}}\``, async () => {
        const withEvent = (data: string): SseEvent => (event === undefined ? { data } : { event, data });
        const plain = await drain(await play(sdk, [...partial, withEvent(stringError)]));
        // groq-sdk throws APIError(undefined, "…"): no status, `error` is the string itself.
        expect((plain.error as { error: unknown }).error).toBe(recordedMessage);

        const viaString = failureOf(await guarded(sdk, [...partial, withEvent(stringError)]));
        const viaObject = failureOf(await guarded(sdk, [...partial, withEvent(messageOnly)]));
        expect(viaString.toErrorReport()).toEqual(viaObject.toErrorReport());
        expect(viaString.toErrorReport().providerMetadata.origin).toBe('stream_event');
      });
    }
  });
}

for (const sdk of SDKS) {
  describe(`guardGroqStream through ${sdk.alias}: an event that is not JSON`, () => {
    for (const event of [undefined, 'error']) {
      it(`a data line that is not JSON${event === undefined ? '' : ' (named event: error)'} is a malformed answer, not a local bug`, async () => {
        const events: SseEvent[] = [
          ...partial,
          event === undefined ? { data: 'Internal error' } : { event, data: 'Internal error' },
        ];
        const plain = await drain(await play(sdk, events));
        // groq-sdk rethrows JSON.parse's own error.
        expect((plain.error as Error).name).toBe('SyntaxError');

        const outcome = await guarded(sdk, events);
        const failure = failureOf(outcome);
        expect(failure.cause).toBeInstanceOf(SyntaxError);
        const report = failure.toErrorReport();
        expectReason(report, 'interrupted');
        expect(report).toMatchObject({
          provider: 'groq',
          providerMetadata: { origin: 'malformed_response', networkPhase: 'stream' },
        });
        expect(failure.delivered).toEqual(chatWire.delivered);
      });
    }
  });
}

const streamScenarios = loadScenarios('groq').filter(
  (scenario) => scenario.stream === true && scenario.response.kind === 'sse',
);

describe('guardGroqStream over every recorded Groq stream scenario', () => {
  it('has the stream scenarios (error event in both forms, status_code, tool_use_failed, cut)', () => {
    expect(streamScenarios.map((scenario) => scenario.id)).toEqual(
      expect.arrayContaining([
        'groq/stream-cut',
        'groq/stream-error-event',
        'groq/stream-error-event-named',
        'groq/stream-error-status-code',
        'groq/stream-tool-use-failed',
      ]),
    );
  });

  for (const sdk of SDKS) {
    for (const scenario of streamScenarios) {
      it(`${sdk.alias} ${scenario.id}`, async () => {
        const expected = expectedFor(scenario, sdk.alias);
        const stream = await openChatStream(sdk, server.baseUrlFor(scenario));
        const outcome = await drain(guardGroqStream(stream, { idleTimeoutMs: 3000 }));
        const failure = failureOf(outcome);
        const report = failure.toErrorReport();
        expect(report).toMatchObject({
          provider: 'groq',
          category: expected.category,
          reason: expected.reason,
          retryable: expected.retryable,
          userAction: { kind: expected.userAction },
          httpStatus: expected.httpStatus,
        });
        if (expected.statusCode !== undefined) expect(failure.metadata.statusCode).toBe(expected.statusCode);
        if (expected.providerCode !== undefined) {
          expect(failure.metadata.providerCode).toBe(expected.providerCode);
        }
        const chunkEvents = sseEventsOf(scenario).filter((event) => isChatChunk(event.data));
        expect(outcome.chunks).toHaveLength(chunkEvents.length);
        expect(failure.delivered?.chunks).toBe(chunkEvents.length);
        // tool_use_failed carries the model's own output in `failed_generation`: never reported.
        expect(JSON.stringify(report)).not.toContain('SECRET-MODEL-OUTPUT');
        expect(failure.message).not.toContain('SECRET-MODEL-OUTPUT');
      });
    }
  }
});

const filtered: SseEvent[] = [
  { data: chatChunk('Once') },
  { data: chatChunk(null, 'content_filter') },
  { data: '[DONE]' },
];

for (const sdk of SDKS) {
  describe(`guardGroqStream through ${sdk.alias}: a withheld answer`, () => {
    it('throws content_policy for a content_filter finish (request id from x_groq), unless turned off', async () => {
      const outcome = await guarded(sdk, filtered);
      const failure = failureOf(outcome);
      expectReason(failure.toErrorReport(), 'content_policy');
      expect(failure.metadata).toMatchObject({ blockReason: 'content_filter', requestId: REQUEST_ID });
      expect(failure.delivered).toEqual({ chunks: 1, characters: 'Once'.length });

      const off = await guarded(sdk, filtered, { detectBlockedAnswer: false });
      expect(off.threw, String(off.error)).toBe(false);
      expect(off.chunks).toHaveLength(2);
    });

    it("counts a tool call's argument deltas as delivered output", async () => {
      const args = '{"city":"Oslo"}';
      const toolCall = JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1732000000,
        model: 'llama-3.3-70b-versatile',
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      // The stream ends after the call, without a finish: cut after output.
      const failure = failureOf(await guarded(sdk, [{ data: toolCall }]));
      expect(failure.delivered).toEqual({ chunks: 1, characters: args.length });
      expect(failure.toErrorReport().recovery.fallback).toBe(false);
    });
  });
}
