import { FaultlineError } from '@faultline/render';
import { startLoopbackServer } from '@faultline/test-fixtures';
import Groq from 'groq-sdk';
import GroqV0 from 'groq-sdk-v0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardGroqStream } from './guard-groq-stream.ts';

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;
type Then = 'end' | 'cut' | 'stall';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

function chunk(content: string | null, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: 'llama-3.3-70b-versatile',
    choices: [
      { index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finishReason },
    ],
    ...(finishReason !== null ? { x_groq: { id: 'req_01jgroqexample0000000000' } } : {}),
  });
}
const sse = (events: Array<{ data: string }>, then: Then) => ({
  response: { kind: 'sse' as const, events, then },
});

const complete = sse(
  [{ data: chunk('Hel') }, { data: chunk('lo') }, { data: chunk(null, 'stop') }, { data: '[DONE]' }],
  'end',
);
const noFinish = sse([{ data: chunk('Hel') }, { data: chunk('lo') }], 'end');
const cut = sse([{ data: chunk('Hel') }, { data: chunk('lo') }], 'cut');
const stall = sse([{ data: chunk('Hel') }], 'stall');
const errorEvent = sse(
  [
    { data: chunk('Hel') },
    {
      data: JSON.stringify({
        error: {
          message:
            "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
          type: 'invalid_request_error',
          code: 'tool_use_failed',
          failed_generation: '<function=x{"q": "SECRET-MODEL-OUTPUT"}',
        },
      }),
    },
  ],
  'end',
);
const filtered = sse(
  [{ data: chunk('Once') }, { data: chunk(null, 'content_filter') }, { data: '[DONE]' }],
  'end',
);

const SDKS = [
  {
    alias: 'groq-sdk',
    create: (baseURL: string) => new Groq({ apiKey: 'gsk_test', baseURL, maxRetries: 0, timeout: 5000 }),
  },
  {
    alias: 'groq-sdk-v0',
    create: (baseURL: string) => new GroqV0({ apiKey: 'gsk_test', baseURL, maxRetries: 0, timeout: 5000 }),
  },
] as const;

async function openStream(alias: string, scenario: Parameters<LoopbackServer['baseUrlFor']>[0]) {
  const sdk = SDKS.find((candidate) => candidate.alias === alias)!;
  const client = sdk.create(server.baseUrlFor(scenario)) as unknown as Groq;
  return client.chat.completions.create({
    model: 'llama-3.3-70b-versatile',
    messages: [{ role: 'user', content: 'hello' }],
    stream: true,
  });
}

async function drain(stream: AsyncIterable<unknown>): Promise<{ chunks: unknown[]; error?: unknown }> {
  const chunks: unknown[] = [];
  try {
    for await (const item of stream) chunks.push(item);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

for (const { alias } of SDKS) {
  describe(`guardGroqStream through ${alias}`, () => {
    it('passes a complete stream through untouched', async () => {
      const raw = await drain(await openStream(alias, complete));
      const guarded = await drain(
        guardGroqStream(await openStream(alias, complete), { idleTimeoutMs: 2000 }),
      );
      expect(guarded.error).toBeUndefined();
      expect(guarded.chunks).toEqual(raw.chunks);
      expect(guarded.chunks).toHaveLength(3);
    });

    it('turns an end without a finish_reason into interrupted, with what was delivered', async () => {
      const raw = await drain(await openStream(alias, noFinish));
      expect(raw.error).toBeUndefined(); // the SDK itself says nothing
      const { chunks, error } = await drain(
        guardGroqStream(await openStream(alias, noFinish), { idleTimeoutMs: 2000 }),
      );
      expect(chunks).toHaveLength(2);
      expect(FaultlineError.isInstance(error)).toBe(true);
      const failure = error as FaultlineError;
      expect(failure.classification.reason).toBe('interrupted');
      expect(failure.delivered).toEqual({ chunks: 2, characters: 5 });
    });

    it('classifies a cut stream as interrupted mid-stream, cause = what the SDK threw', async () => {
      const { error } = await drain(guardGroqStream(await openStream(alias, cut), { idleTimeoutMs: 2000 }));
      const failure = error as FaultlineError;
      expect(FaultlineError.isInstance(failure)).toBe(true);
      expect(failure.classification.reason).toBe('interrupted');
      expect(failure.metadata.networkPhase).toBe('stream');
      expect(failure.delivered?.chunks).toBe(2);
      expect(failure.cause).toBeInstanceOf(Error);
    });

    it('ends a stalled stream with its idle timer (groq-sdk timeouts do not cover stream reads)', async () => {
      const started = Date.now();
      const { chunks, error } = await drain(
        guardGroqStream(await openStream(alias, stall), { idleTimeoutMs: 300 }),
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(chunks).toHaveLength(1);
      expect((error as FaultlineError).classification.reason).toBe('interrupted');
    });

    it('classifies an error event with groqExtractor (tool_use_failed, never the failed_generation text)', async () => {
      const { error } = await drain(
        guardGroqStream(await openStream(alias, errorEvent), { idleTimeoutMs: 2000 }),
      );
      const failure = error as FaultlineError;
      expect(failure.metadata.provider).toBe('groq');
      expect(failure.metadata.providerCode).toBe('tool_use_failed');
      expect(failure.classification.reason).toBe('invalid_request');
      expect(JSON.stringify(failure.toErrorReport())).not.toContain('SECRET-MODEL-OUTPUT');
    });

    it('turns a content_filter finish into content_policy', async () => {
      const { error } = await drain(
        guardGroqStream(await openStream(alias, filtered), { idleTimeoutMs: 2000 }),
      );
      expect((error as FaultlineError).classification.reason).toBe('content_policy');
    });
  });
}
