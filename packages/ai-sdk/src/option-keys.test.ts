import { describe, expect, it } from 'vitest';
import { type FaultlineAiSdkOptions, faultlineMiddleware, withFaultlineEmbedding } from './index.ts';

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
