import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { clientTimeoutFor, type Scenario } from '@faultline/test-fixtures';
import { adapterScenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ollamaExtractor } from './extract-ollama.ts';
import { callApi, clientOf, SDKS, type Sdk } from './test-support.ts';

/** Runs the real SDK call the scenario describes (a stream drained to its end) and returns what it threw. */
async function runScenario(sdk: Sdk, baseUrl: string, scenario: Scenario): Promise<unknown> {
  const client = clientOf(sdk, baseUrl, { timeoutMs: clientTimeoutFor(scenario) });
  try {
    const answer = await callApi(client, scenario.api, scenario.stream === true);
    if (scenario.stream === true) {
      for await (const _part of answer as AsyncIterable<unknown>) {
        // drain
      }
    }
  } catch (error) {
    return error;
  }
  throw new Error(`scenario ${scenario.id} did not throw`);
}

const { thrownBy } = adapterScenarioSuite({
  provider: 'ollama',
  extractor: ollamaExtractor,
  sdks: SDKS,
  run: runScenario,
  server: { protocol: 'http1' },
  minimum: 20,
  apis: ['chat', 'embed', 'generate'],
  demoLabels: [
    'bad key',
    'context overflow',
    'DNS failure',
    'overload',
    'quota',
    'refused connection',
    'stream cut',
    'unknown model',
  ],
  // Every HTTP answer, every {"error"} line and every early end is read by this extractor.
  claims: ({ response }) =>
    response.kind === 'http' || (response.kind === 'ndjson' && response.then === 'end'),
  secrets: ['SECRET-PROMPT'],
  untouched: 'model-requires-more-memory',
});

describe('ollamaExtractor: what it reads and what it leaves alone', () => {
  it("reads ResponseError's words and status (ollama-js keeps the body's error, no headers)", async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('model-not-found', sdk);
      expect((thrown as Error).name).toBe('ResponseError');
      expect(ollamaExtractor.extract(thrown)).toEqual({
        provider: 'ollama',
        message: 'model "llama3.2" not found, try pulling it first',
        origin: 'http',
        statusCode: 404,
        sdkErrorType: 'ResponseError',
      });
    }
  });

  it('describes an HTML page by its title and keeps a short text body as it is', async () => {
    for (const sdk of SDKS) {
      const html = ollamaExtractor.extract(await thrownBy('bad-gateway-html', sdk))!;
      expect(html.message).toBe('502 Bad Gateway');
      expect(html.rawBody).toContain('<center>nginx</center>');
      expect(ollamaExtractor.extract(await thrownBy('page-not-found-text', sdk))?.message).toBe(
        '404 page not found',
      );
    }
  });

  it('reads an {"error"} line after the 200 as a stream event in the provider\'s words', async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('stream-error-line-runner', sdk);
      expect(Object.getPrototypeOf(thrown)).toBe(Error.prototype);
      expect(ollamaExtractor.extract(thrown)).toMatchObject({
        origin: 'stream_event',
        networkPhase: 'stream',
        sdkErrorType: 'Error',
        message: 'an error was encountered while running the model: unexpected EOF',
      });
    }
  });

  it('reads a stream that ends without its done part as incomplete', async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('stream-ends-without-done', sdk);
      expect((thrown as Error).message).toBe('Did not receive done or success response in stream.');
      expect(ollamaExtractor.extract(thrown)).toMatchObject({
        origin: 'malformed_response',
        sdkCondition: 'stream_incomplete',
      });
    }
  });

  it('leaves transport errors (refused, DNS, a cut stream) to the built-in transport extractor', async () => {
    for (const name of ['connection-refused', 'dns-failure', 'stream-cut', 'reset-after-request']) {
      const thrown = await thrownBy(name);
      expect(thrown).toBeInstanceOf(TypeError);
      expect(ollamaExtractor.extract(thrown)).toBeUndefined();
    }
  });

  it('returns undefined for errors that are not from ollama-js', () => {
    let typeError: unknown;
    try {
      (undefined as unknown as { call(): void }).call();
    } catch (error) {
      typeError = error;
    }
    expect(ollamaExtractor.extract(typeError)).toBeUndefined();
    // A plain Error thrown by the caller's own code (no ollama-js frame) is not a stream line.
    expect(ollamaExtractor.extract(new Error('model "llama3.2" not found'))).toBeUndefined();
    // An Error named like the SDK's class but without its fields is not ours either.
    const lookalike = Object.assign(new Error('lookalike'), { name: 'ResponseError' });
    expect(ollamaExtractor.extract(lookalike)).toBeUndefined();
  });

  it('is total: arbitrary values, hostile proxies and cyclic causes never throw', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const hostile = new Proxy(
      {},
      { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap },
    );
    expect(() => ollamaExtractor.extract(hostile)).not.toThrow();
    const cyclic = new Error('cyclic') as Error & { cause?: unknown };
    cyclic.cause = new Error('back', { cause: cyclic });
    expect(() => ollamaExtractor.extract(cyclic)).not.toThrow();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const result = ollamaExtractor.extract(value);
        return result === undefined || result.provider === 'ollama';
      }),
      { seed: 20261128, numRuns: 500 },
    );
    // Any `error` field and status: a classified answer, and an HTML page (a proxy's) never
    // serialised whole (its words are the provider's only when they are not a page).
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(
          fc.anything(),
          fc.string().map((text) => `<html><body>${text}</body></html>`),
        ),
        (statusCode, field) => {
          const value = Object.assign(new Error('x'), {
            name: 'ResponseError',
            error: field,
            status_code: statusCode,
          });
          const result: ProviderErrorMetadata | undefined = ollamaExtractor.extract(value);
          const page = typeof field === 'string' && field.startsWith('<html>');
          return (
            result !== undefined &&
            result.statusCode === statusCode &&
            classify(result) !== undefined &&
            (!page || !JSON.stringify(result).includes(field))
          );
        },
      ),
      { seed: 20261128, numRuns: 500 },
    );
  });
});
