import {
  classify,
  ProviderErrorMetadata as MetadataSchema,
  type ProviderErrorMetadata,
} from '@faultline/classify';
import { classifyError } from '@faultline/render';
import { isStainlessApiError } from '@faultline/stainless';
import {
  clientTimeoutFor,
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
import { type AnyClient, type ClientConstructor, clientFor, REQUEST, SDKS } from '../test/support.ts';
import { anthropicExtractor, detectAnthropicRefusal } from './extract-anthropic.ts';

type Outcome = { thrown: true; error: unknown } | { thrown: false; result: unknown };

/** Calls the real SDK against the scenario and returns what it threw (or answered). */
async function runScenario(
  server: LoopbackServer,
  scenario: Scenario,
  Client: ClientConstructor,
): Promise<Outcome> {
  const client = clientFor(Client, server.baseUrlFor(scenario), clientTimeoutFor(scenario));
  try {
    if (scenario.stream === true) {
      const stream = (await client.messages.create({ ...REQUEST, stream: true })) as AsyncIterable<unknown>;
      const events: unknown[] = [];
      for await (const event of stream) events.push(event);
      return { thrown: false, result: events };
    }
    return { thrown: false, result: await client.messages.create(REQUEST) };
  } catch (error) {
    return { thrown: true, error };
  }
}

/**
 * What a user's pipeline reads: the answer's refusal, or what anthropicExtractor reads of the
 * thrown value. A raw transport drop (undici `terminated`, node-fetch `Premature close`) carries
 * no SDK's mark and is left to render's built-in transport reader, which names no SDK.
 */
function metadataFor(outcome: Outcome, streaming: boolean): ProviderErrorMetadata | undefined {
  if (!outcome.thrown) return detectAnthropicRefusal(outcome.result);
  const own = anthropicExtractor.extract(outcome.error);
  if (own !== undefined) return own;
  expect(isStainlessApiError(outcome.error), `extractor ignored ${String(outcome.error)}`).toBe(false);
  const { metadata } = classifyError(outcome.error, { extractors: [anthropicExtractor], streaming });
  expect(metadata).toMatchObject({ provider: 'node', origin: 'network' });
  return metadata;
}

const scenarios = loadScenarios('anthropic');
let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

scenarioSuite({
  provider: 'anthropic',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 20,
  concurrent: false,
  demoLabels: [
    'rate limit',
    'overload',
    'context overflow',
    'bad key',
    'unknown model',
    'stream cut',
    'billing',
  ],
  // A raw transport drop names no SDK: render's built-in reader reads it (provider `node`).
  builtInsRead: true,
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown) =>
    stableReport(classifyError(thrown, { extractors: [anthropicExtractor] }).toErrorReport()),
  async read({ Client }, scenario, on) {
    const outcome = await runScenario(on, scenario, Client);
    return {
      metadata: metadataFor(outcome, scenario.stream === true),
      ...(outcome.thrown ? { thrown: outcome.error } : {}),
    };
  },
  check({ scenario, metadata }) {
    expect(['anthropic', 'node']).toContain(metadata.provider);
    // The raw body stays in memory only (non-enumerable), never in a serialised form.
    const rawBody = (metadata as { rawBody?: unknown }).rawBody;
    const response = scenario.response;
    if (response.kind === 'http' && response.status >= 400 && response.body !== '') {
      expect(typeof rawBody).toBe('string');
    }
    if (typeof rawBody === 'string') {
      const detail = JSON.stringify(metadata);
      expect(detail.includes(rawBody)).toBe(false);
      expect(detail.includes(JSON.stringify(rawBody).slice(1, -1))).toBe(false);
    }
  },
});

describe('helpers and cancellation, through the real SDK', () => {
  const overloadedStream = () =>
    scenarios.find((scenario) => scenario.id === 'anthropic/stream-overloaded-event')!;
  const neverAnswer = () => scenarios.find((scenario) => scenario.id === 'anthropic/never-answer')!;

  for (const { alias, Client } of SDKS) {
    it(`${alias}: messages.stream().finalMessage() rejection is an in-stream overload`, async () => {
      const client = clientFor(Client, server.baseUrlFor(overloadedStream()));
      const stream = client.messages.stream(REQUEST);
      // MessageStream also emits 'error'; finalMessage() rejects with the same error.
      (stream as unknown as { on?: (event: string, listener: () => void) => void }).on?.('error', () => {});
      const error = await stream.finalMessage().then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      expect(error).toBeDefined();
      const metadata = anthropicExtractor.extract(error);
      expect(metadata?.origin).toBe('stream_event');
      expect(metadata?.providerType).toBe('overloaded_error');
      expect(classify(metadata!).reason).toBe('overloaded');
    });

    it(`${alias}: the caller's own abort is an abort, never retried`, async () => {
      const controller = new AbortController();
      const client = clientFor(Client, server.baseUrlFor(neverAnswer()));
      setTimeout(() => controller.abort(), 50);
      const error = await client.messages.create(REQUEST, { signal: controller.signal }).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      const metadata = anthropicExtractor.extract(error, { signal: controller.signal });
      expect(metadata?.origin).toBe('abort');
      const classification = classify(metadata!);
      expect(classification.callerAborted).toBe(true);
      expect(classification.retryable).toBe(false);
    });

    it(`${alias}: a normal answer is not a refusal`, async () => {
      const answer = {
        response: {
          kind: 'http' as const,
          status: 200,
          body: JSON.stringify({
            id: 'msg_01FaultlineOk',
            type: 'message',
            role: 'assistant',
            model: 'claude-opus-4-7',
            content: [{ type: 'text', text: 'Hello!' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 12, output_tokens: 3 },
          }),
        },
      };
      const result = await clientFor(Client, server.baseUrlFor(answer)).messages.create(REQUEST);
      expect((result as { stop_reason?: unknown }).stop_reason).toBe('end_turn');
      expect(detectAnthropicRefusal(result)).toBeUndefined();
    });
  }
});

describe('a client without credentials', () => {
  for (const { alias, Client } of SDKS) {
    it(`${alias}: "Could not resolve authentication method" is auth`, async () => {
      const saved = { key: process.env.ANTHROPIC_API_KEY, token: process.env.ANTHROPIC_AUTH_TOKEN };
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_AUTH_TOKEN;
      // A scenario object of its own, so that only this test's requests are counted.
      const scenario = { response: scenarios[0]!.response };
      try {
        const client = new (
          Client as unknown as new (
            options: object,
          ) => { messages: AnyClient['messages'] }
        )({
          baseURL: server.baseUrlFor(scenario),
          maxRetries: 0,
        });
        const error = await client.messages.create(REQUEST).then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
        const metadata = anthropicExtractor.extract(error);
        expect(metadata?.origin).toBe('validation');
        const classification = classify(metadata!);
        expect(classification.reason).toBe('auth');
        expect(classification.userAction.kind).toBe('check_credentials');
        expect(server.requests(scenario)).toHaveLength(0);
      } finally {
        if (saved.key !== undefined) process.env.ANTHROPIC_API_KEY = saved.key;
        if (saved.token !== undefined) process.env.ANTHROPIC_AUTH_TOKEN = saved.token;
      }
    });
  }
});

/** A real error thrown by the real SDK for one scenario. */
async function realError(id: string, Client: ClientConstructor = SDKS[0]!.Client) {
  const scenario = scenarios.find((candidate) => candidate.id === id)!;
  const outcome = await runScenario(server, scenario, Client);
  if (!outcome.thrown) throw new Error(`${id} did not throw`);
  return outcome.error;
}

describe('leaves other errors alone', () => {
  it('returns undefined for errors of the caller’s own code and for non-errors', () => {
    const values: unknown[] = [];
    try {
      (null as unknown as { x: number }).x;
    } catch (error) {
      values.push(error);
    }
    try {
      JSON.parse('{oops');
    } catch (error) {
      values.push(error);
    }
    values.push(new Error('boom'), new RangeError('out of range'), 'a string', null, undefined, 42, {}, []);
    values.push(
      Object.assign(new Error('Stainless-shaped but not Anthropic'), { status: 500, headers: {}, error: {} }),
    );
    for (const value of values) expect(anthropicExtractor.extract(value), String(value)).toBeUndefined();
  });

  it('claims a real SDK error and reads it without mutating it', async () => {
    for (const { Client } of SDKS) {
      const error = (await realError('anthropic/rate-limit', Client)) as Record<string, unknown>;
      // Frozen: any write by the extractor would throw in strict mode and yield `undefined`.
      Object.freeze(error);
      Object.freeze(error.error);
      const before = Object.getOwnPropertyDescriptors(error);
      const bodyBefore = JSON.stringify(error.error);
      const metadata = anthropicExtractor.extract(error);
      expect(classify(metadata!).reason).toBe('rate_limit');
      expect(Object.getOwnPropertyDescriptors(error)).toEqual(before);
      expect(JSON.stringify(error.error)).toBe(bodyBefore);
    }
  });
});

describe('total on hostile input', () => {
  const throwingProxy = (target: object = {}) =>
    new Proxy(target, {
      get() {
        throw new Error('get trap');
      },
      has() {
        throw new Error('has trap');
      },
      ownKeys() {
        throw new Error('ownKeys trap');
      },
      getPrototypeOf() {
        throw new Error('getPrototypeOf trap');
      },
      getOwnPropertyDescriptor() {
        throw new Error('descriptor trap');
      },
    });

  it('never throws on Proxies, cyclic causes and huge bodies', async () => {
    const sdkError = await realError('anthropic/overloaded');
    const cyclic = new Error('cyclic') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    const cyclicSdk = Object.create(sdkError as object) as { cause?: unknown };
    Object.defineProperty(cyclicSdk, 'cause', { value: cyclicSdk });
    const hugeMessage = 'x'.repeat(5 * 1024 * 1024);
    const huge = Object.create(sdkError as object);
    Object.defineProperty(huge, 'error', {
      value: { type: 'error', error: { type: 'api_error', message: hugeMessage } },
    });
    const hostile: unknown[] = [
      throwingProxy(),
      throwingProxy(sdkError as object),
      new Proxy(sdkError as object, {
        get(target, key) {
          if (key === 'headers' || key === 'error') throw new Error('trap');
          return Reflect.get(target, key);
        },
      }),
      cyclic,
      cyclicSdk,
      huge,
      Object.create(null),
    ];
    for (const value of hostile) {
      const metadata = anthropicExtractor.extract(value);
      if (metadata !== undefined) {
        expect(v.safeParse(MetadataSchema, metadata).success).toBe(true);
        expect(metadata.provider).toBe('anthropic');
        expect(() => classify(metadata)).not.toThrow();
      }
    }
    const hugeMetadata = anthropicExtractor.extract(huge);
    expect(hugeMetadata?.statusCode).toBe(529);
    expect(JSON.stringify(hugeMetadata).length).toBeLessThan(64 * 1024);
  });

  it('never throws on arbitrary values (fast-check)', () => {
    const stainlessLike = fc.record({
      status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.anything()),
      headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
      error: fc.oneof(
        fc.record({
          type: fc.constant('error'),
          error: fc.record({ type: fc.string(), message: fc.anything() }, { requiredKeys: [] }),
          request_id: fc.anything(),
        }),
        fc.anything(),
      ),
      message: fc.anything(),
      cause: fc.anything(),
      apiMessage: fc.anything(),
    });
    fc.assert(
      fc.property(fc.oneof(fc.anything(), stainlessLike), (value) => {
        const metadata = anthropicExtractor.extract(value);
        if (metadata === undefined) return true;
        return v.safeParse(MetadataSchema, metadata).success && metadata.provider === 'anthropic';
      }),
      { seed: 20261121, numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        detectAnthropicRefusal(value);
        return true;
      }),
      { seed: 20261121, numRuns: 300 },
    );
  });
});
