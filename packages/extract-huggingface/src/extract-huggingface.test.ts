import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { clientTimeoutFor, type Scenario } from '@faultline/test-fixtures';
import { adapterScenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { huggingfaceExtractor } from './extract-huggingface.ts';
import { readHttpFailure } from './index.ts';
import { callApi, SDKS, type Sdk, TOKEN } from './test-support.ts';

/** Runs the real SDK call the scenario describes and returns what it threw. */
async function runScenario(sdk: Sdk, baseUrl: string, scenario: Scenario): Promise<unknown> {
  try {
    await callApi(sdk, baseUrl, scenario.api, scenario.stream === true, {
      timeoutMs: clientTimeoutFor(scenario),
    });
  } catch (error) {
    return error;
  }
  throw new Error(`scenario ${scenario.id} did not throw`);
}

const { baseUrlFor, scenario, thrownBy } = adapterScenarioSuite({
  provider: 'huggingface',
  extractor: huggingfaceExtractor,
  sdks: SDKS,
  run: runScenario,
  server: { protocol: 'http1' },
  minimum: 18,
  apis: ['chatCompletion', 'featureExtraction', 'textGeneration'],
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
  claims: ({ response }) => response.kind === 'http' || (response.kind === 'sse' && response.then === 'end'),
  secrets: ['SECRET-PROMPT', TOKEN],
  untouched: 'monthly-included-credits-402',
});

describe('huggingfaceExtractor: what it reads and what it leaves alone', () => {
  it("reads ProviderApiError's kept answer (status, request id, the body's words), never its request", async () => {
    const thrown = (await thrownBy('model-currently-loading-503')) as Error & { httpRequest: unknown };
    expect(thrown.name).toBe('ProviderApiError');
    expect(JSON.stringify(thrown.httpRequest)).toContain('SECRET-PROMPT');
    expect(huggingfaceExtractor.extract(thrown)).toEqual({
      provider: 'huggingface',
      message: 'Model mistralai/Mistral-7B-Instruct-v0.3 is currently loading',
      origin: 'http',
      statusCode: 503,
      sdkErrorType: 'ProviderApiError',
      retryAfterSeconds: 177,
    });
  });

  it("reads the router's OpenAI-style body the SDK kept, not its generic message", async () => {
    const thrown = (await thrownBy('router-model-not-supported-400')) as Error;
    // chatCompletion's own message says nothing of the cause; the body the SDK kept does.
    expect(thrown.message).toBe(
      'Failed to perform inference: an HTTP error occurred when requesting the provider.',
    );
    expect(huggingfaceExtractor.extract(thrown)).toMatchObject({
      message:
        "The requested model 'moonshotai/Kimi-K2-Instruct' is not supported by any provider you have enabled.",
      providerType: 'invalid_request_error',
      statusCode: 400,
    });
  });

  it("keeps a short text body; an HTML page (which the SDK drops) leaves the SDK's words without its prefix", async () => {
    const html = huggingfaceExtractor.extract(await thrownBy('bad-gateway-html-502'))!;
    expect(html).toMatchObject({
      statusCode: 502,
      message: 'an HTTP error occurred when requesting the provider',
    });
    expect(
      readHttpFailure({ status: 502, body: '<html><head><title>502 Bad Gateway</title></head></html>' })
        .message,
    ).toBe('502 Bad Gateway');
    expect(huggingfaceExtractor.extract(await thrownBy('endpoint-path-not-found-404'))?.message).toBe(
      'Not Found',
    );
  });

  it('reads an {"error"} event after the 200 as a stream event in the provider\'s words', async () => {
    const thrown = await thrownBy('stream-error-event-generation');
    expect(huggingfaceExtractor.extract(thrown)).toMatchObject({
      origin: 'stream_event',
      networkPhase: 'stream',
      providerType: 'generation',
      message: expect.stringContaining('CUDA out of memory'),
    });
    expect((huggingfaceExtractor.extract(thrown) as ProviderErrorMetadata).statusCode).toBeUndefined();
  });

  it('leaves transport errors (refused, DNS, a cut stream) to the built-in transport extractor', async () => {
    for (const name of ['connection-refused', 'dns-failure', 'stream-cut', 'reset-after-request']) {
      const thrown = await thrownBy(name);
      expect(thrown).toBeInstanceOf(TypeError);
      expect(huggingfaceExtractor.extract(thrown)).toBeUndefined();
    }
  });

  it('reads the SDK\'s "no Inference Provider available" as an unknown model, and no other InputError', async () => {
    const client = new SDKS[0].InferenceClient(TOKEN);
    const thrown = await client
      .chatCompletion({
        provider: 'together',
        endpointUrl: baseUrlFor(scenario('invalid-token-401')),
        model: 'x',
        messages: [],
      })
      .catch((error: unknown) => error);
    expect((thrown as Error).name).toBe('InputError');
    expect(huggingfaceExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for errors that are not from @huggingface/inference', () => {
    expect(huggingfaceExtractor.extract(new Error('Model x does not exist'))).toBeUndefined();
    const lookalike = Object.assign(new Error('lookalike'), {
      name: 'ProviderApiError',
      httpResponse: { status: 401, body: { error: 'x' } },
    });
    expect(huggingfaceExtractor.extract(lookalike)).toBeUndefined();
  });

  it('is total on any httpResponse a ProviderApiError could carry', async () => {
    const real = (await thrownBy('invalid-token-401')) as object;
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.anything(), (status, body) => {
        const value = Object.create(Object.getPrototypeOf(real)) as Record<string, unknown>;
        Object.assign(value, {
          name: 'ProviderApiError',
          message: 'x',
          httpResponse: { status, body, requestId: 'r' },
        });
        const result = huggingfaceExtractor.extract(value);
        return result !== undefined && classify(result) !== undefined;
      }),
      { seed: 20261128, numRuns: 300 },
    );
  });
});
