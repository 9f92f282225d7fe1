import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import {
  clientTimeoutFor,
  loadScenarios,
  type Scenario,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import Groq from 'groq-sdk';
import GroqV0 from 'groq-sdk-v0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groqErrorChunkMetadata, groqExtractor } from './extract-groq.ts';
import { classifyThrown, type GroqLike, SDKS } from './test-support.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

const scenarios = loadScenarios('groq');

/** Runs the real SDK call the scenario describes and returns what it threw. */
async function runScenario(client: GroqLike, scenario: Scenario): Promise<unknown> {
  try {
    if (scenario.api === 'audio.transcriptions') {
      await client.audio.transcriptions.create({
        file: new File(['not audio'], 'notes.txt', { type: 'text/plain' }),
        model: 'whisper-large-v3',
      });
    } else if (scenario.stream === true) {
      const stream = (await client.chat.completions.create({
        model: 'llama-3.3-70b-versatile',
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
      })) as AsyncIterable<unknown>;
      for await (const _chunk of stream) {
        // drain
      }
    } else {
      await client.chat.completions.create({
        model: 'llama-3.3-70b-versatile',
        messages: [{ role: 'user', content: 'hello' }],
      });
    }
  } catch (error) {
    return error;
  }
  throw new Error(`scenario ${scenario.id} did not throw`);
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

scenarioSuite({
  provider: 'groq',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 12,
  builtInsRead: true,
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown, scenario) =>
    stableReport(
      classifyError(thrown, {
        extractors: [groqExtractor],
        streaming: scenario.stream === true,
      }).toErrorReport(),
    ),
  async read(sdk, scenario, on) {
    const thrown = await runScenario(
      sdk.create(on.baseUrlFor(scenario), clientTimeoutFor(scenario)),
      scenario,
    );
    return { ...classifyThrown(thrown, { streaming: scenario.stream === true }), thrown };
  },
  check({ scenario, expected, metadata, thrown }) {
    const own = groqExtractor.extract(thrown);
    if (own !== undefined) {
      expect(own.provider).toBe('groq');
      expect(metadata).toEqual(own);
    }
    // Every answer from Groq's API (HTTP or stream event) is read by this extractor.
    if (
      scenario.response.kind === 'http' ||
      scenario.id.includes('error-event') ||
      scenario.id.includes('tool-use')
    ) {
      expect(own, `groqExtractor must claim ${scenario.id}`).toBeDefined();
    }
    if (scenario.stream === true && own !== undefined && expected.statusCode === undefined) {
      expect(own.origin).toBe('stream_event');
    }
    expect(JSON.stringify(metadata)).not.toContain('SECRET-MODEL-OUTPUT');
    if (scenario.response.kind === 'http' && scenario.response.body.length > 0) {
      // Neither verbatim nor in its JSON-escaped form (an HTML page has CR/LF).
      expect(metadata.message).not.toContain(scenario.response.body.trim());
      expect(JSON.stringify(metadata)).not.toContain(JSON.stringify(scenario.response.body).slice(1, -1));
    }
  },
});

function scenario(name: string): Scenario {
  const found = scenarios.find((candidate) => candidate.id === `groq/${name}`);
  if (found === undefined) throw new Error(`no scenario groq/${name}`);
  return found;
}

async function thrownBy(name: string, alias = 'groq-sdk'): Promise<unknown> {
  const sdk = SDKS.find((candidate) => candidate.alias === alias)!;
  const chosen = scenario(name);
  return runScenario(sdk.create(server.baseUrlFor(chosen), clientTimeoutFor(chosen)), chosen);
}

/** A plain copy of a real SDK error with its class chain removed (what a minifier could leave). */
function withoutClassNames(error: unknown): Error {
  const copy = Object.create(Error.prototype) as Error;
  for (const key of Object.getOwnPropertyNames(error)) {
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(error, key)!);
  }
  return copy;
}

describe('groqExtractor: what it reads and what it leaves alone', () => {
  it('reads the request id, the SDK class and the Groq error fields', async () => {
    const metadata = groqExtractor.extract(await thrownBy('rate-limit-tokens-per-minute'));
    expect(metadata).toMatchObject({
      provider: 'groq',
      origin: 'http',
      statusCode: 429,
      requestId: 'req_01jgroqexample0000000000',
      sdkErrorType: 'RateLimitError',
      providerType: 'tokens',
      providerCode: 'rate_limit_exceeded',
      // retry-after: 8 is the spent token window's reset (7.16s) rounded up: the reset is the wait.
      retryAfterSeconds: 7.16,
      rateLimit: { tokens: { limit: 12_000, remaining: 0, resetSeconds: 7.16 } },
    });
    expect(metadata?.message).toMatch(/^Rate limit reached for model/);
  });

  it('keeps a non-JSON body (HTML 502) out of the message, in rawBody only', async () => {
    for (const alias of ['groq-sdk', 'groq-sdk-v0']) {
      const thrown = await thrownBy('bad-gateway-html', alias);
      expect((thrown as Error).message).toMatch(/^502 <html>/);
      const metadata = groqExtractor.extract(thrown)!;
      expect(metadata.message).toBe('502 Bad Gateway');
      expect(metadata.rawBody).toContain('<center>cloudflare</center>');
    }
  });

  it('reads a stream error event at the inner depth (status undefined)', async () => {
    for (const alias of ['groq-sdk', 'groq-sdk-v0']) {
      const metadata = groqExtractor.extract(await thrownBy('stream-tool-use-failed', alias));
      expect(metadata).toMatchObject({ origin: 'stream_event', providerCode: 'tool_use_failed' });
      expect(metadata?.statusCode).toBeUndefined();
    }
  });

  it('records that failed_generation was present, never its text (model output)', async () => {
    const thrown = await thrownBy('tool-use-failed');
    const metadata = groqExtractor.extract(thrown)!;
    expect(metadata.message).toContain('failed_generation present');
    expect(JSON.stringify(metadata)).not.toContain('SECRET-MODEL-OUTPUT');
    // The raw body stays reachable in memory only.
    expect(metadata.rawBody).toContain('SECRET-MODEL-OUTPUT');
    expect(Object.keys(metadata)).not.toContain('rawBody');
  });

  it('tells connection refused, DNS, reset, timeout and abort apart', async () => {
    for (const alias of ['groq-sdk', 'groq-sdk-v0']) {
      expect(groqExtractor.extract(await thrownBy('connection-refused', alias))).toMatchObject({
        origin: 'network',
        networkPhase: 'connect',
        networkCode: 'ECONNREFUSED',
      });
      expect(groqExtractor.extract(await thrownBy('dns-failure', alias))).toMatchObject({
        origin: 'network',
        networkPhase: 'dns',
        networkCode: 'ENOTFOUND',
      });
      expect(groqExtractor.extract(await thrownBy('timeout-no-answer', alias))).toMatchObject({
        origin: 'timeout',
      });
    }
    const controller = new AbortController();
    const never = scenario('timeout-no-answer');
    const client = new Groq({ apiKey: 'gsk_test_key', baseURL: server.baseUrlFor(never), maxRetries: 0 });
    const pending = client.chat.completions
      .create(
        { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'hello' }] },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 50);
    const aborted = await pending;
    const metadata = groqExtractor.extract(aborted, { signal: controller.signal });
    expect(metadata?.origin).toBe('abort');
    expect(classify(metadata!).callerAborted).toBe(true);
  });

  it('reads the missing-key GroqError the client constructor throws as auth', () => {
    const saved = process.env.GROQ_API_KEY;
    delete process.env.GROQ_API_KEY;
    try {
      for (const Client of [Groq, GroqV0]) {
        let thrown: unknown;
        try {
          new (Client as typeof Groq)({ maxRetries: 0 });
        } catch (error) {
          thrown = error;
        }
        const metadata = groqExtractor.extract(thrown);
        expect(metadata).toMatchObject({ provider: 'groq', origin: 'validation', sdkErrorType: 'GroqError' });
        expect(classify(metadata!).reason).toBe('auth');
      }
    } finally {
      if (saved !== undefined) process.env.GROQ_API_KEY = saved;
    }
  });

  it('leaves the raw TypeError of a cut stream to the built-in transport extractor', async () => {
    const thrown = await thrownBy('stream-cut');
    expect(thrown).toBeInstanceOf(TypeError);
    expect(groqExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for errors that are not from groq-sdk', () => {
    let typeError: unknown;
    try {
      (undefined as unknown as { call(): void }).call();
    } catch (error) {
      typeError = error;
    }
    expect(typeError).toBeInstanceOf(TypeError);
    expect(groqExtractor.extract(typeError)).toBeUndefined();
    expect(groqExtractor.extract(new Error('429 {"error":{"message":"x"}}'))).toBeUndefined();
    expect(
      groqExtractor.extract(new DOMException('This operation was aborted', 'AbortError')),
    ).toBeUndefined();
  });

  it('recognises a Groq error without class names by the x-groq-region header, and only then', async () => {
    const real = await thrownBy('server-error-500');
    const bare = withoutClassNames(real);
    expect(groqExtractor.extract(bare)).toMatchObject({ provider: 'groq', statusCode: 500 });
    // The same Stainless shape without Groq's header could be openai or anthropic: not ours.
    const foreign = withoutClassNames(real);
    Object.defineProperty(foreign, 'headers', { value: new Headers({ 'x-request-id': 'req_1' }) });
    expect(groqExtractor.extract(foreign)).toBeUndefined();
  });

  it('never mutates the SDK error', async () => {
    const thrown = (await thrownBy('tool-use-failed')) as Record<string, unknown>;
    const before = JSON.stringify({ ...thrown, message: (thrown as unknown as Error).message });
    const keys = Reflect.ownKeys(thrown);
    groqExtractor.extract(thrown);
    expect(Reflect.ownKeys(thrown)).toEqual(keys);
    expect(JSON.stringify({ ...thrown, message: (thrown as unknown as Error).message })).toBe(before);
  });

  it('is total: arbitrary values, hostile proxies and cyclic causes never throw', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    expect(() => groqExtractor.extract(hostile)).not.toThrow();
    const cyclic: Record<string, unknown> = { status: undefined, headers: undefined, error: undefined };
    cyclic.cause = cyclic;
    Object.setPrototypeOf(cyclic, Error.prototype);
    expect(() => groqExtractor.extract(cyclic)).not.toThrow();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const result = groqExtractor.extract(value);
        return result === undefined || result.provider === 'groq';
      }),
      { seed: 20261121, numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.record({
          status: fc.anything(),
          headers: fc.anything(),
          error: fc.anything(),
          message: fc.anything(),
        }),
        (fields) => {
          const value = Object.assign(Object.create(Error.prototype), fields, {
            headers: { 'x-groq-region': 'us-east-1' },
          });
          const result: ProviderErrorMetadata | undefined = groqExtractor.extract(value);
          return result !== undefined && typeof result.message === 'string' && classify(result) !== undefined;
        },
      ),
      { seed: 20261121, numRuns: 500 },
    );
  });
});

describe('groqErrorChunkMetadata: an error object groq-sdk yielded as a chunk', () => {
  const errorObject = { message: 'Service Unavailable', type: 'internal_server_error' };

  it('reads an error object like the extractor reads a stream error event', async () => {
    const thrown = await thrownBy('stream-error-event');
    const fromEvent = groqExtractor.extract(thrown)!;
    const fromChunk = groqErrorChunkMetadata((thrown as { error: unknown }).error)!;
    expect(fromChunk).toEqual({ ...fromEvent, sdkErrorType: undefined });
    expect(classify(fromChunk)).toEqual(classify(fromEvent));
  });

  it('records that failed_generation was present, never its text', () => {
    const metadata = groqErrorChunkMetadata({
      message: 'Failed to call a function.',
      type: 'invalid_request_error',
      code: 'tool_use_failed',
      failed_generation: '<function=lookup{"q": "SECRET-MODEL-OUTPUT"}',
    })!;
    expect(metadata).toMatchObject({ providerCode: 'tool_use_failed', origin: 'stream_event' });
    expect(metadata.message).toContain('failed_generation present');
    expect(JSON.stringify(metadata)).not.toContain('SECRET-MODEL-OUTPUT');
  });

  it('leaves chat chunks, and objects that are not error objects, alone', () => {
    expect(groqErrorChunkMetadata({ ...errorObject, choices: [] })).toBeUndefined();
    expect(groqErrorChunkMetadata({ ...errorObject, object: 'chat.completion.chunk' })).toBeUndefined();
    expect(groqErrorChunkMetadata({ message: 'hello' })).toBeUndefined();
    expect(groqErrorChunkMetadata([errorObject])).toBeUndefined();
    expect(groqErrorChunkMetadata('Service Unavailable')).toBeUndefined();
    fc.assert(
      fc.property(
        fc.anything(),
        fc.anything(),
        (choices, extra) => groqErrorChunkMetadata({ ...errorObject, extra, choices }) === undefined,
      ),
      { seed: 20261121, numRuns: 200 },
    );
  });

  it('is total: arbitrary values and hostile proxies never throw', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(groqErrorChunkMetadata(proxy)).toBeUndefined();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    expect(() => groqErrorChunkMetadata(hostile)).not.toThrow();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const result = groqErrorChunkMetadata(value);
        return result === undefined || (result.provider === 'groq' && classify(result) !== undefined);
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });
});
