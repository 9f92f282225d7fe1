import { TAXONOMY } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenario,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import {
  drain,
  type EventStreamMessage,
  eventStreamFrame,
  type StreamWire,
  streamMatrix,
} from '@faultline/test-fixtures/stream-matrix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChunkJson,
  INVOCATION_METRICS,
  MODEL_FAMILIES,
  type ModelFamily,
  withoutMetrics,
} from '../test/bedrock-model-families.ts';
import {
  converseEvent,
  destroyStreamClients,
  invokeStreamChunk,
  openConverseStream,
  openInvokeModelStream,
  SDK_ALIASES,
} from '../test/bedrock-sdk-harness.ts';
import { guardBedrockStream } from './guard-bedrock-stream.ts';

afterAll(() => destroyStreamClients());

const reportOf = (error: unknown) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined);

/** The exception frame a recorded stream scenario ends with, and what it must be classified as. */
function exceptionOf(scenario: Scenario): { frame: EventStreamMessage; events: EventStreamMessage[] } {
  const response = scenario.response;
  if (response.kind !== 'aws-event-stream') throw new Error(`${scenario.id} is not an event stream`);
  const frame = response.messages.at(-1);
  if (frame?.headers[':message-type'] !== 'exception')
    throw new Error(`${scenario.id} ends with no exception`);
  return { frame, events: response.messages.slice(0, -1) };
}

/** Characters of text in ConverseStream event frames (contentBlockDelta text only, as the fixtures have). */
function converseText(messages: readonly EventStreamMessage[]): number {
  let characters = 0;
  for (const message of messages) {
    if (message.headers[':event-type'] !== 'contentBlockDelta') continue;
    const text = (JSON.parse(message.payload) as { delta?: { text?: unknown } }).delta?.text;
    if (typeof text === 'string') characters += text.length;
  }
  return characters;
}

// ---------------------------------------------------------------------------------------------
// ConverseStream: messageStart, contentBlockDelta…, contentBlockStop, messageStop, metadata.

const CONVERSE_TEXT = ['Hello', ', world'];
const CONVERSE_OPEN = [
  converseEvent('messageStart', { role: 'assistant' }),
  ...CONVERSE_TEXT.map((text) =>
    converseEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }),
  ),
];
const CONVERSE_END = [
  converseEvent('contentBlockStop', { contentBlockIndex: 0 }),
  converseEvent('messageStop', { stopReason: 'end_turn' }),
  converseEvent('metadata', {
    usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
    metrics: { latencyMs: 20 },
  }),
];
const converseThrottling = loadScenario('bedrock/converse-stream-throttling');

const converseWire: StreamWire<EventStreamMessage> = {
  frame: eventStreamFrame,
  complete: [...CONVERSE_OPEN, ...CONVERSE_END],
  partial: CONVERSE_OPEN,
  delivered: { chunks: CONVERSE_OPEN.length, characters: converseText(CONVERSE_OPEN) },
  // The cut splits the last frame: the SDK never yields it.
  deliveredFor: {
    cutMidway: { chunks: CONVERSE_OPEN.length - 1, characters: converseText(CONVERSE_OPEN.slice(0, -1)) },
  },
  errorEvent: {
    events: [exceptionOf(converseThrottling).frame],
    reason: converseThrottling.expected.reason,
  },
};

// ---------------------------------------------------------------------------------------------
// InvokeModelWithResponseStream: `chunk` frames whose bytes carry the model family's JSON; the
// matrix plays Anthropic Claude (Messages), the family most used through this API.

const anthropic = MODEL_FAMILIES.find((family) => family.name === 'Anthropic Claude (Messages)')!;
/** message_start, content_block_start and the two text deltas. */
const ANTHROPIC_OPEN = anthropic.stream.slice(0, 4);
const anthropicText = (chunks: readonly ChunkJson[]) =>
  chunks.reduce((sum, chunk) => {
    const text = (chunk.delta as { text?: unknown } | undefined)?.text;
    return sum + (chunk.type === 'content_block_delta' && typeof text === 'string' ? text.length : 0);
  }, 0);
const modelStreamError = loadScenario('bedrock/converse-stream-model-stream-error');

const invokeWire: StreamWire<EventStreamMessage> = {
  frame: eventStreamFrame,
  complete: anthropic.stream.map(invokeStreamChunk),
  partial: ANTHROPIC_OPEN.map(invokeStreamChunk),
  delivered: { chunks: ANTHROPIC_OPEN.length, characters: anthropicText(ANTHROPIC_OPEN) },
  deliveredFor: {
    cutMidway: { chunks: ANTHROPIC_OPEN.length - 1, characters: anthropicText(ANTHROPIC_OPEN.slice(0, -1)) },
  },
  errorEvent: {
    // The exception frames are the same event-stream messages as ConverseStream's.
    events: [exceptionOf(modelStreamError).frame],
    reason: modelStreamError.expected.reason,
  },
};

streamMatrix({
  provider: 'bedrock',
  sdks: SDK_ALIASES.map((alias) => ({ alias })),
  sdkPackage: {
    name: '@aws-sdk/client-bedrock-runtime',
    packageDir: new URL('..', import.meta.url).pathname,
  },
  server: { protocol: 'h2c' },
  guard: (stream, options) => guardBedrockStream(stream, options),
  reportOf,
  surfaces: [
    {
      name: 'ConverseStream (response.stream)',
      wire: converseWire,
      open: (_sdk, baseUrl, call) => openConverseStream(baseUrl, call),
    },
    {
      name: 'InvokeModelWithResponseStream (response.body), Anthropic Claude',
      wire: invokeWire,
      open: (_sdk, baseUrl, call) => openInvokeModelStream(baseUrl, call, anthropic),
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// What the matrix does not express.

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'h2c' });
});
afterAll(async () => {
  await server?.close();
});

type Open = (baseUrl: string) => Promise<AsyncIterable<unknown>>;
const converse: Open = (baseUrl) => openConverseStream(baseUrl);
const invokeAs =
  (family: Pick<ModelFamily, 'modelId' | 'request'>): Open =>
  (baseUrl) =>
    openInvokeModelStream(baseUrl, {}, family);

/** An event stream cut on a frame boundary (eventStreamFrame's cut splits the last frame, as cutMidway wants). */
function cutOnBoundary(messages: readonly EventStreamMessage[]): Scenario['response'] {
  return {
    kind: 'aws-event-stream',
    messages: messages.map((message) => ({ headers: { ...message.headers }, payload: message.payload })),
    // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
    then: 'cut',
  };
}

const urlFor = (messages: readonly EventStreamMessage[], ending: 'end' | 'cut' | 'stall' = 'end') =>
  server.baseUrlFor({
    response: ending === 'cut' ? cutOnBoundary(messages) : eventStreamFrame(messages, ending),
  });

async function plain(open: Open, messages: readonly EventStreamMessage[], ending?: 'end' | 'cut') {
  return drain(await open(urlFor(messages, ending)));
}

async function guarded(
  open: Open,
  messages: readonly EventStreamMessage[],
  ending?: 'end' | 'cut' | 'stall',
  options: Parameters<typeof guardBedrockStream>[1] = {},
) {
  return drain(guardBedrockStream(await open(urlFor(messages, ending)), { idleTimeoutMs: 3000, ...options }));
}

function expectReason(error: unknown, expected: Pick<Scenario['expected'], 'reason'>) {
  const report = reportOf(error);
  expect(report, `not classified: ${String(error)}`).toBeDefined();
  expect(report).toMatchObject({
    provider: 'bedrock',
    reason: expected.reason,
    category: TAXONOMY[expected.reason].category,
    retryable: TAXONOMY[expected.reason].retryable,
  });
  return report!;
}

const interrupted = { reason: 'interrupted' } as const;
/** What a withheld answer is: the recorded guardrail scenario's classification. */
const blockedAnswer = loadScenario('bedrock/converse-guardrail-intervened').expected;

describe('guardBedrockStream over the real ConverseStream: beyond the matrix', () => {
  it('a cut on a frame boundary (the SDK ends silently) is interrupted, with what was delivered', async () => {
    const unguarded = await plain(converse, CONVERSE_OPEN, 'cut');
    expect(unguarded.error).toBeUndefined();
    const read = await guarded(converse, CONVERSE_OPEN, 'cut');
    expect(read.chunks).toHaveLength(CONVERSE_OPEN.length);
    const report = expectReason(read.error, interrupted);
    expect(report.delivered).toEqual({
      chunks: CONVERSE_OPEN.length,
      characters: converseText(CONVERSE_OPEN),
    });
  });

  it('a stall ended by the SDK requestTimeout (it ends silently) is interrupted before the idle timer', async () => {
    // The socket's idle timeout: long enough for the headers and chunks on a loaded machine.
    const stream = await openConverseStream(urlFor(CONVERSE_OPEN, 'stall'), { timeoutMs: 2_000 });
    const read = await drain(guardBedrockStream(stream, { idleTimeoutMs: 10_000 }));
    expect(read.chunks).toHaveLength(CONVERSE_OPEN.length);
    const report = expectReason(read.error, interrupted);
    expect(report.providerMetadata.origin).toBe('network');
  });

  for (const stopReason of ['guardrail_intervened', 'content_filtered']) {
    it(`a messageStop with stopReason ${stopReason} is a withheld answer, unless turned off`, async () => {
      const events = [
        ...CONVERSE_OPEN,
        CONVERSE_END[0]!,
        converseEvent('messageStop', { stopReason }),
        CONVERSE_END[2]!,
      ];
      const read = await guarded(converse, events);
      expect(read.chunks).toHaveLength(CONVERSE_OPEN.length + 1);
      expectReason(read.error, blockedAnswer);
      expect((read.error as FaultlineError).metadata).toMatchObject({
        origin: 'blocked_response',
        blockReason: stopReason,
      });
      const off = await guarded(converse, events, 'end', { detectBlockedAnswer: false });
      expect(off.error).toBeUndefined();
      expect(off.chunks).toHaveLength(events.length);
    });
  }

  it('an answer whose metadata event was lost after messageStop still counts as complete', async () => {
    const events = [...CONVERSE_OPEN, ...CONVERSE_END.slice(0, 2)];
    const read = await guarded(converse, events, 'cut');
    expect(read.error).toBeUndefined();
    expect(read.chunks).toHaveLength(events.length);
    expect(Object.keys(read.chunks.at(-1) as object)).toEqual(['messageStop']);
  });

  // The ones that deliver events before they fail (an exception as the first frame is thrown by
  // send(), before there is a stream to guard).
  const recorded = loadScenarios('bedrock').filter(
    (scenario) =>
      scenario.api === 'converse-stream' &&
      scenario.response.kind === 'aws-event-stream' &&
      scenario.response.messages.length > 1,
  );
  it('replays every recorded ConverseStream scenario (there are some)', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(5);
  });
  for (const scenario of recorded) {
    it(`recorded ${scenario.id}: ${scenario.expected.reason}, with what was delivered`, async () => {
      const response = scenario.response as Extract<Scenario['response'], { kind: 'aws-event-stream' }>;
      const read = await drain(
        guardBedrockStream(await openConverseStream(server.baseUrlFor(scenario)), { idleTimeoutMs: 3000 }),
      );
      const report = expectReason(read.error, scenario.expected);
      // Every frame before the failing one was delivered, except a frame the cut split.
      const delivered = response.messages.slice(0, -1);
      expect(read.chunks).toHaveLength(delivered.length);
      expect(report.delivered).toEqual({ chunks: delivered.length, characters: converseText(delivered) });
    });
  }
});

describe('guardBedrockStream over the real InvokeModelWithResponseStream, every model family', () => {
  for (const family of MODEL_FAMILIES) {
    const whole = family.stream.map(invokeStreamChunk);
    const open = family.stream.slice(0, family.openChunks).map(invokeStreamChunk);

    describe(family.name, () => {
      it('a healthy stream passes through unchanged (the family JSON in each chunk)', async () => {
        const unguarded = await plain(invokeAs(family), whole);
        expect(unguarded.error).toBeUndefined();
        const read = await guarded(invokeAs(family), whole);
        expect(read.error, String(read.error)).toBeUndefined();
        expect(read.chunks).toEqual(unguarded.chunks);
        const decoded = read.chunks.map((chunk) =>
          JSON.parse(new TextDecoder().decode((chunk as { chunk: { bytes: Uint8Array } }).chunk.bytes)),
        );
        expect(decoded).toEqual(family.stream);
      });

      it('a stream without its final chunk (no invocation metrics, no end marker) is interrupted, with the text delivered', async () => {
        const read = await guarded(invokeAs(family), open);
        expect(read.chunks).toHaveLength(family.openChunks);
        const report = expectReason(read.error, interrupted);
        expect(report.delivered).toEqual({ chunks: family.openChunks, characters: family.openText.length });
        expect(report.providerMetadata).toMatchObject({ origin: 'network', networkPhase: 'stream' });
      });

      it("the family's own end marker, without Bedrock's invocation metrics, still ends the answer", async () => {
        const read = await guarded(
          invokeAs(family),
          family.stream.map(withoutMetrics).map(invokeStreamChunk),
        );
        expect(read.error, String(read.error)).toBeUndefined();
        expect(read.chunks).toHaveLength(family.stream.length);
      });
    });
  }

  it('for a family faultline does not know, the chunk with the invocation metrics is the end', async () => {
    const unknownFamily = { modelId: 'acme.future-model-v1:0', request: { prompt: 'Say hello.' } };
    const chunks = [{ token: { text: 'Hello' } }, { token: { text: ', world' } }];
    const whole = [...chunks, { ...INVOCATION_METRICS }].map(invokeStreamChunk);
    expect((await guarded(invokeAs(unknownFamily), whole)).error).toBeUndefined();
    const cut = await guarded(invokeAs(unknownFamily), chunks.map(invokeStreamChunk));
    expect(expectReason(cut.error, interrupted).delivered).toEqual({ chunks: chunks.length, characters: 0 });
  });

  it('in the Nova family, messageStop without the final metadata chunk counts as complete (as in ConverseStream)', async () => {
    const nova = MODEL_FAMILIES.find((family) => family.name === 'Amazon Nova')!;
    const read = await guarded(invokeAs(nova), nova.stream.slice(0, -1).map(invokeStreamChunk));
    expect(read.error).toBeUndefined();
  });

  // The exception frames of the recorded ConverseStream scenarios, after InvokeModelWithResponseStream chunks.
  const withException = loadScenarios('bedrock').filter((scenario) => {
    const response = scenario.response;
    return (
      response.kind === 'aws-event-stream' &&
      response.messages.at(-1)?.headers[':message-type'] === 'exception' &&
      response.then === 'end'
    );
  });
  it('replays the exception frame of every recorded stream scenario (five exception types)', () => {
    const types = new Set(
      withException.map((scenario) => exceptionOf(scenario).frame.headers[':exception-type']),
    );
    expect(types).toEqual(
      new Set([
        'throttlingException',
        'internalServerException',
        'modelStreamErrorException',
        'serviceUnavailableException',
        'validationException',
      ]),
    );
  });
  for (const scenario of withException) {
    const { frame } = exceptionOf(scenario);
    it(`an in-stream ${frame.headers[':exception-type']} (${scenario.id}) is ${scenario.expected.reason}, as in ConverseStream`, async () => {
      const read = await guarded(invokeAs(anthropic), [...invokeWire.partial, frame]);
      const report = expectReason(read.error, scenario.expected);
      expect(report.delivered).toEqual(invokeWire.delivered);
      expect(report.providerMetadata.origin).toBe('stream_event');
      const cause = (read.error as FaultlineError).cause as Error;
      expect(cause.name.toLowerCase()).toBe(String(frame.headers[':exception-type']).toLowerCase());
    });
  }

  it('an in-stream modelTimeoutException (modelled only by InvokeModelWithResponseStream) is classified as for ConverseStream', async () => {
    const frame = {
      headers: {
        ':message-type': 'exception',
        ':exception-type': 'modelTimeoutException',
        ':content-type': 'application/json',
      },
      payload: JSON.stringify({
        message: 'Model has timed out in processing the request. Try your request again.',
      }),
    };
    const viaInvoke = await guarded(invokeAs(anthropic), [...invokeWire.partial, frame]);
    const viaConverse = await guarded(converse, [...CONVERSE_OPEN, frame]);
    expect(((viaInvoke.error as FaultlineError).cause as Error).name).toBe('ModelTimeoutException');
    // ConverseStreamOutput has no modelTimeoutException member: the SDK throws a plain Error named after the type.
    expect(((viaConverse.error as FaultlineError).cause as Error).name).toBe('modelTimeoutException');
    const invokeReport = reportOf(viaInvoke.error)!;
    const converseReport = reportOf(viaConverse.error)!;
    expect(invokeReport.providerMetadata).toMatchObject({ providerCode: 'ModelTimeoutException' });
    expect(converseReport.providerMetadata).toMatchObject({ providerCode: 'ModelTimeoutException' });
    expect(invokeReport.reason).toBe(converseReport.reason);
  });

  it.fails('KNOWN GAP (classify): an in-stream ModelTimeoutException is classified like the same exception over HTTP (408)', async () => {
    const overHttp = loadScenario('bedrock/invoke-model-model-timeout').expected;
    const frame = {
      headers: {
        ':message-type': 'exception',
        ':exception-type': 'modelTimeoutException',
        ':content-type': 'application/json',
      },
      payload: JSON.stringify({
        message: 'Model has timed out in processing the request. Try your request again.',
      }),
    };
    const read = await guarded(invokeAs(anthropic), [...invokeWire.partial, frame]);
    expectReason(read.error, overHttp);
  });

  describe('withheld answers', () => {
    const titan = MODEL_FAMILIES.find((family) => family.name === 'Amazon Titan Text')!;
    const nova = MODEL_FAMILIES.find((family) => family.name === 'Amazon Nova')!;
    const cases: Array<{ name: string; family: ModelFamily; chunks: ChunkJson[]; blockReason: string }> = [
      {
        name: 'a guardrail intervention ("amazon-bedrock-guardrailAction": "INTERVENED")',
        family: anthropic,
        chunks: [
          ...ANTHROPIC_OPEN,
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: 'Sorry, the model cannot answer this question.' },
            'amazon-bedrock-guardrailAction': 'INTERVENED',
          },
          { type: 'message_stop', ...INVOCATION_METRICS },
        ],
        blockReason: 'guardrail_intervened',
      },
      {
        name: 'Anthropic stop_reason refusal',
        family: anthropic,
        chunks: [
          ...ANTHROPIC_OPEN,
          {
            type: 'message_delta',
            delta: { stop_reason: 'refusal', stop_sequence: null },
            usage: { output_tokens: 4 },
          },
          { type: 'message_stop', ...INVOCATION_METRICS },
        ],
        blockReason: 'refusal',
      },
      {
        name: 'Titan completionReason CONTENT_FILTERED',
        family: titan,
        chunks: [
          titan.stream[0]!,
          { outputText: '', index: 0, completionReason: 'CONTENT_FILTERED', ...INVOCATION_METRICS },
        ],
        blockReason: 'content_filtered',
      },
      {
        name: 'Nova messageStop content_filtered',
        family: nova,
        chunks: [
          ...nova.stream.slice(0, 4),
          { messageStop: { stopReason: 'content_filtered' } },
          nova.stream[5]!,
        ],
        blockReason: 'content_filtered',
      },
    ];
    for (const { name, family, chunks, blockReason } of cases) {
      it(`${name} is a withheld answer, unless turned off`, async () => {
        const frames = chunks.map(invokeStreamChunk);
        const read = await guarded(invokeAs(family), frames);
        expectReason(read.error, blockedAnswer);
        expect((read.error as FaultlineError).metadata).toMatchObject({
          origin: 'blocked_response',
          blockReason,
        });
        const off = await guarded(invokeAs(family), frames, 'end', { detectBlockedAnswer: false });
        expect(off.error).toBeUndefined();
        expect(off.chunks).toHaveLength(frames.length);
      });
    }
  });
});

describe('guardBedrockStream reads InvokeModelWithResponseStream chunks cheaply and totally', () => {
  /** A plain async iterator (an async generator would await each value, touching a Proxy's `then`). */
  function events(...items: unknown[]): AsyncIterable<unknown> {
    return {
      [Symbol.asyncIterator]() {
        let index = 0;
        return {
          next: async () =>
            index < items.length ? { done: false, value: items[index++] } : { done: true, value: undefined },
        };
      },
    };
  }
  /** A `{ chunk: { bytes } }` event that counts how often its bytes are read. */
  function counted(bytes: Uint8Array) {
    const reads = { count: 0 };
    const event = {
      chunk: {
        get bytes() {
          reads.count += 1;
          return bytes;
        },
      },
    };
    return { event, reads };
  }
  const encode = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));

  it('decodes each chunk once, however many questions the guard asks of it', async () => {
    const delta = counted(encode(anthropic.stream[2]));
    const stop = counted(encode(anthropic.stream.at(-1)));
    const read = await drain(guardBedrockStream(events(delta.event, stop.event)));
    expect(read.error).toBeUndefined();
    expect([delta.reads.count, stop.reads.count]).toEqual([1, 1]);
  });

  it('bytes that are not JSON, or too large to decode, pass through without output or an end', async () => {
    const garbage = { chunk: { bytes: new Uint8Array([0xff, 0xfe, 0x7b, 0x22]) } };
    const large = counted(
      encode({ outputText: 'x'.repeat(1024 * 1024), completionReason: 'FINISH', ...INVOCATION_METRICS }),
    );
    const read = await drain(guardBedrockStream(events(garbage, large.event)));
    expect(read.chunks).toEqual([garbage, large.event]);
    expect(expectReason(read.error, interrupted).delivered).toEqual({ chunks: 2, characters: 0 });
  });

  it('hostile events (throwing getters and traps, odd JSON) never break the guard', async () => {
    const throwingTraps = new Proxy(
      {},
      {
        get: (_target, key) => {
          // render's guard is an async generator: `yield` reads `then` of every chunk.
          if (key === 'then') return undefined;
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        },
      },
    );
    const hostile = [
      throwingTraps,
      { chunk: throwingTraps },
      { chunk: { bytes: throwingTraps } },
      {
        get chunk(): never {
          throw new Error('getter');
        },
      },
      { chunk: { bytes: encode(['an', 'array']) } },
      { chunk: { bytes: encode({ outputs: 'not a list', choices: [null, 7], generations: {} }) } },
      { chunk: { bytes: encode({ type: 'content_block_delta', delta: null }) } },
      { chunk: { bytes: encode({ ...INVOCATION_METRICS }) } },
    ];
    const read = await drain(guardBedrockStream(events(...hostile)));
    expect(read.error).toBeUndefined();
    expect(read.chunks).toHaveLength(hostile.length);
  });
});
