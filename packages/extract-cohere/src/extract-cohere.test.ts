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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cohereExtractor } from './extract-cohere.ts';
import { guardCohereStream } from './guard-cohere-stream.ts';
import { callApi, classifyThrown, clientOf, SDKS, type Sdk, SECRET_KEY } from './test-support.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

const scenarios = loadScenarios('cohere');

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

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

scenarioSuite({
  provider: 'cohere',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
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
  builtInsRead: true,
  reportOf: (thrown, scenario) =>
    stableReport(
      classifyError(thrown, {
        extractors: [cohereExtractor],
        streaming: scenario.stream === true,
      }).toErrorReport(),
    ),
  async read(sdk, scenario, on) {
    const thrown = await runScenario(sdk, on.baseUrlFor(scenario), scenario);
    return { ...classifyThrown(thrown, { streaming: scenario.stream === true }), thrown };
  },
  check({ scenario, metadata, thrown }) {
    const own = cohereExtractor.extract(thrown);
    if (own !== undefined) {
      expect(own.provider).toBe('cohere');
      expect(metadata).toEqual(own);
    }
    // Every answered failure is read by this extractor.
    if (scenario.response.kind === 'http') {
      expect(own, `cohereExtractor must claim ${scenario.id}`).toBeDefined();
    }
    const serialised = JSON.stringify(metadata);
    expect(serialised).not.toContain('SECRET-PROMPT');
    expect(serialised).not.toContain(SECRET_KEY);
    if (scenario.response.kind === 'http' && scenario.response.body.trim().startsWith('<')) {
      expect(metadata.message).not.toContain(scenario.response.body.trim());
    }
  },
});

function scenario(name: string): Scenario {
  const found = scenarios.find((candidate) => candidate.id === `cohere/${name}`);
  if (found === undefined) throw new Error(`no scenario cohere/${name}`);
  return found;
}

async function thrownBy(name: string, sdk: Sdk = SDKS[0]): Promise<unknown> {
  const chosen = scenario(name);
  return runScenario(sdk, server.baseUrlFor(chosen), chosen);
}

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
    const client = clientOf(SDKS[0], server.baseUrlFor(chosen), 10_000);
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

  it('never mutates the SDK error', async () => {
    const thrown = (await thrownBy('trial-key-monthly-limit')) as Record<string, unknown>;
    const keys = Reflect.ownKeys(thrown);
    const snapshot = keys.map((key) => [key, thrown[key as string]]);
    cohereExtractor.extract(thrown);
    expect(Reflect.ownKeys(thrown)).toEqual(keys);
    expect(keys.map((key) => [key, thrown[key as string]])).toEqual(snapshot);
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
