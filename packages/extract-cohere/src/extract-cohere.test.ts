import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { clientTimeoutFor, type Scenario } from '@faultline/test-fixtures';
import { adapterScenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cohereExtractor } from './extract-cohere.ts';
import { guardCohereStream } from './guard-cohere-stream.ts';
import { callApi, clientOf, SDKS, type Sdk, SECRET_KEY } from './test-support.ts';

/**
 * Runs the real SDK call the scenario describes and returns what it threw. A stream is drained
 * through the guard, as a user streams: cohere-ai yields a failed message-end as an event and ends
 * quietly without one, so only the guard turns those into a failure.
 */
async function runScenario(sdk: Sdk, baseUrl: string, scenario: Scenario): Promise<unknown> {
  const client = clientOf(sdk, baseUrl, clientTimeoutFor(scenario));
  try {
    const answer = await callApi(client, scenario.api, scenario.stream === true);
    if (scenario.stream === true) {
      for await (const _event of guardCohereStream(answer as AsyncIterable<unknown>, {
        idleTimeoutMs: 5000,
      })) {
        // drain
      }
    }
  } catch (error) {
    return error;
  }
  throw new Error(`scenario ${scenario.id} did not throw`);
}

const { baseUrlFor, scenario, thrownBy } = adapterScenarioSuite({
  provider: 'cohere',
  extractor: cohereExtractor,
  sdks: SDKS,
  run: runScenario,
  server: { protocol: 'http1' },
  minimum: 25,
  apis: ['chat', 'embed'],
  demoLabels: [
    'bad key',
    'context overflow',
    'DNS failure',
    'overload',
    'quota',
    'rate limit',
    'refused connection',
    'stream cut',
    'unknown model',
  ],
  // Every answered failure is read by this extractor.
  claims: ({ response }) => response.kind === 'http',
  secrets: ['SECRET-PROMPT', SECRET_KEY],
  untouched: 'trial-key-monthly-limit',
});

describe('cohereExtractor: what it reads and what it leaves alone', () => {
  it("reads a status error's body, status and headers (the request id is the body's id)", async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('per-minute-request-limit', sdk);
      expect((thrown as Error).name).toBe('TooManyRequestsError');
      expect(cohereExtractor.extract(thrown)).toEqual({
        provider: 'cohere',
        sdkErrorType: 'TooManyRequestsError',
        message: 'You are past the per minute request limit, please wait and try again later.',
        origin: 'http',
        statusCode: 429,
        requestId: 'c14c80c3-18eb-4519-9460-6c92edd8cfb4',
      });
    }
  });

  it('reads a status without a class of its own (402) as a bare CohereError with its status', async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('payment-method-required', sdk);
      expect((thrown as Error).name).toBe('CohereError');
      expect(cohereExtractor.extract(thrown)).toMatchObject({ statusCode: 402, sdkErrorType: 'CohereError' });
    }
  });

  it('describes an HTML page by its title and keeps a short text body as it is', async () => {
    for (const sdk of SDKS) {
      const html = cohereExtractor.extract(await thrownBy('gateway-html-502', sdk))!;
      expect(html.message).toBe('Error 502 (Server Error)!!1');
      expect(html.rawBody).toContain('<ins>That’s all we know.</ins>');
      expect(cohereExtractor.extract(await thrownBy('page-not-found-text', sdk))?.message).toBe(
        '404 page not found',
      );
    }
  });

  it('reads the SDK\'s own timeout (a CohereError "timeout" on Node) as a timeout before the answer', async () => {
    for (const sdk of SDKS) {
      const thrown = await thrownBy('never-answer', sdk);
      expect((thrown as Error).name).toBe('CohereError');
      expect((thrown as Error).message).toBe('"timeout"');
      expect(cohereExtractor.extract(thrown)).toMatchObject({
        origin: 'timeout',
        networkPhase: 'before_response',
      });
    }
  });

  it('reads no answer from the cause 8 keeps; 7 keeps only "fetch failed"', async () => {
    const [v8, v7] = SDKS;
    expect(cohereExtractor.extract(await thrownBy('connection-refused', v8))).toMatchObject({
      origin: 'network',
      networkCode: 'ECONNREFUSED',
    });
    const lost = await thrownBy('connection-refused', v7);
    expect((lost as Error).message).toBe('fetch failed');
    expect((lost as { cause?: unknown }).cause).toBeUndefined();
    expect(cohereExtractor.extract(lost)).toMatchObject({ origin: 'network', networkPhase: 'unknown' });
  });

  it('leaves a cut stream (a raw TypeError from the body) to the built-in transport extractor', async () => {
    const chosen = scenario('stream-cut');
    const client = clientOf(SDKS[0], baseUrlFor(chosen), 10_000);
    const stream = (await callApi(client, 'chat', true)) as AsyncIterable<unknown>;
    const thrown = await (async () => {
      try {
        for await (const _event of stream) {
          // drain
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(TypeError);
    expect(cohereExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for errors that are not from cohere-ai', () => {
    expect(cohereExtractor.extract(new Error('invalid api token'))).toBeUndefined();
    // An Error named like the SDK's class but without its prototype chain is not ours either.
    const lookalike = Object.assign(new Error('lookalike'), {
      name: 'TooManyRequestsError',
      statusCode: 429,
    });
    expect(cohereExtractor.extract(lookalike)).toBeUndefined();
  });

  it('is total on any status and body of a real SDK error', async () => {
    const template = (await thrownBy('invalid-api-token')) as object;
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.anything(), (statusCode, body) => {
        const value = Object.assign(Object.create(Object.getPrototypeOf(template)), {
          name: 'UnauthorizedError',
          message: 'x',
          statusCode,
          body,
        });
        const result: ProviderErrorMetadata | undefined = cohereExtractor.extract(value);
        return result !== undefined && result.statusCode === statusCode && classify(result) !== undefined;
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });
});
