import { FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, MODEL, SDKS } from '../test/genai-harness.ts';
import { GOOGLE_GENAI_PROVIDER } from './extract-google-genai.ts';
import {
  guardGeminiStream,
  inspectGeminiResult,
  isEmptyGeminiChunk,
  isGeminiTerminalChunk,
} from './guard-google-genai.ts';

const streamScenarios = loadScenarios('google-genai').filter((scenario) => scenario.stream === true);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

const chunk = (text: string, finishReason?: string) =>
  JSON.stringify({
    candidates: [
      { content: { parts: [{ text }], role: 'model' }, index: 0, ...(finishReason ? { finishReason } : {}) },
    ],
    modelVersion: 'gemini-2.5-flash',
  });

function inline(name: string, response: Scenario['response']): Scenario {
  return {
    id: `google-genai/inline-${name}`,
    provider: 'google-genai',
    description: name,
    source: 'inline test scenario',
    api: 'gemini',
    stream: true,
    response,
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  };
}

const complete = inline('complete', {
  kind: 'sse',
  events: [{ data: chunk('Once upon') }, { data: chunk(' a time.', 'STOP') }],
  // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
  then: 'end',
});
const noFinish = inline('no-finish-reason', {
  kind: 'sse',
  events: [{ data: chunk('Once upon') }, { data: chunk(' a') }],
  // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
  then: 'end',
});
const stallLong = inline('stall-long-sdk-timeout', {
  kind: 'sse',
  events: [{ data: chunk('Once upon') }],
  // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
  then: 'stall',
});

/** Reads a guarded stream to the end; returns the chunks and what was thrown. */
async function readGuarded(
  sdk: (typeof SDKS)[number],
  scenario: Scenario,
  options: { idleTimeoutMs?: number; sdkTimeoutMs?: number; detectBlockedAnswers?: boolean } = {},
) {
  const client = clientFor(sdk, scenario, server.baseUrlFor(scenario));
  if (options.sdkTimeoutMs !== undefined) {
    // A fresh client with a longer SDK timeout, so that the guard's idle timer fires first.
    const baseUrl = server.baseUrlFor(scenario);
    const fresh = new sdk.GoogleGenAI({
      apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000',
      httpOptions: { baseUrl, timeout: options.sdkTimeoutMs },
    });
    return read(fresh, options);
  }
  return read(client, options);
}

async function read(
  client: { models: { generateContentStream(request: object): Promise<AsyncIterable<unknown>> } },
  options: { idleTimeoutMs?: number; detectBlockedAnswers?: boolean },
) {
  const chunks: unknown[] = [];
  try {
    const stream = await client.models.generateContentStream({ model: MODEL, contents: 'Tell me a story.' });
    for await (const item of guardGeminiStream(stream, {
      idleTimeoutMs: options.idleTimeoutMs ?? 5_000,
      detectBlockedAnswers: options.detectBlockedAnswers,
    })) {
      chunks.push(item);
    }
    return { chunks, thrown: undefined as unknown };
  } catch (thrown) {
    return { chunks, thrown };
  }
}

for (const sdk of SDKS) {
  describe(`guardGeminiStream with the real SDK ${sdk.alias}`, () => {
    for (const scenario of streamScenarios) {
      const expected = expectedFor(scenario, sdk.alias);
      // genai 1.x swallows an error chunk: the guard sees the empty chunk it leaves instead.
      const swallowed = expected.skip !== undefined;
      const reason = swallowed ? 'interrupted' : expected.reason;
      it(`${scenario.id}: ${reason}`, async () => {
        const { thrown } = await readGuarded(sdk, scenario);
        expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
        const error = thrown as FaultlineError;
        expect(error.classification.reason).toBe(reason);
        expect(error.metadata.provider).toBe(GOOGLE_GENAI_PROVIDER);
        expect(error.metadata.delivered?.chunks).toBeGreaterThanOrEqual(1);
        expect(error.metadata.delivered?.characters).toBeGreaterThan(0);
        if (swallowed) {
          expect(error.metadata.origin).toBe('malformed_response');
          expect(error.classification.category).toBe('ambiguous');
        } else {
          expect(error.classification.category).toBe(expected.category);
          expect(error.classification.retryable).toBe(expected.retryable);
          if (expected.statusCode !== undefined) expect(error.metadata.statusCode).toBe(expected.statusCode);
          if (expected.providerCode !== undefined)
            expect(error.metadata.providerCode).toBe(expected.providerCode);
        }
      });
    }

    it('passes a complete stream through untouched', async () => {
      const { chunks, thrown } = await readGuarded(sdk, complete);
      expect(thrown).toBeUndefined();
      expect(chunks).toHaveLength(2);
      expect(isGeminiTerminalChunk(chunks[1])).toBe(true);
    });

    it('reports a stream that ends without a finishReason as interrupted', async () => {
      const { chunks, thrown } = await readGuarded(sdk, noFinish);
      expect(chunks).toHaveLength(2);
      expect(FaultlineError.isInstance(thrown)).toBe(true);
      expect((thrown as FaultlineError).classification.reason).toBe('interrupted');
    });

    it("re-throws the caller's abort mid-stream untouched (not a timeout)", async () => {
      const client = new sdk.GoogleGenAI({
        apiKey: 'AIzaSyLoopbackTestKeyNotReal0000000000',
        httpOptions: { baseUrl: server.baseUrlFor(stallLong), timeout: 20_000 },
      });
      const controller = new AbortController();
      const chunks: unknown[] = [];
      let thrown: unknown;
      try {
        const stream = await client.models.generateContentStream({
          model: MODEL,
          contents: 'x',
          config: { abortSignal: controller.signal },
        });
        for await (const item of guardGeminiStream(stream, {
          signal: controller.signal,
          idleTimeoutMs: 5_000,
        })) {
          chunks.push(item);
          controller.abort();
        }
      } catch (error) {
        thrown = error;
      }
      expect(chunks).toHaveLength(1);
      expect(FaultlineError.isInstance(thrown)).toBe(false);
      expect((thrown as Error).name).toBe('AbortError');
    });

    it('ends a stall with its idle timer before the SDK timeout', async () => {
      const started = Date.now();
      const { thrown } = await readGuarded(sdk, stallLong, { idleTimeoutMs: 200, sdkTimeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(FaultlineError.isInstance(thrown)).toBe(true);
      const error = thrown as FaultlineError;
      expect(error.classification.reason).toBe('interrupted');
      expect(error.metadata.origin).toBe('timeout');
    });
  });
}

describe('guardGeminiStream options and chunk readers', () => {
  it('lets a blocked chunk through with detectBlockedAnswers: false', async () => {
    const scenario = streamScenarios.find((candidate) =>
      candidate.id.endsWith('prohibited-content'),
    ) as Scenario;
    const { chunks, thrown } = await readGuarded(SDKS[0]!, scenario, { detectBlockedAnswers: false });
    expect(thrown).toBeUndefined();
    expect(chunks).toHaveLength(2);
  });

  it('inspectGeminiResult flags collected chunks holding an empty chunk, and nothing else', () => {
    expect(inspectGeminiResult([{ candidates: [{ content: { parts: [{ text: 'a' }] } }] }, {}])?.origin).toBe(
      'malformed_response',
    );
    expect(inspectGeminiResult([{ candidates: [{ finishReason: 'STOP' }] }])).toBeUndefined();
    expect(inspectGeminiResult({})).toBeUndefined();
    expect(inspectGeminiResult({ promptFeedback: { blockReason: 'OTHER' } })?.origin).toBe(
      'blocked_response',
    );
    expect(inspectGeminiResult(undefined)).toBeUndefined();
  });

  it('tells an empty chunk and a terminal chunk from normal ones', () => {
    expect(isEmptyGeminiChunk({})).toBe(true);
    expect(isEmptyGeminiChunk({ sdkHttpResponse: { headers: {} } })).toBe(true);
    expect(isEmptyGeminiChunk({ candidates: [] })).toBe(false);
    expect(isEmptyGeminiChunk({ usageMetadata: { totalTokenCount: 3 } })).toBe(false);
    expect(isEmptyGeminiChunk(null)).toBe(false);
    expect(isGeminiTerminalChunk({ candidates: [{ finishReason: 'MAX_TOKENS' }] })).toBe(true);
    expect(isGeminiTerminalChunk({ candidates: [{ content: {} }] })).toBe(false);
    expect(isGeminiTerminalChunk({ candidates: [{ finishReason: 'FINISH_REASON_UNSPECIFIED' }] })).toBe(
      false,
    );
    expect(isGeminiTerminalChunk('STOP')).toBe(false);
  });
});
