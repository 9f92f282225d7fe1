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
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import fc from 'fast-check';
import { HTTPClient as HTTPClientV1, Mistral as MistralV1 } from 'mistralai-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mistralExtractor } from './extract-mistral.ts';
import { classifyThrown, timedClientOptions } from './test-support.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

interface MistralLike {
  chat: {
    complete(request: unknown, options?: unknown): Promise<unknown>;
    stream(request: unknown, options?: unknown): Promise<AsyncIterable<unknown>>;
  };
}

const SDKS: ReadonlyArray<{ alias: string; create(serverURL: string, timeoutMs: number): MistralLike }> = [
  {
    alias: '@mistralai/mistralai',
    create: (serverURL, timeoutMs) =>
      new Mistral(timedClientOptions(HTTPClient, serverURL, timeoutMs)) as never,
  },
  {
    alias: 'mistralai-v1',
    create: (serverURL, timeoutMs) =>
      new MistralV1(timedClientOptions(HTTPClientV1, serverURL, timeoutMs)) as never,
  },
];

const scenarios = loadScenarios('mistral');
const request = { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hello' }] };

/** Runs the real SDK call the scenario describes and returns what it threw. */
async function runScenario(client: MistralLike, scenario: Scenario): Promise<unknown> {
  try {
    if (scenario.stream === true) {
      const stream = await client.chat.stream(request);
      for await (const _event of stream) {
        // drain
      }
    } else {
      await client.chat.complete(request);
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
  provider: 'mistral',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 12,
  builtInsRead: true,
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown, scenario) =>
    stableReport(
      classifyError(thrown, {
        extractors: [mistralExtractor],
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
  check({ scenario, metadata, thrown }) {
    const own = mistralExtractor.extract(thrown);
    if (own !== undefined) {
      expect(own.provider).toBe('mistral');
      expect(metadata).toEqual(own);
    }
    // Every HTTP answer and every stream event from Mistral is read by this extractor.
    if (scenario.response.kind === 'http' || scenario.id.endsWith('error-event')) {
      expect(own, `mistralExtractor must claim ${scenario.id}`).toBeDefined();
    }
    expect(JSON.stringify(metadata)).not.toContain('SECRET-PROMPT');
    if (scenario.response.kind === 'http' && scenario.response.body.length > 0) {
      // Neither verbatim nor in its JSON-escaped form (an HTML page has CR/LF).
      expect(metadata.message).not.toContain(scenario.response.body.trim());
      expect(JSON.stringify(metadata)).not.toContain(JSON.stringify(scenario.response.body).slice(1, -1));
    }
  },
});

function scenario(name: string): Scenario {
  const found = scenarios.find((candidate) => candidate.id === `mistral/${name}`);
  if (found === undefined) throw new Error(`no scenario mistral/${name}`);
  return found;
}

async function thrownBy(name: string, alias = '@mistralai/mistralai'): Promise<unknown> {
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

const ALIASES = SDKS.map((sdk) => sdk.alias);

describe('mistralExtractor: what it reads and what it leaves alone', () => {
  it('parses the raw SDKError body: message, code, type, request id', async () => {
    for (const alias of ALIASES) {
      const thrown = await thrownBy('context-overflow', alias);
      expect((thrown as Error).message).toMatch(/^API error occurred: Status 400/);
      expect(mistralExtractor.extract(thrown)).toMatchObject({
        provider: 'mistral',
        origin: 'http',
        statusCode: 400,
        sdkErrorType: 'SDKError',
        providerCode: '3051',
        providerType: 'invalid_request_error',
        requestId: 'b1f0c0de0000example',
        message:
          'Prompt contains 40012 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
      });
    }
  });

  it('reads gateway bodies ({"message", "request_id"}) and HTML pages without keeping the page', async () => {
    expect(mistralExtractor.extract(await thrownBy('auth-unauthorized'))).toMatchObject({
      message: 'Unauthorized',
      requestId: '5c2a1f0e9b8d4e7fa1c3example0001',
    });
    const html = mistralExtractor.extract(await thrownBy('bad-gateway-html'))!;
    expect(html.message).toBe('502 Bad Gateway');
    expect(html.rawBody).toContain('<center>cloudflare</center>');
  });

  it('describes 422 validation issues by location, never by their input (which echoes the prompt)', async () => {
    for (const alias of ALIASES) {
      const fastapi = await thrownBy('validation-fastapi-detail', alias);
      expect((fastapi as Error).name).toBe('HTTPValidationError');
      expect(mistralExtractor.extract(fastapi)?.message).toBe(
        'Request validation failed: body.messages: Field required',
      );
      const wrapped = mistralExtractor.extract(await thrownBy('validation-wrapped-detail', alias))!;
      expect(wrapped.message).toBe(
        'Request validation failed: body.temperatur: Extra inputs are not permitted',
      );
      expect(JSON.stringify(wrapped)).not.toContain('SECRET-PROMPT');
    }
  });

  it('reads a 200 of the wrong shape as a malformed response', async () => {
    for (const alias of ALIASES) {
      const thrown = await thrownBy('malformed-200', alias);
      expect((thrown as Error).name).toBe('ResponseValidationError');
      expect(mistralExtractor.extract(thrown)).toMatchObject({
        origin: 'malformed_response',
        statusCode: 200,
      });
    }
  });

  it('claims the raw ZodError of a stream error event (not a local bug, not request validation)', async () => {
    for (const alias of ALIASES) {
      const thrown = await thrownBy('stream-error-event', alias);
      expect((thrown as Error).name).toBe('ZodError');
      expect(mistralExtractor.extract(thrown)).toMatchObject({
        origin: 'malformed_response',
        networkPhase: 'stream',
        sdkErrorType: 'ZodError',
      });
    }
  });

  it('tells connection refused, DNS, reset, timeout and abort apart', async () => {
    for (const alias of ALIASES) {
      expect(mistralExtractor.extract(await thrownBy('connection-refused', alias))).toMatchObject({
        sdkErrorType: 'ConnectionError',
        origin: 'network',
        networkPhase: 'connect',
        networkCode: 'ECONNREFUSED',
      });
      expect(mistralExtractor.extract(await thrownBy('dns-failure', alias))).toMatchObject({
        origin: 'network',
        networkPhase: 'dns',
        networkCode: 'ENOTFOUND',
      });
      expect(mistralExtractor.extract(await thrownBy('reset-after-request', alias))).toMatchObject({
        origin: 'network',
        networkCode: 'UND_ERR_SOCKET',
      });
      expect(mistralExtractor.extract(await thrownBy('timeout-no-answer', alias))).toMatchObject({
        sdkErrorType: 'RequestTimeoutError',
        origin: 'timeout',
      });
    }
    const controller = new AbortController();
    const never = scenario('timeout-no-answer');
    const client = new Mistral({ apiKey: 'test-key', serverURL: server.baseUrlFor(never) });
    const pending = client.chat
      .complete(request as never, { fetchOptions: { signal: controller.signal } })
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 50);
    const aborted = await pending;
    const metadata = mistralExtractor.extract(aborted, { signal: controller.signal });
    expect(metadata).toMatchObject({ origin: 'abort', sdkErrorType: 'RequestAbortedError' });
    expect(classify(metadata!).callerAborted).toBe(true);
  });

  it('reads SDKValidationError (the request was rejected before sending) without the request itself', async () => {
    for (const sdk of SDKS) {
      const client = sdk.create('http://127.0.0.1:9', 1000);
      const thrown = await client.chat
        .complete({ model: 'mistral-small-latest', messages: 'SECRET-PROMPT' })
        .catch((error: unknown) => error);
      expect((thrown as Error).name).toBe('SDKValidationError');
      const metadata = mistralExtractor.extract(thrown)!;
      expect(metadata).toMatchObject({
        origin: 'validation',
        message: 'Input validation failed at messages',
      });
      expect(JSON.stringify(metadata)).not.toContain('SECRET-PROMPT');
      expect(classify(metadata).reason).toBe('invalid_request');
    }
  });

  it('leaves the raw TypeError of a cut stream to the built-in transport extractor', async () => {
    const thrown = await thrownBy('stream-cut');
    expect(thrown).toBeInstanceOf(TypeError);
    expect(mistralExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for errors that are not from the Mistral SDK', async () => {
    let typeError: unknown;
    try {
      (undefined as unknown as { call(): void }).call();
    } catch (error) {
      typeError = error;
    }
    expect(typeError).toBeInstanceOf(TypeError);
    expect(mistralExtractor.extract(typeError)).toBeUndefined();
    expect(mistralExtractor.extract(new Error('API error occurred: Status 400'))).toBeUndefined();
    // A ZodError from the caller's own schema is not a Mistral stream event.
    const { z } = await import('zod');
    const own = z.object({ name: z.string() }).safeParse({});
    expect(own.success).toBe(false);
    expect(mistralExtractor.extract(own.error)).toBeUndefined();
    // An Error named like an SDK class, with foreign wording, is not ours either.
    const lookalike = new Error('database connection lost');
    lookalike.name = 'ConnectionError';
    expect(mistralExtractor.extract(lookalike)).toBeUndefined();
  });

  it('recognises an SDKError without class names by its shape', async () => {
    const bare = withoutClassNames(await thrownBy('server-error-500'));
    expect(mistralExtractor.extract(bare)).toMatchObject({ provider: 'mistral', statusCode: 500 });
  });

  it('never mutates the SDK error', async () => {
    const thrown = (await thrownBy('validation-fastapi-detail')) as Record<string, unknown>;
    const keys = Reflect.ownKeys(thrown);
    const snapshot = keys.map((key) => [key, thrown[key as string]]);
    mistralExtractor.extract(thrown);
    expect(Reflect.ownKeys(thrown)).toEqual(keys);
    expect(keys.map((key) => [key, thrown[key as string]])).toEqual(snapshot);
  });

  it('is total: arbitrary values, hostile proxies and cyclic causes never throw', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const hostile = new Proxy(
      {},
      { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap },
    );
    expect(() => mistralExtractor.extract(hostile)).not.toThrow();
    const cyclic = Object.assign(new Error('Unable to make request'), {
      name: 'ConnectionError',
    }) as Error & {
      cause?: unknown;
    };
    cyclic.cause = cyclic;
    expect(() => mistralExtractor.extract(cyclic)).not.toThrow();
    expect(mistralExtractor.extract(cyclic)?.origin).toBe('network');
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const result = mistralExtractor.extract(value);
        return result === undefined || result.provider === 'mistral';
      }),
      { seed: 20261121, numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.string(),
        fc.anything(),
        (statusCode, body, headers) => {
          // The fields and the `name` an SDKError keeps when its class chain is lost (a bundled copy).
          const value = Object.assign(Object.create(Error.prototype), {
            name: 'SDKError',
            statusCode,
            body,
            headers,
            contentType: '',
            rawResponse: undefined,
          });
          const result: ProviderErrorMetadata | undefined = mistralExtractor.extract(value);
          return (
            result !== undefined &&
            result.statusCode === statusCode &&
            classify(result) !== undefined &&
            (body.length < 8 || !JSON.stringify(result).includes(body))
          );
        },
      ),
      { seed: 20261121, numRuns: 500 },
    );
  });
});
