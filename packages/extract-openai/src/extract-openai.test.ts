import { classify, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import { isStainlessApiError } from '@faultline/stainless';
import {
  bigBody,
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
import { detectOpenAIBlockedAnswer, openaiExtractor } from './extract-openai.ts';
import { type ChatClient, newClient, SDKS, type Sdk } from './test-support.ts';

const scenarios = loadScenarios('openai');
let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

function clientFor(sdk: Sdk, scenario: Scenario, on: LoopbackServer = server): ChatClient {
  const timeout = clientTimeoutFor(scenario);
  const options = { apiKey: 'sk-test-faultline', maxRetries: 0, timeout };
  if (scenario.api === 'azure') {
    const endpoint = on.baseUrlFor(scenario);
    return new sdk.AzureOpenAI({
      ...options,
      endpoint,
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o',
    }) as unknown as ChatClient;
  }
  return newClient(sdk, {
    timeout,
    baseURL: on.baseUrlFor(scenario, { pathPrefix: '/v1' }),
  });
}

/** Runs the scenario through the real SDK and returns what it threw (or fails when it resolves). */
async function thrownBy(sdk: Sdk, scenario: Scenario, on: LoopbackServer = server): Promise<unknown> {
  const client = clientFor(sdk, scenario, on);
  const params = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }] };
  try {
    if (scenario.stream === true) {
      const stream = (await client.chat.completions.create({
        ...params,
        stream: true,
      })) as AsyncIterable<unknown>;
      for await (const _chunk of stream) {
        // drain
      }
    } else {
      await client.chat.completions.create(params);
    }
  } catch (error) {
    return error;
  }
  throw new Error(`${sdk.alias} resolved ${scenario.id} without throwing`);
}

/** The whole pipeline as a user runs it: openaiExtractor, then render's built-in readers, then classify. */
function classifyThrown(error: unknown, streaming: boolean) {
  const own = openaiExtractor.extract(error, { streaming } as never);
  const { metadata, classification } = classifyError(error, { extractors: [openaiExtractor], streaming });
  return { own, metadata, classification };
}

scenarioSuite({
  provider: 'openai',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 25,
  demoLabels: [
    'rate limit',
    'quota',
    'context overflow',
    'content block',
    'bad key',
    'unknown model',
    'DNS failure',
    'refused connection',
    'stream cut',
    'overload',
  ],
  builtInsRead: true,
  // The whole report, against the report recorded before the error path was reworked (pnpm record:error-reports).
  reportOf: (thrown) =>
    stableReport(classifyError(thrown, { extractors: [openaiExtractor] }).toErrorReport()),
  async read(sdk, scenario, on) {
    const thrown = await thrownBy(sdk, scenario, on);
    return { ...classifyThrown(thrown, scenario.stream === true), thrown };
  },
  check({ scenario, metadata, thrown }) {
    const { own } = classifyThrown(thrown, scenario.stream === true);
    if (own === undefined) {
      // Only a raw transport drop (undici `terminated`, node-fetch `Premature close`) carries no
      // SDK's mark: render's built-in transport reader reads it, naming no SDK.
      expect(isStainlessApiError(thrown), `extractor ignored ${String(thrown)}`).toBe(false);
      expect(metadata).toMatchObject({ provider: 'node', origin: 'network' });
    } else {
      // render keeps what the extractor read (it scrubs the message and marks mid-stream phases).
      expect(metadata).toMatchObject({ provider: 'openai', origin: own.origin });
      expect(metadata.statusCode).toBe(own.statusCode);
    }
  },
});

for (const sdk of SDKS) {
  describe(`real ${sdk.alias}: what the extractor reads`, () => {
    it('reads the request id, x-should-retry and the SDK class of a status error', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/overloaded-503')!;
      const error = await thrownBy(sdk, scenario);
      const metadata = openaiExtractor.extract(error)!;
      expect(metadata).toMatchObject({
        origin: 'http',
        statusCode: 503,
        requestId: 'req_503_1',
        shouldRetryHint: true,
        sdkErrorType: 'InternalServerError',
      });
    });

    it('reduces an HTML error page to its title', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/bad-gateway-html')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata.message).toBe('502 Bad Gateway');
      expect(metadata.rawBody).toContain('<center>cloudflare</center>');
    });

    it('writes the JSON body as rawBody on first read only, the same text through classifyError', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/overloaded-503')!;
      const thrown = await thrownBy(sdk, scenario);
      const metadata = openaiExtractor.extract(thrown)!;
      const descriptor = Object.getOwnPropertyDescriptor(metadata, 'rawBody')!;
      // Unread: a getter over the body the SDK parsed (memory), not a second copy.
      expect(typeof descriptor.get).toBe('function');
      expect(descriptor.enumerable).toBe(false);
      const expected = JSON.stringify((thrown as { error: unknown }).error);
      const error = classifyError(thrown, { extractors: [openaiExtractor] });
      expect(typeof Object.getOwnPropertyDescriptor(error.metadata, 'rawBody')!.get).toBe('function');
      expect(error.metadata.rawBody).toBe(expected);
      // Read once: kept as a value, no longer a getter.
      expect(Object.getOwnPropertyDescriptor(error.metadata, 'rawBody')).toMatchObject({ value: expected });
      expect(metadata.rawBody).toBe(expected);
      expect(Object.keys(error.metadata)).not.toContain('rawBody');
      expect(JSON.stringify(error.metadata)).not.toContain('rawBody');
    });

    it('reads a huge error body quickly, keeping the message and the raw body bounded', async () => {
      const huge = { response: { kind: 'http', status: 500, body: bigBody(8) } } as const;
      const client = newClient(sdk, {
        timeout: 10_000,
        baseURL: server.baseUrlFor(huge, { pathPrefix: '/v1' }),
      });
      const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [] }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const started = performance.now();
      const metadata = openaiExtractor.extract(error)!;
      expect(performance.now() - started).toBeLessThan(1000);
      expect(metadata).toMatchObject({ statusCode: 500, providerCode: 'big_body' });
      expect(metadata.message.length).toBeLessThanOrEqual(2000);
      expect(metadata.rawBody!.length).toBeLessThanOrEqual(64 * 1024);
      expect(JSON.stringify(metadata).length).toBeLessThan(4000);
    });

    it('classifies the parse() helper refusing a content-filtered answer', async () => {
      const filtered = {
        response: {
          kind: 'http',
          status: 200,
          body: JSON.stringify({
            id: 'chatcmpl-f',
            object: 'chat.completion',
            created: 1763760000,
            model: 'gpt-4o',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: null, refusal: null },
                finish_reason: 'content_filter',
              },
            ],
          }),
        },
      } as const;
      const client = newClient(sdk, {
        baseURL: server.baseUrlFor(filtered, { pathPrefix: '/v1' }),
      }) as unknown as {
        chat: { completions: { parse?: (body: object) => Promise<unknown> } };
        beta: { chat: { completions: { parse: (body: object) => Promise<unknown> } } };
      };
      const parse = client.chat.completions.parse
        ? client.chat.completions.parse.bind(client.chat.completions)
        : client.beta.chat.completions.parse.bind(client.beta.chat.completions);
      const error = await parse({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'answer',
            strict: true,
            schema: { type: 'object', properties: {}, additionalProperties: false },
          },
        },
      }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const metadata = openaiExtractor.extract(error)!;
      expect(metadata).toMatchObject({
        origin: 'blocked_response',
        sdkErrorType: 'ContentFilterFinishReasonError',
      });
      expect(classify(metadata).reason).toBe('content_policy');
    });

    it("reads OpenRouter's moderation metadata without copying the flagged prompt", async () => {
      const scenario = scenarios.find(
        (candidate) => candidate.id === 'openai/openrouter-moderation-flagged',
      )!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata).toMatchObject({
        providerType: 'moderation',
        blockReason: 'moderation: harassment/threatening',
      });
      expect(JSON.stringify(metadata)).not.toContain('FLAGGED-PROMPT-TEXT-canary');
    });

    it('records x-should-retry: false as evidence', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/should-retry-false-500')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata.shouldRetryHint).toBe(false);
    });

    it('reads a body without an error key (FastAPI 422) without copying it', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/fastapi-validation-422')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata).toMatchObject({
        origin: 'http',
        statusCode: 422,
        sdkErrorType: 'UnprocessableEntityError',
      });
      // openai 4-6 drop such a body; 7.57 keeps it whole as `error`, whose message field (detail[0].msg) is
      // read. Either way the body is not copied: its `input` (the request) never reaches the metadata.
      expect(['422 status code (no body)', '422 Field required']).toContain(metadata.message);
      expect(JSON.stringify(metadata)).not.toContain('local-model');
    });

    it('reads Azure innererror and content_filter_result', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/azure-content-filter')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata).toMatchObject({
        providerCode: 'content_filter',
        providerType: 'ResponsibleAIPolicyViolation',
        providerParam: 'prompt',
        blockReason: 'content_filter: hate',
        requestId: 'c0ffee00-1111-2222-3333-444455556666',
      });
    });

    it("reads OpenRouter's metadata.raw upstream error", async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/openrouter-upstream-context')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata.message).toContain('Provider returned error (DeepInfra: ');
      expect(metadata.message).toContain('maximum context length is 131072 tokens');
      expect(metadata.providerType).toBe('BadRequestError');
    });

    it('marks an in-stream error event as origin stream_event', async () => {
      const scenario = scenarios.find((candidate) => candidate.id === 'openai/stream-error-event')!;
      const metadata = openaiExtractor.extract(await thrownBy(sdk, scenario))!;
      expect(metadata).toMatchObject({ origin: 'stream_event', providerType: 'server_error' });
      expect(metadata.statusCode).toBeUndefined();
    });

    it("treats the caller's abort as origin abort, not a provider failure", async () => {
      const scenario = { response: { kind: 'socket', behaviour: 'never-answer' } } as const;
      const client = newClient(sdk, {
        timeout: 10_000,
        baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
      });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const error = await client.chat.completions
        .create(
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
          { signal: controller.signal },
        )
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect((error as Error).message).toBe('Request was aborted.');
      const metadata = openaiExtractor.extract(error, { signal: controller.signal })!;
      expect(metadata.origin).toBe('abort');
      const classification = classify(metadata);
      expect(classification.callerAborted).toBe(true);
      expect(classification.retryable).toBe(false);
    });

    it('tells a connection timeout from a refused connection', async () => {
      const never = { response: { kind: 'socket', behaviour: 'never-answer' } } as const;
      const client = newClient(sdk, {
        timeout: 200,
        baseURL: server.baseUrlFor(never, { pathPrefix: '/v1' }),
      });
      const error = await client.models.list().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const metadata = openaiExtractor.extract(error)!;
      expect(metadata).toMatchObject({ origin: 'timeout', sdkErrorType: 'APIConnectionTimeoutError' });
    });
  });
}

describe('errors that are not the openai SDK', () => {
  it('returns undefined for a TypeError from user code', () => {
    let thrown: unknown;
    try {
      (undefined as unknown as { call(): void }).call();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(openaiExtractor.extract(thrown)).toBeUndefined();
  });

  it('returns undefined for plain values and plain errors', () => {
    for (const value of [null, undefined, 0, 'boom', new Error('boom'), new RangeError('x'), {}, []]) {
      expect(openaiExtractor.extract(value)).toBeUndefined();
    }
  });
});

describe('totality', () => {
  it('never throws and never returns another provider key, for any value', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        const metadata = openaiExtractor.extract(value);
        if (metadata !== undefined) expect(metadata.provider).toBe('openai');
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });

  it('never throws on arbitrary values in the shape of an openai APIError', () => {
    fc.assert(
      fc.property(
        fc.record({
          status: fc.anything(),
          headers: fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.string())),
          error: fc.anything({ withObjectString: true }),
          code: fc.anything(),
          param: fc.anything(),
          type: fc.anything(),
          message: fc.anything(),
          cause: fc.anything(),
        }),
        (value) => {
          const metadata = openaiExtractor.extract(value);
          expect(metadata?.provider).toBe('openai');
          expect(v.safeParse(ProviderErrorMetadata, metadata).success).toBe(true);
        },
      ),
      { seed: 424242, numRuns: 400 },
    );
  });

  it('survives Proxies whose traps throw, cyclic causes and hostile getters', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(() => openaiExtractor.extract(hostile)).not.toThrow();
    const cyclic = Object.assign(new Error('Connection error.'), {
      status: undefined,
      headers: undefined,
      error: undefined,
      code: undefined,
      param: undefined,
      type: undefined,
    });
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(openaiExtractor.extract(cyclic)?.origin).toBe('network');
    const getter = {
      status: 500,
      headers: {},
      code: null,
      param: null,
      type: null,
      get error(): unknown {
        throw new Error('getter');
      },
    };
    expect(() => openaiExtractor.extract(getter)).not.toThrow();
  });

  it('does not mutate the SDK error', async () => {
    const scenario = scenarios.find((candidate) => candidate.id === 'openai/openrouter-upstream-context')!;
    const error = (await thrownBy(SDKS[3], scenario)) as Record<string, unknown>;
    const before = JSON.stringify(Object.entries(error));
    const keys = Reflect.ownKeys(error).length;
    openaiExtractor.extract(error);
    expect(JSON.stringify(Object.entries(error))).toBe(before);
    expect(Reflect.ownKeys(error).length).toBe(keys);
  });
});

describe('detectOpenAIBlockedAnswer', () => {
  const completion = (finishReason: string, extra: Record<string, unknown> = {}) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: finishReason, ...extra },
    ],
  });

  it('turns finish_reason content_filter into a blocked_response (content_policy)', () => {
    const metadata = detectOpenAIBlockedAnswer(
      completion('content_filter', {
        content_filter_results: {
          violence: { filtered: true, severity: 'medium' },
          hate: { filtered: false },
        },
      }),
    ) as ProviderErrorMetadata;
    expect(metadata).toMatchObject({ origin: 'blocked_response', blockReason: 'content_filter: violence' });
    expect(classify(metadata).reason).toBe('content_policy');
  });

  it('reads a Responses API result incomplete because of the content filter', () => {
    const metadata = detectOpenAIBlockedAnswer({
      id: 'resp_1',
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    expect(metadata?.origin).toBe('blocked_response');
    expect(
      detectOpenAIBlockedAnswer({ object: 'response', incomplete_details: { reason: 'max_output_tokens' } }),
    ).toBeUndefined();
  });

  it('leaves normal answers, streams and odd values alone', () => {
    expect(detectOpenAIBlockedAnswer(completion('stop'))).toBeUndefined();
    expect(detectOpenAIBlockedAnswer(completion('length'))).toBeUndefined();
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(() => detectOpenAIBlockedAnswer(value)).not.toThrow();
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});

describe('phrases this package added to classify (regression)', () => {
  it('reads an organization id between "organization" and "has been disabled"', () => {
    const classification = classify({
      provider: 'openai',
      origin: 'http',
      statusCode: 401,
      message: 'Your organization org-AbC123 has been disabled.',
    });
    expect(classification.reason).toBe('permission');
    expect(classification.userAction.kind).toBe('contact_support');
  });

  it("reads Together/TGI's inputs + max_new_tokens limit as context overflow", () => {
    const classification = classify({
      provider: 'openai',
      origin: 'http',
      statusCode: 422,
      message:
        'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4097. Given: 5013 `inputs` tokens and 128 `max_new_tokens`',
    });
    expect(classification.reason).toBe('context_overflow');
  });
});

describe("the SDK's own conditions (sdkCondition)", () => {
  it('reads the missing-key error every major and the Azure client throw as missing_credentials → auth', () => {
    const saved = { openai: process.env.OPENAI_API_KEY, azure: process.env.AZURE_OPENAI_API_KEY };
    delete process.env.OPENAI_API_KEY;
    delete process.env.AZURE_OPENAI_API_KEY;
    try {
      for (const sdk of SDKS) {
        const constructors: Array<() => unknown> = [
          () => new sdk.OpenAI({ maxRetries: 0 }),
          () => new sdk.AzureOpenAI({ endpoint: 'http://127.0.0.1:9', apiVersion: '2024-10-21' }),
        ];
        for (const construct of constructors) {
          let thrown: unknown;
          try {
            construct();
          } catch (error) {
            thrown = error;
          }
          const metadata = openaiExtractor.extract(thrown);
          expect(metadata, sdk.alias).toMatchObject({
            origin: 'validation',
            sdkCondition: 'missing_credentials',
          });
          const classification = classify(metadata!);
          expect(classification.reason).toBe('auth');
          expect(classification.decidedBy.rule).toBe('sdk_missing_credentials');
        }
      }
    } finally {
      if (saved.openai !== undefined) process.env.OPENAI_API_KEY = saved.openai;
      if (saved.azure !== undefined) process.env.AZURE_OPENAI_API_KEY = saved.azure;
    }
  });
});

describe('SyntaxError ownership', () => {
  it('leaves a SyntaxError from JSON.parse in user code alone', () => {
    let thrown: unknown;
    try {
      JSON.parse('{ not json');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SyntaxError);
    expect(openaiExtractor.extract(thrown)).toBeUndefined();
  });
});
