import { describe, expect, it } from 'vitest';
import {
  type AiSdkClassifyOptions,
  type AiSdkExtractorOptions,
  type AiSdkStreamPart,
  classifyAiSdkError,
  createAiSdkExtractor,
  type FaultlineAiSdkOptions,
  faultlineMiddleware,
  type GuardAiSdkStreamOptions,
  guardAiSdkStream,
  withFaultlineEmbedding,
} from './index.ts';
import {
  AI_SDK_CLASSIFY_OPTION_KEYS,
  AI_SDK_EXTRACTOR_OPTION_KEYS,
  GUARD_AI_SDK_STREAM_OPTION_KEYS,
} from './option-keys.ts';

// Every documented key, written against the type: a key added to FaultlineAiSdkOptions and not here
// fails the type check; one refused by the entry points fails the test.
const EVERY_KEY = {
  retry: undefined,
  idempotent: undefined,
  deadlineMs: undefined,
  idleTimeoutMs: undefined,
  provider: undefined,
  override: undefined,
  onError: undefined,
} satisfies Record<keyof FaultlineAiSdkOptions, undefined>;

const embeddingModel = {
  provider: 'test',
  modelId: 'test-embedding',
  doEmbed: async () => ({ embeddings: [] }),
};

const entries: ReadonlyArray<readonly [string, (options: FaultlineAiSdkOptions) => unknown]> = [
  ['faultlineMiddleware', (options) => faultlineMiddleware(options)],
  ['withFaultlineEmbedding', (options) => withFaultlineEmbedding(embeddingModel, options)],
];

describe('unknown option keys', () => {
  for (const [name, call] of entries) {
    it(`${name} refuses an unknown key, and one of retry, with a TypeError naming it and the nearest valid one`, () => {
      // @ts-expect-error: maxRetries is not an option (retry is)
      const refused = () => call({ maxRetries: 3 });
      expect(refused).toThrow(TypeError);
      expect(refused).toThrow(`unknown option "maxRetries" for ${name}; did you mean "retry"?`);
      // @ts-expect-error: maxAtempts is misspelt
      const nested = () => call({ retry: { maxAtempts: 3 } });
      expect(nested).toThrow(
        `unknown option "maxAtempts" in "retry" for ${name}; did you mean "maxAttempts"?`,
      );
    });

    it(`${name} accepts every documented key`, () => {
      expect(() => call(EVERY_KEY)).not.toThrow();
    });
  }
});

describe('unknown option keys of classifyAiSdkError, guardAiSdkStream and createAiSdkExtractor', () => {
  async function* parts(): AsyncGenerator<AiSdkStreamPart> {
    yield { type: 'text-delta', text: 'hello' };
    yield { type: 'finish', finishReason: 'stop' };
  }

  it('are a TypeError at the call naming the key and the nearest valid one', () => {
    const classify = () =>
      classifyAiSdkError(new Error('boom'), { provder: 'openai' } as AiSdkClassifyOptions);
    expect(classify).toThrow(TypeError);
    expect(classify).toThrow('unknown option "provder" for classifyAiSdkError; did you mean "provider"?');
    expect(() => guardAiSdkStream(parts(), { idleTimeout: 5 } as GuardAiSdkStreamOptions)).toThrow(
      'unknown option "idleTimeout" for guardAiSdkStream; did you mean "idleTimeoutMs"?',
    );
    // The guard decides its chunks and requires the finish part itself.
    expect(() => guardAiSdkStream(parts(), { requireTerminal: false } as GuardAiSdkStreamOptions)).toThrow(
      /^unknown option "requireTerminal" for guardAiSdkStream; /,
    );
    expect(() => createAiSdkExtractor({ providerId: 'openai.chat' } as AiSdkExtractorOptions)).toThrow(
      'unknown option "providerId" for createAiSdkExtractor; did you mean "provider"?',
    );
  });

  it('accept every documented key', async () => {
    const every = (table: Readonly<Record<string, true>>) =>
      Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
    expect(
      classifyAiSdkError(new Error('boom'), every(AI_SDK_CLASSIFY_OPTION_KEYS)).classification.reason,
    ).toBe('unknown');
    const read: AiSdkStreamPart[] = [];
    for await (const part of guardAiSdkStream(parts(), every(GUARD_AI_SDK_STREAM_OPTION_KEYS)))
      read.push(part);
    expect(read.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    expect(createAiSdkExtractor(every(AI_SDK_EXTRACTOR_OPTION_KEYS)).provider).toBe('ai-sdk');
  });
});
