import { classify, FailureReason, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  callScenario,
  FAKE_CREDENTIALS,
  MODEL_ID,
  SDK_ALIASES,
} from '../test/bedrock-sdk-harness.ts';
import { BEDROCK_PROVIDER, bedrockExtractor } from './extract-bedrock.ts';
import { inspectBedrockResult } from './inspect-bedrock-result.ts';

const _scenarios = loadScenarios('bedrock');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'h2c' });
});
afterAll(async () => {
  await server?.close();
});

/** What the extractor (or, for a resolved call, the result inspector) makes of an outcome. */
function metadataFor(outcome: CallOutcome): ProviderErrorMetadata | undefined {
  if (outcome.kind === 'threw') return bedrockExtractor.extract(outcome.error, {});
  return inspectBedrockResult(outcome.result);
}

scenarioSuite({
  provider: BEDROCK_PROVIDER,
  sdks: SDK_ALIASES,
  aliasOf: (alias) => alias,
  server: { protocol: 'h2c' },
  minimum: 15,
  apis: ['converse', 'invoke-model', 'converse-stream'],
  demoLabels: [
    'rate limit',
    'quota',
    'overload',
    'context overflow',
    'bad key',
    'unknown model',
    'refused connection',
    'stream cut',
  ],
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown) =>
    stableReport(classifyError(thrown, { extractors: [bedrockExtractor] }).toErrorReport()),
  async read(_alias, scenario, on) {
    const outcome = await callScenario(scenario, on.baseUrlFor(scenario));
    return { metadata: metadataFor(outcome), ...(outcome.kind === 'threw' ? { thrown: outcome.error } : {}) };
  },
  check({ scenario, metadata }) {
    // Stream exceptions arrive after some output: their origin says so.
    if (scenario.response.kind === 'aws-event-stream') {
      expect(metadata.origin === 'stream_event' || metadata.origin === 'network').toBe(true);
    }
  },
});

const ev = (type: string, payload: unknown) => ({
  headers: { ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' },
  payload: JSON.stringify(payload),
});
const START = [
  ev('messageStart', { role: 'assistant' }),
  ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
];

/** An `aws-event-stream` response; `then` is the scenario format's field for how the stream ends. */
function eventStream(
  messages: Array<{ headers: Record<string, string>; payload: string }>,
  ending: 'end' | 'cut' | 'stall',
): Scenario['response'] {
  // biome-ignore lint/suspicious/noThenProperty: the scenario format (docs/contributing/contracts.md) names this field `then`.
  return { kind: 'aws-event-stream', messages, then: ending };
}

/** An ad hoc scenario (not a fixture file) for cases that are not provider responses to replay. */
function adHoc(api: string, response: Scenario['response']): Scenario {
  return {
    id: 'bedrock/ad-hoc',
    provider: 'bedrock',
    description: 'ad hoc',
    source: 'test',
    api,
    response,
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  };
}

async function thrown(scenario: Scenario, options: { abortSignal?: AbortSignal } = {}): Promise<unknown> {
  const outcome = await callScenario(scenario, server.baseUrlFor(scenario), options);
  expect(outcome.kind, JSON.stringify(outcome.events)).toBe('threw');
  return outcome.kind === 'threw' ? outcome.error : undefined;
}

describe('stream errors the SDK does not model', () => {
  it('an unknown :exception-type becomes a plain Error; the payload is read and kept only as rawBody', async () => {
    const error = await thrown(
      adHoc(
        'converse-stream',
        eventStream(
          [
            ...START,
            {
              headers: {
                ':message-type': 'exception',
                ':exception-type': 'modelOverloadedException',
                ':content-type': 'application/json',
              },
              payload: '{"message":"The model is overloaded right now.","secret":"sk-should-not-leak"}',
            },
          ],
          'end',
        ),
      ),
    );
    expect((error as Error).constructor).toBe(Error);
    const metadata = bedrockExtractor.extract(error);
    expect(metadata).toMatchObject({
      provider: 'bedrock',
      origin: 'stream_event',
      sdkErrorType: 'modelOverloadedException',
      providerCode: 'ModelOverloadedException',
      message: 'The model is overloaded right now.',
    });
    expect(metadata?.rawBody).toContain('sk-should-not-leak');
    expect(JSON.stringify(metadata)).not.toContain('sk-should-not-leak');
    expect(Object.keys(metadata ?? {})).not.toContain('rawBody');
    expect(classify(metadata!).reason).toBe('overloaded');
  });

  it('a :message-type error frame becomes a plain Error named after :error-code, claimed by its event-stream stack', async () => {
    const error = await thrown(
      adHoc(
        'converse-stream',
        eventStream(
          [
            ...START,
            {
              headers: {
                ':message-type': 'error',
                ':error-code': 'InternalFailure',
                ':error-message': 'An internal error occurred.',
              },
              payload: '',
            },
          ],
          'end',
        ),
      ),
    );
    expect((error as Error).name).toBe('InternalFailure');
    const metadata = bedrockExtractor.extract(error);
    expect(metadata).toMatchObject({ origin: 'stream_event', providerCode: 'InternalFailure' });
    expect(classify(metadata!).reason).toBe('server_error');
  });

  it('a stream that stalls, or is cut on a frame boundary, ends silently (what guardBedrockStream is for)', async () => {
    for (const then of ['stall', 'cut'] as const) {
      const scenario = adHoc('converse-stream', eventStream(START, then));
      const outcome = await callScenario(scenario, server.baseUrlFor(scenario));
      expect(outcome.kind, then).toBe('resolved');
      expect(outcome.events).toEqual(['messageStart', 'contentBlockDelta']);
    }
  });
});

describe('caller abort and SDK retries', () => {
  it("the caller's abort is classified as an abort (never retried), with the caller's signal as context", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await thrown(adHoc('converse', { kind: 'socket', behaviour: 'never-answer' }), {
      abortSignal: controller.signal,
    });
    expect((error as Error).name).toBe('AbortError');
    const metadata = bedrockExtractor.extract(error, { signal: controller.signal });
    expect(metadata).toMatchObject({ provider: 'bedrock', origin: 'abort' });
    const classification = classify(metadata!);
    expect(classification).toMatchObject({ callerAborted: true, retryable: false, reason: 'cancelled' });
  });

  it('an already-aborted signal sends nothing and is still the caller’s abort', async () => {
    const scenario = adHoc('converse', { kind: 'socket', behaviour: 'never-answer' });
    const error = await thrown(scenario, { abortSignal: AbortSignal.abort() });
    expect(server.requests(scenario)).toHaveLength(0);
    expect(bedrockExtractor.extract(error, { signal: AbortSignal.abort() })?.origin).toBe('abort');
  });

  it('keeps $metadata.attempts as evidence when the SDK retried on its own (maxAttempts 3)', async () => {
    const { BedrockRuntimeClient, InvokeModelCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const scenario = adHoc('invoke-model', {
      kind: 'http',
      status: 500,
      headers: { 'x-amzn-errortype': 'InternalServerException', 'content-type': 'application/json' },
      body: '{"message":"An internal server error occurred."}',
    });
    const client = new BedrockRuntimeClient({
      endpoint: server.baseUrlFor(scenario),
      region: 'us-east-1',
      credentials: FAKE_CREDENTIALS,
      maxAttempts: 3,
    });
    const error = await client.send(new InvokeModelCommand({ modelId: MODEL_ID, body: '{}' })).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    client.destroy();
    expect(server.requests(scenario)).toHaveLength(3);
    const metadata = bedrockExtractor.extract(error);
    expect(metadata).toMatchObject({
      sdkAttempts: 3,
      statusCode: 500,
      providerCode: 'InternalServerException',
    });
  });
});

describe('result inspection (blocked and truncated answers)', () => {
  it('an InvokeModel body with amazon-bedrock-guardrailAction INTERVENED is content_policy', async () => {
    const scenario = adHoc('invoke-model', {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        'amazon-bedrock-guardrailAction': 'INTERVENED',
        content: [{ type: 'text', text: 'Sorry, I cannot help with that.' }],
        stop_reason: 'end_turn',
      }),
    });
    const outcome = await callScenario(scenario, server.baseUrlFor(scenario));
    expect(outcome.kind).toBe('resolved');
    const metadata = outcome.kind === 'resolved' ? inspectBedrockResult(outcome.result) : undefined;
    expect(metadata).toMatchObject({
      origin: 'blocked_response',
      blockReason: 'guardrail_intervened',
      statusCode: 200,
    });
    expect(JSON.stringify(metadata)).not.toContain('Sorry, I cannot');
    expect(classify(metadata!).reason).toBe('content_policy');
  });

  it('a complete answer is left alone', async () => {
    for (const [api, body] of [
      [
        'converse',
        {
          output: { message: { role: 'assistant', content: [{ text: 'Hello!' }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
          metrics: { latencyMs: 10 },
        },
      ],
      ['invoke-model', { content: [{ type: 'text', text: 'Hello!' }], stop_reason: 'end_turn' }],
    ] as const) {
      const scenario = adHoc(api, {
        kind: 'http',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const outcome = await callScenario(scenario, server.baseUrlFor(scenario));
      expect(outcome.kind).toBe('resolved');
      expect(outcome.kind === 'resolved' ? inspectBedrockResult(outcome.result) : 'threw').toBeUndefined();
    }
  });
});

describe('what the extractor leaves alone', () => {
  it('returns undefined for errors that did not come from the Bedrock SDK', () => {
    const unrelated: unknown[] = [];
    try {
      (null as unknown as { x: number }).x;
    } catch (error) {
      unrelated.push(error);
    }
    try {
      JSON.parse('{');
    } catch (error) {
      unrelated.push(error);
    }
    try {
      v.parse(FailureReason, 'nope');
    } catch (error) {
      unrelated.push(error);
    }
    unrelated.push(
      new Error('boom'),
      new RangeError('out of range'),
      Object.assign(new Error('custom'), { name: 'MyAppError' }),
      Object.assign(new Error('{"message":"x"}'), { name: 'Error' }),
      AbortSignal.abort().reason,
      AbortSignal.timeout(0).reason,
      'a string',
      42,
      null,
      undefined,
      { status: 429, headers: {}, error: { message: 'a Stainless-shaped object' } },
    );
    for (const value of unrelated) expect(bedrockExtractor.extract(value), String(value)).toBeUndefined();
  });
});

describe('totality and safety', () => {
  const hostile = fc.oneof(
    fc.anything(),
    fc.record({
      $fault: fc.oneof(fc.constant('client'), fc.constant('server'), fc.anything()),
      $metadata: fc.oneof(
        fc.anything(),
        fc.record({ httpStatusCode: fc.anything(), requestId: fc.anything(), attempts: fc.anything() }),
      ),
      $response: fc.anything(),
      name: fc.anything(),
      message: fc.anything(),
      originalMessage: fc.anything(),
      stack: fc.anything(),
    }),
  );

  it('never throws and returns valid metadata or undefined for arbitrary values (fixed seed)', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const metadata = bedrockExtractor.extract(value, { signal: AbortSignal.abort() });
        if (metadata !== undefined) {
          expect(v.safeParse(ProviderErrorMetadata, metadata).success).toBe(true);
          expect(metadata.provider).toBe('bedrock');
        }
        expect(() => inspectBedrockResult(value)).not.toThrow();
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });

  it('survives Proxies whose traps throw, throwing getters and cyclic causes', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy(
      {},
      { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap },
    );
    const getter = Object.defineProperty({ $fault: 'server' }, '$metadata', { get: trap, enumerable: true });
    const cyclic = Object.assign(new Error('The pending stream has been canceled'), {
      $metadata: { attempts: 1 },
    }) as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    const proxyMetadata = {
      $fault: 'client',
      $metadata: proxy,
      $response: proxy,
      name: 'ThrottlingException',
    };
    for (const value of [proxy, getter, cyclic, proxyMetadata]) {
      expect(() => bedrockExtractor.extract(value)).not.toThrow();
      expect(() => inspectBedrockResult(value)).not.toThrow();
    }
    expect(bedrockExtractor.extract(proxyMetadata)).toMatchObject({ origin: 'stream_event' });
  });

  it('does not mutate the SDK error (frozen, with its hidden $response)', async () => {
    const scenario = loadScenarios('bedrock').find((item) => item.id === 'bedrock/converse-throttling')!;
    const error = (await thrown(scenario)) as Record<string, unknown>;
    const response = Object.getOwnPropertyDescriptor(error, '$response');
    expect(response?.enumerable).toBe(false);
    const headers = (response?.value as { headers: object } | undefined)?.headers ?? {};
    const headersBefore = JSON.stringify(headers);
    // Frozen: any write by the extractor would throw in strict mode and fail the extraction.
    Object.freeze(error);
    Object.freeze(error.$metadata);
    Object.freeze(headers);
    const before = Object.getOwnPropertyDescriptors(error);
    const beforeKeys = Reflect.ownKeys(error);
    const metadata = bedrockExtractor.extract(error);
    expect(metadata?.providerCode).toBe('ThrottlingException');
    expect(Reflect.ownKeys(error)).toEqual(beforeKeys);
    expect(Object.getOwnPropertyDescriptors(error)).toEqual(before);
    expect(JSON.stringify(headers)).toBe(headersBefore);
  });
});
