import { describe, expect, it } from 'vitest';
import {
  type FallbackTarget,
  type FaultlineOtelOptions,
  faultlineOnRetry,
  recordFailure,
  recordFallback,
} from './index.ts';

// Every documented key, written against the type: a key added to FaultlineOtelOptions and not here
// fails the type check; one refused by the entry points fails the test.
const EVERY_KEY = {
  span: undefined,
  disclosure: undefined,
  genAiProviderName: undefined,
  meterProvider: undefined,
} satisfies Record<keyof FaultlineOtelOptions, undefined>;

const entries: ReadonlyArray<readonly [string, (options: FaultlineOtelOptions) => unknown]> = [
  ['recordFailure', (options) => recordFailure(new Error('boom'), options)],
  ['faultlineOnRetry', (options) => faultlineOnRetry(options)],
  ['recordFallback', (options) => recordFallback(new Error('boom'), { provider: 'openai' }, options)],
];

describe('unknown option keys', () => {
  for (const [name, call] of entries) {
    it(`${name} refuses an unknown key with a TypeError naming it and the nearest valid one`, () => {
      // @ts-expect-error: meterProvder is misspelt
      const refused = () => call({ meterProvder: {} });
      expect(refused).toThrow(TypeError);
      expect(refused).toThrow(`unknown option "meterProvder" for ${name}; did you mean "meterProvider"?`);
    });

    it(`${name} accepts every documented key`, () => {
      expect(() => call(EVERY_KEY)).not.toThrow();
    });
  }
});

describe('recordFallback', () => {
  it('refuses an unknown key of its target, naming it and the nearest valid one', () => {
    const refused = () => recordFallback(new Error('boom'), { modelId: 'gpt-4o' } as FallbackTarget);
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "modelId" in "to" for recordFallback; did you mean "model"?');
  });

  it('accepts every key of its target', () => {
    const target = { provider: undefined, model: undefined } satisfies Record<
      keyof FallbackTarget,
      undefined
    >;
    expect(recordFallback(new Error('boom'), target)).toBeUndefined();
  });
});
