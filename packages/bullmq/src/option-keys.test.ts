import { describe, expect, it } from 'vitest';
import {
  type FaultlineBackoffOptions,
  type FaultlineProcessorOptions,
  faultlineBackoffStrategy,
  withFaultlineProcessor,
} from './bullmq-bridge.ts';

// Every documented key, written against each options type (`satisfies Record<keyof Options, undefined>`):
// a key added to a type and not here fails the type check; one refused by the entry point fails the test.

describe('withFaultlineProcessor options', () => {
  const call = (options: FaultlineProcessorOptions) => withFaultlineProcessor(async () => 'done', options);
  const everyKey = {
    extractors: undefined,
    signal: undefined,
    model: undefined,
    provider: undefined,
    operation: undefined,
    family: undefined,
    override: undefined,
    idempotent: undefined,
    now: undefined,
    streaming: undefined,
    delivered: undefined,
    maxWaitMs: undefined,
  } satisfies Record<keyof FaultlineProcessorOptions, undefined>;

  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    // @ts-expect-error: modle is not an option
    const refused = () => call({ modle: 1 });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "modle" for withFaultlineProcessor; did you mean "model"?');
  });

  it('accepts every documented key', () => {
    expect(() => call(everyKey)).not.toThrow();
  });

  it('maxWaitMs: a TypeError at the call for a value that cannot be a wait', () => {
    for (const maxWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => call({ maxWaitMs }), String(maxWaitMs)).toThrow(/^withFaultlineProcessor: maxWaitMs/);
  });
});

describe('faultlineBackoffStrategy options', () => {
  const call = (options: FaultlineBackoffOptions) => faultlineBackoffStrategy(options);
  const everyKey = { baseDelayMs: undefined, maxDelayMs: undefined } satisfies Record<
    keyof FaultlineBackoffOptions,
    undefined
  >;

  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    // @ts-expect-error: maxDelay is not an option
    const refused = () => call({ maxDelay: 1 });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow(
      'unknown option "maxDelay" for faultlineBackoffStrategy; did you mean "maxDelayMs"?',
    );
  });

  it('accepts every documented key', () => {
    expect(() => call(everyKey)).not.toThrow();
  });
});
