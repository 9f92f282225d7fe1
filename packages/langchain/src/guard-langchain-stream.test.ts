// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import { FaultlineError } from '@faultline/render';
import { expectedFor, loadScenarios, type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyLangChainError } from './classify-langchain-error.ts';
import { KNOWN_DIFFERENCES } from './cross-check-table.ts';
import { guardLangChainStream } from './guard-langchain-stream.ts';
import { chatModelFor, PROVIDERS, type Servers } from './test-support.ts';

// Every stream scenario of the six providers, through the real LangChain chat model's `.stream()`
// read through guardLangChainStream: the guard must give what it throws the scenario's expected
// classification, with the output delivered before the failure, and must end a stalled stream
// by its own idle timer (the chat models' timeouts are set far beyond it here).

let servers: Servers;
beforeAll(async () => {
  servers = {
    http1: await startLoopbackServer({ protocol: 'http1' }),
    h2c: await startLoopbackServer({ protocol: 'h2c' }),
  };
});
afterAll(async () => {
  await servers?.http1.close();
  await servers?.h2c.close();
});

const IDLE_MS = 1_000;

function stalls(scenario: Scenario): boolean {
  const response = scenario.response;
  return (response.kind === 'sse' || response.kind === 'aws-event-stream') && response.then === 'stall';
}

/** Drains the guarded stream; the error it threw, or `undefined` when it ended normally. */
async function drive(
  provider: (typeof PROVIDERS)[number],
  scenario: Scenario,
): Promise<{ thrown: unknown; chunks: number; ms: number }> {
  const model = chatModelFor(provider, scenario, servers);
  const controller = new AbortController();
  const started = performance.now();
  let chunks = 0;
  try {
    // The promise itself: `.stream()` rejects when the request fails before the first chunk.
    const stream = model.stream('Say hello', { signal: controller.signal });
    for await (const _chunk of guardLangChainStream(stream, {
      provider: model._llmType(),
      idleTimeoutMs: stalls(scenario) ? IDLE_MS : 30_000,
      onAbandon: () => controller.abort(),
    })) {
      chunks += 1;
    }
  } catch (error) {
    return { thrown: error, chunks, ms: performance.now() - started };
  }
  return { thrown: undefined, chunks, ms: performance.now() - started };
}

for (const provider of PROVIDERS) {
  const streams = loadScenarios(provider).filter((scenario) => scenario.stream === true);
  describe(`${provider}: guardLangChainStream on the real chat model's .stream()`, () => {
    it('has stream scenarios', () => {
      expect(streams.length).toBeGreaterThan(0);
    });
    for (const scenario of streams) {
      it.concurrent(scenario.id, async () => {
        const expected = expectedFor(scenario);
        const { thrown, chunks, ms } = await drive(provider, scenario);
        const known = KNOWN_DIFFERENCES[scenario.id];
        if (known?.actual === 'resolved') {
          // LangChain drops these chunks (see the cross-check table): nothing fails, even guarded.
          expect(thrown, `${scenario.id}: ${known.why}`).toBeUndefined();
          return;
        }
        expect(FaultlineError.isInstance(thrown), `${scenario.id} threw ${String(thrown)}`).toBe(true);
        const report = (thrown as FaultlineError).toErrorReport();
        expect(
          { category: report.category, reason: report.reason, retryable: report.retryable },
          scenario.id,
        ).toEqual({ category: expected.category, reason: expected.reason, retryable: expected.retryable });
        if (chunks > 0) expect(report.delivered?.chunks, scenario.id).toBe(chunks);
        if (stalls(scenario)) {
          // Ended by the guard's idle timer, well before any timeout of the chat model or its SDK.
          expect(ms).toBeLessThan(IDLE_MS + 10_000);
          expect(report.delivered?.chunks ?? 0).toBeGreaterThan(0);
        }
        expect(JSON.stringify(report)).not.toContain('sk-test-faultline-canary');
      });
    }
  });
}

/** A scenario served as is (no recorded id: a stream this file writes). */
const served = (response: Scenario['response']): Scenario =>
  ({ id: 'inline', provider: 'inline', response, expected: {} }) as unknown as Scenario;

describe('what the chat models hand on, read where it still is', () => {
  const sse = (events: Array<{ event?: string; data: string }>): Scenario['response'] =>
    ({ kind: 'sse', events, then: 'end' }) as Scenario['response'];

  it("@langchain/openai: a tool call's argument deltas (tool_call_chunks) are delivered output", async () => {
    const args = '{"city":"Oslo"}';
    const toolCall = JSON.stringify({
      id: 'chatcmpl-fl1',
      object: 'chat.completion.chunk',
      created: 1763760000,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    // The connection drops after the call: cut after output.
    const cut = served({ kind: 'sse', events: [{ data: toolCall }], then: 'cut' } as Scenario['response']);
    const { thrown } = await drive('openai', cut);
    expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
    expect((thrown as FaultlineError).toErrorReport()).toMatchObject({
      delivered: { chunks: 1, characters: args.length },
      recovery: { fallback: false },
    });
  });

  it('@langchain/anthropic: a refusal stream (stop_reason in additional_kwargs) is content_policy, not a normal end', async () => {
    const event = (type: string, body: object) => ({ event: type, data: JSON.stringify({ type, ...body }) });
    const refusal = served(
      sse([
        event('message_start', {
          message: {
            id: 'msg_01FaultlineRefusalStream',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 12, output_tokens: 1 },
          },
        }),
        event('message_delta', {
          delta: { stop_reason: 'refusal', stop_sequence: null },
          usage: { output_tokens: 0 },
        }),
        event('message_stop', {}),
      ]),
    );
    const { thrown } = await drive('anthropic', refusal);
    expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
    expect((thrown as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'content_policy',
      provider: 'anthropic',
    });
  });

  it('@langchain/google-genai: an answer withheld with finishReason SAFETY (EmptyContentError) is content_policy', async () => {
    const blocked = served({
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        candidates: [
          {
            finishReason: 'SAFETY',
            index: 0,
            safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }],
          },
        ],
        usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
        modelVersion: 'gemini-2.5-flash',
      }),
    } as Scenario['response']);
    const model = chatModelFor('google-genai', blocked, servers);
    let thrown: unknown;
    try {
      await model.invoke('Say hello');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeDefined();
    const report = classifyLangChainError(thrown, { provider: model._llmType() }).toErrorReport();
    expect(report).toMatchObject({ reason: 'content_policy', provider: 'google-genai' });
  });

  it('@langchain/google-genai: an error body sent without its `data:` framing after the first chunk ("Failed to parse stream") is interrupted', async () => {
    const chunk = JSON.stringify({
      candidates: [{ content: { parts: [{ text: 'Hello' }], role: 'model' }, index: 0 }],
      modelVersion: 'gemini-2.5-flash',
    });
    const unframed = served({
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `data: ${chunk}\r\n\r\n${JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } })}\r\n`,
    } as Scenario['response']);
    const { thrown, chunks } = await drive('google-genai', unframed);
    expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
    const report = (thrown as FaultlineError).toErrorReport();
    expect(report).toMatchObject({ reason: 'interrupted', provider: 'google-genai' });
    expect(report.delivered?.chunks).toBe(chunks);
  });

  it('@langchain/openai through StringOutputParser: text streamed as strings is delivered output', async () => {
    const chunk = (content: string) =>
      JSON.stringify({
        id: 'chatcmpl-fl1',
        object: 'chat.completion.chunk',
        created: 1763760000,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }],
      });
    // The quota runs out mid-answer: a fallback row, which output already delivered turns into
    // fix_configuration (moving on would write a second answer after the first one's start).
    const spent = served(
      sse([
        { data: chunk('Hel') },
        { data: chunk('lo') },
        {
          data: JSON.stringify({
            error: {
              message: 'You exceeded your current quota, please check your plan and billing details.',
              type: 'insufficient_quota',
              code: 'insufficient_quota',
            },
          }),
        },
      ]),
    );
    const chain = chatModelFor('openai', spent, servers).pipe(new StringOutputParser());
    const texts: string[] = [];
    let thrown: unknown;
    try {
      for await (const text of guardLangChainStream(chain.stream('Say hello'), { provider: 'openai' })) {
        texts.push(text);
      }
    } catch (error) {
      thrown = error;
    }
    expect(texts.join('')).toBe('Hello');
    expect(FaultlineError.isInstance(thrown), String(thrown)).toBe(true);
    expect((thrown as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'quota',
      nextStep: 'fix_configuration',
      delivered: { chunks: texts.length, characters: 'Hello'.length },
      recovery: { fallback: false },
    });
  });
});
