import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withClassifiedErrors } from './index.ts';
import { CHAT_PARAMS, newClient, SDKS } from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

const blockedAnswer = {
  response: {
    kind: 'http',
    status: 200,
    headers: { 'x-request-id': 'req_blocked_1' },
    body: JSON.stringify({
      id: 'chatcmpl-blocked',
      object: 'chat.completion',
      created: 1763760000,
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: null },
          finish_reason: 'content_filter',
          content_filter_results: { violence: { filtered: true, severity: 'high' } },
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12 },
    }),
  },
} as const;

for (const sdk of SDKS) {
  describe(`withClassifiedErrors with real ${sdk.alias}`, () => {
    it('throws a FaultlineError whose cause is the SDK error', async () => {
      const scenario = loadScenario('openai/rate-limit-retry-after-ms');
      const client = newClient(sdk, { baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) });
      let sdkError: unknown;
      const thrown = await withClassifiedErrors(
        () =>
          client.chat.completions.create(CHAT_PARAMS).catch((error: unknown) => {
            sdkError = error;
            throw error;
          }),
        // One attempt: what one failure is classified as (retries, on by default, would wait out
        // the 1.5 s Retry-After twice); the retry loop has its own tests.
        { retry: false },
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(FaultlineError.isInstance(thrown)).toBe(true);
      const error = thrown as FaultlineError;
      expect(error.cause).toBe(sdkError);
      const report = error.toErrorReport();
      expect(report).toMatchObject({ reason: 'rate_limit', provider: 'openai', retryAfterSeconds: 1.5 });
      expect(report.providerMetadata).toMatchObject({ statusCode: 429, requestId: 'req_rl_1' });
    });

    it('turns a 200 answer stopped by the content filter into content_policy', async () => {
      const client = newClient(sdk, { baseURL: server.baseUrlFor(blockedAnswer, { pathPrefix: '/v1' }) });
      const thrown = await withClassifiedErrors(() => client.chat.completions.create(CHAT_PARAMS)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(FaultlineError.isInstance(thrown)).toBe(true);
      const report = (thrown as FaultlineError).toErrorReport();
      expect(report).toMatchObject({ reason: 'content_policy', category: 'content', retryable: false });
    });

    it('returns the blocked answer when inspectResult is turned off', async () => {
      const client = newClient(sdk, { baseURL: server.baseUrlFor(blockedAnswer, { pathPrefix: '/v1' }) });
      const result = (await withClassifiedErrors(() => client.chat.completions.create(CHAT_PARAMS), {
        inspectResult: undefined,
      })) as { choices: Array<{ finish_reason: string }> };
      expect(result.choices[0]!.finish_reason).toBe('content_filter');
    });

    it("re-throws the caller's abort untouched", async () => {
      const never = { response: { kind: 'socket', behaviour: 'never-answer' } } as const;
      const client = newClient(sdk, { baseURL: server.baseUrlFor(never, { pathPrefix: '/v1' }) });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      let sdkError: unknown;
      const thrown = await withClassifiedErrors(
        ({ signal }) =>
          client.chat.completions.create(CHAT_PARAMS, signal ? { signal } : {}).catch((error: unknown) => {
            sdkError = error;
            throw error;
          }),
        { signal: controller.signal },
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(sdkError).toBeDefined();
      expect(thrown).toBe(sdkError);
      expect(FaultlineError.isInstance(thrown)).toBe(false);
    });
  });
}

const blockedResponse = {
  response: {
    kind: 'http',
    status: 200,
    body: JSON.stringify({
      id: 'resp_blocked',
      object: 'response',
      created_at: 1763760000,
      model: 'gpt-4o',
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [],
    }),
  },
} as const;

for (const sdk of SDKS) {
  it(`turns a Responses API answer incomplete for content_filter into content_policy (${sdk.alias})`, async () => {
    const client = newClient(sdk, { baseURL: server.baseUrlFor(blockedResponse, { pathPrefix: '/v1' }) });
    const responses = (client as unknown as { responses: { create(body: object): Promise<unknown> } })
      .responses;
    const thrown = await withClassifiedErrors(() =>
      responses.create({ model: 'gpt-4o', input: 'Say hello' }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(FaultlineError.isInstance(thrown)).toBe(true);
    expect((thrown as FaultlineError).toErrorReport()).toMatchObject({ reason: 'content_policy' });
  });
}

for (const sdk of SDKS) {
  it(`classifies a deadline that aborts the SDK as a timeout, not the caller's abort (${sdk.alias})`, async () => {
    const never = { response: { kind: 'socket', behaviour: 'never-answer' } } as const;
    const client = newClient(sdk, {
      timeout: 20_000,
      baseURL: server.baseUrlFor(never, { pathPrefix: '/v1' }),
    });
    const caller = new AbortController();
    const started = Date.now();
    const thrown = await withClassifiedErrors(
      ({ signal }) => client.chat.completions.create(CHAT_PARAMS, signal ? { signal } : {}),
      { deadlineMs: 300, signal: caller.signal },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
    const report = (thrown as FaultlineError).toErrorReport();
    expect(report).toMatchObject({ reason: 'timeout', retryable: true });
    expect((thrown as FaultlineError).classification.callerAborted).toBe(false);
  });
}

it('bounds openai 4 hanging on a body cut mid-way with deadlineMs (README known gap)', async () => {
  const sdk = SDKS.find((candidate) => candidate.alias === 'openai-v4')!;
  const scenario = loadScenario('openai/cut-body');
  const client = newClient(sdk, {
    timeout: 20_000,
    baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
  });
  const caller = new AbortController();
  const started = Date.now();
  const thrown = await withClassifiedErrors(
    ({ signal }) => client.chat.completions.create(CHAT_PARAMS, signal ? { signal } : {}),
    { deadlineMs: 400, signal: caller.signal },
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(Date.now() - started).toBeLessThan(5000);
  expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
  expect(['timeout', 'interrupted']).toContain((thrown as FaultlineError).classification.reason);
});
