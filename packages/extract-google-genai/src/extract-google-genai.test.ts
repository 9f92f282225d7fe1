import { type Classification, classify, type ProviderErrorMetadata } from '@faultline/classify';
import { classifyError, FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenarios,
  type ResolvedExpectation,
  type Scenario,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callScenario,
  clientFor,
  isApiErrorScenario,
  isBlockedAnswerScenario,
  isSwallowedErrorScenario,
  MODEL,
  SDKS,
} from '../test/genai-harness.ts';
import {
  detectGeminiBlockedAnswer,
  GOOGLE_GENAI_PROVIDER,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
} from './extract-google-genai.ts';
import { inspectGeminiResult } from './guard-google-genai.ts';
import { withClassifiedErrors } from './index.ts';

const scenarios = loadScenarios('google-genai');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

function _assertExpected(
  metadata: ProviderErrorMetadata,
  classification: Classification,
  expected: ResolvedExpectation,
) {
  expect(metadata.provider).toBe(GOOGLE_GENAI_PROVIDER);
  expect({
    category: classification.category,
    reason: classification.reason,
    retryable: classification.retryable,
    userAction: classification.userAction.kind,
    httpStatus: classification.httpStatus,
  }).toEqual({
    category: expected.category,
    reason: expected.reason,
    retryable: expected.retryable,
    userAction: expected.userAction,
    httpStatus: expected.httpStatus,
  });
  if (expected.retryAfterSeconds !== undefined)
    expect(classification.retryAfterSeconds).toBe(expected.retryAfterSeconds);
  if (expected.statusCode !== undefined) expect(metadata.statusCode).toBe(expected.statusCode);
  if (expected.providerCode !== undefined) expect(metadata.providerCode).toBe(expected.providerCode);
}

function blockedMetadataOf(result: unknown, chunks: unknown[]): ProviderErrorMetadata | undefined {
  if (result !== undefined) return detectGeminiBlockedAnswer(result);
  for (const chunk of chunks) {
    const metadata = detectGeminiBlockedAnswer(chunk);
    if (metadata !== undefined) return metadata;
  }
  return undefined;
}

scenarioSuite({
  provider: GOOGLE_GENAI_PROVIDER,
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  minimum: 20,
  concurrent: false,
  apis: ['gemini', 'vertex'],
  demoLabels: [
    'rate limit',
    'quota',
    'overload',
    'context overflow',
    'content block',
    'bad key',
    'unknown model',
    'refused connection',
    'stream cut',
  ],
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown, scenario) =>
    stableReport(
      classifyError(thrown, {
        extractors: [googleGenaiExtractor, googleGenaiTransportExtractor],
        streaming: scenario.stream === true,
      }).toErrorReport(),
    ),
  async read(sdk, scenario, on) {
    const expected = expectedFor(scenario, sdk.alias);
    const outcome = await callScenario(sdk, scenario, on);
    let metadata: ProviderErrorMetadata | undefined;
    if (isBlockedAnswerScenario(scenario)) {
      expect(outcome.didThrow, String(outcome.thrown)).toBe(false);
      metadata = blockedMetadataOf(outcome.result, outcome.chunks);
      expect(metadata?.origin).toBe('blocked_response');
    } else if (isSwallowedErrorScenario(scenario)) {
      // The SDK ends the stream normally; only the empty chunk it leaves shows the error.
      expect(outcome.didThrow, String(outcome.thrown)).toBe(false);
      metadata = inspectGeminiResult(outcome.chunks);
      expect(metadata?.origin).toBe('malformed_response');
    } else {
      expect(outcome.didThrow).toBe(true);
      const thrown = outcome.thrown;
      const claimed = googleGenaiExtractor.extract(thrown);
      if (isApiErrorScenario(scenario)) {
        // The SDK's ApiError is claimed by the main extractor, with the raw body in memory only.
        expect(claimed).toBeDefined();
        expect(claimed?.sdkErrorType).toBe('ApiError');
        expect(Object.keys(claimed ?? {})).not.toContain('rawBody');
        const response = scenario.response;
        if (response.kind === 'http' && response.body !== '') {
          expect(claimed?.rawBody).toBeTypeOf('string');
          expect(JSON.stringify(claimed)).not.toContain(JSON.stringify(claimed?.rawBody));
        }
        if (response.kind === 'sse') expect(claimed?.origin).toBe('stream_event');
        metadata = claimed;
      } else {
        // A raw undici/DOMException error names no SDK: the main extractor leaves it alone,
        // the transport extractor (used by the bound wrapper) claims it for google-genai.
        expect(claimed).toBeUndefined();
        // render tells extractors when a stream was being read (RenderExtractContext.streaming).
        const context = { streaming: scenario.stream === true } as Parameters<
          typeof googleGenaiTransportExtractor.extract
        >[1];
        metadata = googleGenaiTransportExtractor.extract(thrown, context);
        // Without that hint (a stream drained inside withClassifiedErrors) the reason is the same.
        const unhinted = googleGenaiTransportExtractor.extract(thrown);
        expect(unhinted && classify(unhinted).reason).toBe(expected.reason);
      }
    }
    return { metadata, ...(outcome.didThrow ? { thrown: outcome.thrown } : {}) };
  },
});

describe('the bound withClassifiedErrors', () => {
  for (const sdk of SDKS) {
    for (const scenario of scenarios) {
      const resolved = expectedFor(scenario, sdk.alias);
      // genai 1.x swallows an error chunk; drained inside the wrapper, the empty chunk it leaves
      // is caught by inspectResult (an error the SDK could not report: interrupted).
      const swallowed =
        (resolved.skip !== undefined && scenario.stream === true) || isSwallowedErrorScenario(scenario);
      const expected = swallowed
        ? { ...resolved, category: 'ambiguous' as const, reason: 'interrupted' as const, retryable: false }
        : resolved;
      const run = expected.skip === undefined || swallowed ? it : it.skip;
      run(
        `${sdk.alias} ${scenario.id}: throws a FaultlineError (${expected.reason}) whose cause is the SDK's`,
        async () => {
          const client = clientFor(sdk, scenario, server.baseUrlFor(scenario));
          let sdkError: unknown;
          const caught = await withClassifiedErrors(
            async () => {
              try {
                if (scenario.stream === true) {
                  // Drained inside the wrapper, as a caller that does not use guardGeminiStream would.
                  const chunks: unknown[] = [];
                  const stream = await client.models.generateContentStream({
                    model: MODEL,
                    contents: 'hello',
                  });
                  for await (const chunk of stream) chunks.push(chunk);
                  return chunks;
                }
                return await client.models.generateContent({ model: MODEL, contents: 'hello' });
              } catch (error) {
                sdkError = error;
                throw error;
              }
              // One attempt: this pins what one failure is classified as (retries, on by default,
              // would wait out a Retry-After of seconds); the retry loop has its own tests.
            },
            { retry: false },
          ).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(FaultlineError.isInstance(caught)).toBe(true);
          const error = caught as FaultlineError;
          if (isBlockedAnswerScenario(scenario) || swallowed) expect(sdkError).toBeUndefined();
          else expect(error.cause).toBe(sdkError);
          expect(error.classification.reason).toBe(expected.reason);
          expect(error.classification.category).toBe(expected.category);
          expect(error.classification.retryable).toBe(expected.retryable);
          expect(error.provider).toBe(GOOGLE_GENAI_PROVIDER);
          const report = JSON.stringify(error.toErrorReport());
          expect(report).not.toContain(TEST_BODY_MARKER);
        },
      );
    }
  }

  it('lets a blocked answer through when the caller opts out of inspectResult', async () => {
    const scenario = scenarios.find(
      (candidate) => candidate.id === 'google-genai/gemini-blocked-prompt',
    ) as Scenario;
    const client = clientFor(SDKS[0]!, scenario, server.baseUrlFor(scenario));
    const result = await withClassifiedErrors(
      () => client.models.generateContent({ model: MODEL, contents: 'x' }),
      {
        inspectResult: undefined,
      },
    );
    expect(result.promptFeedback.blockReason).toBe('SAFETY');
  });

  it("re-throws the caller's own abort untouched (genai reports it as an AbortError, like its timeout)", async () => {
    const scenario: Scenario = {
      ...(scenarios[0] as Scenario),
      id: 'google-genai/inline-never-answer',
      response: { kind: 'socket', behaviour: 'never-answer' },
    };
    const client = new SDKS[0]!.GoogleGenAI({
      apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000',
      httpOptions: { baseUrl: server.baseUrlFor(scenario), timeout: 10_000 },
    });
    const controller = new AbortController();
    const pending = withClassifiedErrors(
      ({ signal }) =>
        client.models.generateContent({ model: MODEL, contents: 'x', config: { abortSignal: signal } }),
      { signal: controller.signal },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    setTimeout(() => controller.abort(), 50);
    const caught = await pending;
    expect(FaultlineError.isInstance(caught)).toBe(false);
    expect((caught as Error).name).toBe('AbortError');
    // The same AbortError, read with the caller's fired signal, is an abort, not a timeout.
    const metadata = googleGenaiTransportExtractor.extract(caught, { signal: controller.signal });
    expect(metadata?.origin).toBe('abort');
    expect(googleGenaiTransportExtractor.extract(caught)?.origin).toBe('timeout');
  });
});

// Bodies are built by the scenarios; this marker would only show up if a raw body leaked.
const TEST_BODY_MARKER = '"@type":"type.googleapis.com/google.rpc';

describe('Vertex AI through the real SDK, without touching the network', () => {
  const scenario = () =>
    scenarios.find((candidate) => candidate.id === 'google-genai/vertex-model-not-found') as Scenario;
  for (const sdk of SDKS) {
    it(`${sdk.alias}: project/location with an OAuth2Client holding a token`, async () => {
      const vertex = scenario();
      const client = clientFor(sdk, vertex, server.baseUrlFor(vertex));
      const thrown = await client.models.generateContent({ model: 'gemini-9.9-pro', contents: 'x' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const request = server.requests(vertex).at(-1);
      expect(request?.subPath).toMatch(
        /^\/v1beta1\/projects\/my-project\/locations\/us-central1\/publishers\/google\/models\/gemini-9\.9-pro:generateContent/,
      );
      expect(request?.headers.authorization).toBe('Bearer ya29.loopback-test-token');
      const metadata = googleGenaiExtractor.extract(thrown);
      expect(classify(metadata as ProviderErrorMetadata).reason).toBe('model_not_found');
    });

    it(`${sdk.alias}: express mode (vertexai with an API key)`, async () => {
      const vertex = scenario();
      const client = new sdk.GoogleGenAI({
        vertexai: true,
        apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000',
        httpOptions: { baseUrl: server.baseUrlFor(vertex), timeout: 10_000 },
      });
      const thrown = await client.models.generateContent({ model: 'gemini-9.9-pro', contents: 'x' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const request = server.requests(vertex).at(-1);
      expect(request?.subPath).toMatch(
        /^\/v1beta1\/publishers\/google\/models\/gemini-9\.9-pro:generateContent/,
      );
      expect(request?.headers['x-goog-api-key']).toBe('AIzaSyLoopbackTestKeyNotReal0000000000');
      const metadata = googleGenaiExtractor.extract(thrown);
      expect(classify(metadata as ProviderErrorMetadata).reason).toBe('model_not_found');
    });
  }
});

describe('genai with httpOptions.retryOptions', () => {
  const byId = (id: string) =>
    scenarios.find((candidate) => candidate.id === `google-genai/${id}`) as Scenario;
  const cases = [
    // genai 1.x keeps only the status text: a 429 is still a rate limit, the rest falls to the status.
    { id: 'gemini-rate-limit-per-minute', v1: { statusCode: 429, reason: 'rate_limit' } },
    { id: 'gemini-overloaded', v1: { statusCode: 503, reason: 'overloaded' } },
    { id: 'gemini-bad-api-key', v1: { statusCode: 400, reason: 'invalid_request' } },
    { id: 'gemini-unknown-model', v1: { statusCode: 404, reason: 'not_found' } },
  ] as const;
  for (const sdk of SDKS) {
    for (const { id, v1 } of cases) {
      it(`${sdk.alias} ${id}`, async () => {
        const scenario = byId(id);
        const client = new sdk.GoogleGenAI({
          apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000',
          httpOptions: {
            baseUrl: server.baseUrlFor(scenario),
            timeout: 10_000,
            retryOptions: { attempts: 1 },
          },
        });
        const thrown = await client.models.generateContent({ model: MODEL, contents: 'x' }).then(
          () => undefined,
          (error: unknown) => error,
        );
        const metadata = googleGenaiExtractor.extract(thrown);
        expect(metadata).toBeDefined();
        if (sdk.alias === 'genai-v1') {
          // A plain Error without status or body (the SDK drops both).
          expect((thrown as Error).constructor).toBe(Error);
          expect(metadata?.statusCode).toBe(v1.statusCode);
          expect(classify(metadata as ProviderErrorMetadata).reason).toBe(v1.reason);
        } else {
          expect(metadata?.sdkErrorType).toBe('ApiError');
          expect(classify(metadata as ProviderErrorMetadata).reason).toBe(scenario.expected.reason);
        }
      });
    }
  }

  it('leaves an Error subclass with the same words alone', () => {
    class OtherSdkError extends Error {
      override name = 'OtherSdkError';
    }
    expect(
      googleGenaiExtractor.extract(new OtherSdkError('Retryable HTTP Error: Service Unavailable')),
    ).toBeUndefined();
  });
});

describe('what the extractor leaves alone', () => {
  it("leaves a SyntaxError from the caller's own JSON.parse alone (no undici frame)", () => {
    let thrown: unknown;
    try {
      JSON.parse('<html>');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SyntaxError);
    expect(googleGenaiExtractor.extract(thrown)).toBeUndefined();
    expect(googleGenaiTransportExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for a TypeError thrown by code, and the transport extractor does too', () => {
    let thrown: unknown;
    try {
      (undefined as unknown as { call(): void }).call();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(googleGenaiExtractor.extract(thrown)).toBeUndefined();
    expect(googleGenaiTransportExtractor.extract(thrown)).toBeUndefined();
  });

  it("returns undefined for another SDK's error that is also named ApiError but is not genai's", () => {
    class ApiError extends Error {
      status = 500;
      constructor() {
        super('500 Internal error');
        this.name = 'ApiError';
      }
    }
    expect(googleGenaiExtractor.extract(new ApiError())).toBeUndefined();
  });

  it('returns undefined for the SDK errors that are not API errors (a validation Error from genai itself)', async () => {
    const client = new SDKS[0]!.GoogleGenAI({ apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000' });
    const thrown = await client.models.generateContent({ model: '', contents: 'x' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Error);
    expect(googleGenaiExtractor.extract(thrown)).toBeUndefined();
  });

  it('detectGeminiBlockedAnswer returns undefined for a normal answer and for non-answers', () => {
    expect(
      detectGeminiBlockedAnswer({
        candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
      }),
    ).toBeUndefined();
    expect(detectGeminiBlockedAnswer({ candidates: [{ finishReason: 'MAX_TOKENS' }] })).toBeUndefined();
    expect(
      detectGeminiBlockedAnswer({ promptFeedback: { blockReason: 'BLOCKED_REASON_UNSPECIFIED' } }),
    ).toBeUndefined();
    expect(detectGeminiBlockedAnswer(null)).toBeUndefined();
    expect(detectGeminiBlockedAnswer('SAFETY')).toBeUndefined();
    expect(detectGeminiBlockedAnswer({ candidates: [] })).toBeUndefined();
    // One candidate blocked, another answered: the answer is still usable.
    expect(
      detectGeminiBlockedAnswer({ candidates: [{ finishReason: 'SAFETY' }, { finishReason: 'STOP' }] }),
    ).toBeUndefined();
    expect(detectGeminiBlockedAnswer({ candidates: [{ finishReason: 'RECITATION' }] })?.blockReason).toBe(
      'RECITATION',
    );
    // The chunks of a stream collected into an array: the blocked one is found.
    expect(
      detectGeminiBlockedAnswer([
        { candidates: [{ content: { parts: [{ text: 'Sure' }] } }] },
        { candidates: [{ finishReason: 'SPII' }] },
      ])?.blockReason,
    ).toBe('SPII');
    expect(detectGeminiBlockedAnswer([{ candidates: [{ finishReason: 'STOP' }] }])).toBeUndefined();
    const nested: unknown[] = [];
    nested.push(nested);
    expect(detectGeminiBlockedAnswer(nested)).toBeUndefined();
  });
});

describe('totality', () => {
  const hostile = fc.oneof(
    fc.anything(),
    fc.string().map((text) => ({ name: 'ApiError', status: 429, message: text })),
    fc.jsonValue().map((body) => ({ name: 'ApiError', status: 500, message: JSON.stringify(body) })),
    fc.jsonValue().map((body) => ({
      name: 'ApiError',
      status: 503,
      message: `got status: UNAVAILABLE. ${JSON.stringify(body)}`,
    })),
    fc
      .record({
        error: fc.record({
          code: fc.anything(),
          message: fc.anything(),
          status: fc.anything(),
          details: fc.anything(),
        }),
      })
      .map((body) => ({ name: 'ApiError', status: 400, message: safeStringify(body) })),
  );

  it('never throws and never mutates, on arbitrary values (fast-check, fixed seed)', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const before = safeStringify(value);
        const metadata = googleGenaiExtractor.extract(value);
        googleGenaiTransportExtractor.extract(value);
        detectGeminiBlockedAnswer(value);
        if (metadata !== undefined) {
          expect(metadata.provider).toBe(GOOGLE_GENAI_PROVIDER);
          classify(metadata);
        }
        expect(safeStringify(value)).toBe(before);
      }),
      { seed: 20261121, numRuns: 400 },
    );
  });

  it('survives Proxies whose traps throw, cyclic causes, and huge messages', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy(
      {},
      { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap },
    );
    expect(googleGenaiExtractor.extract(proxy)).toBeUndefined();
    expect(googleGenaiTransportExtractor.extract(proxy)).toBeUndefined();
    expect(detectGeminiBlockedAnswer(proxy)).toBeUndefined();

    const cyclic: { name: string; message: string; cause?: unknown } = {
      name: 'TypeError',
      message: 'fetch failed',
    };
    cyclic.cause = cyclic;
    expect(() => googleGenaiTransportExtractor.extract(cyclic)).not.toThrow();

    const huge = {
      name: 'ApiError',
      status: 500,
      message: `{"error":{"message":"${'x'.repeat(3_000_000)}"}}`,
    };
    const metadata = googleGenaiExtractor.extract(huge);
    expect(metadata?.statusCode).toBe(500);
    expect(classify(metadata as ProviderErrorMetadata).reason).toBe('server_error');
  });
});

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(typeof value);
  } catch {
    return 'unserialisable';
  }
}
