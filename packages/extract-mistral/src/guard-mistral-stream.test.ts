import { FaultlineError } from '@faultline/render';
import { startLoopbackServer } from '@faultline/test-fixtures';
import { Mistral } from '@mistralai/mistralai';
import { Mistral as MistralV1 } from 'mistralai-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardMistralStream } from './guard-mistral-stream.ts';

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
    id: 'cmpl-e5cc70bb28c444948073e77776eb30ef',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: 'mistral-small-latest',
    choices: [
      { index: 0, delta: { role: 'assistant', content: content ?? '' }, finish_reason: finishReason },
    ],
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
        object: 'error',
        message: 'Service unavailable',
        type: 'internal_server_error',
        param: null,
        code: '3000',
      }),
    },
  ],
  'end',
);

const SDKS = [
  {
    alias: '@mistralai/mistralai',
    create: (serverURL: string) => new Mistral({ apiKey: 'test-key', serverURL }),
  },
  { alias: 'mistralai-v1', create: (serverURL: string) => new MistralV1({ apiKey: 'test-key', serverURL }) },
] as const;

async function openStream(alias: string, scenario: Parameters<LoopbackServer['baseUrlFor']>[0]) {
  const sdk = SDKS.find((candidate) => candidate.alias === alias)!;
  const client = sdk.create(server.baseUrlFor(scenario)) as unknown as Mistral;
  return client.chat.stream({
    model: 'mistral-small-latest',
    messages: [{ role: 'user', content: 'hello' }],
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
  describe(`guardMistralStream through ${alias}`, () => {
    it('passes a complete stream through untouched', async () => {
      const raw = await drain(await openStream(alias, complete));
      const guarded = await drain(
        guardMistralStream(await openStream(alias, complete), { idleTimeoutMs: 2000 }),
      );
      expect(guarded.error).toBeUndefined();
      expect(guarded.chunks).toEqual(raw.chunks);
      expect(guarded.chunks).toHaveLength(3);
    });

    it('turns an end without a finish reason into interrupted, with what was delivered', async () => {
      const raw = await drain(await openStream(alias, noFinish));
      expect(raw.error).toBeUndefined(); // the SDK itself says nothing
      const { chunks, error } = await drain(
        guardMistralStream(await openStream(alias, noFinish), { idleTimeoutMs: 2000 }),
      );
      expect(chunks).toHaveLength(2);
      const failure = error as FaultlineError;
      expect(FaultlineError.isInstance(failure)).toBe(true);
      expect(failure.classification.reason).toBe('interrupted');
      expect(failure.delivered).toEqual({ chunks: 2, characters: 5 });
    });

    it('classifies a cut stream as interrupted mid-stream', async () => {
      const { error } = await drain(
        guardMistralStream(await openStream(alias, cut), { idleTimeoutMs: 2000 }),
      );
      const failure = error as FaultlineError;
      expect(failure.classification.reason).toBe('interrupted');
      expect(failure.metadata.networkPhase).toBe('stream');
      expect(failure.delivered?.chunks).toBe(2);
      expect(failure.cause).toBeInstanceOf(TypeError);
    });

    it('ends a stalled stream with its idle timer', async () => {
      const started = Date.now();
      const { chunks, error } = await drain(
        guardMistralStream(await openStream(alias, stall), { idleTimeoutMs: 300 }),
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(chunks).toHaveLength(1);
      expect((error as FaultlineError).classification.reason).toBe('interrupted');
    });

    it('reads the raw ZodError of an error event with mistralExtractor: interrupted, not a local bug', async () => {
      const { chunks, error } = await drain(
        guardMistralStream(await openStream(alias, errorEvent), { idleTimeoutMs: 2000 }),
      );
      expect(chunks).toHaveLength(1);
      const failure = error as FaultlineError;
      expect(failure.metadata.provider).toBe('mistral');
      expect(failure.metadata.origin).toBe('malformed_response');
      expect(failure.classification.reason).toBe('interrupted');
      expect((failure.cause as Error).name).toBe('ZodError');
    });
  });
}
