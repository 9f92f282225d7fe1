import { describe, expect, it } from 'vitest';
import {
  type FaultlineRunOptions,
  faultlineRun,
  type RestateErrorOptions,
  toRestateError,
} from './restate-bridge.ts';

/** The part of a Restate context faultlineRun uses; never called here: the check comes first. */
const context = {
  run: () => {
    throw new Error('not reached');
  },
} as unknown as Parameters<typeof faultlineRun>[0];

// Every documented key, written against each options type (`satisfies Record<keyof Options, undefined>`):
// a key added to a type and not here fails the type check; one refused by the entry point fails the test.

describe('toRestateError options', () => {
  const call = (options: RestateErrorOptions) => toRestateError(new Error('boom'), options);
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
  } satisfies Record<keyof RestateErrorOptions, undefined>;

  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    // @ts-expect-error: modle is not an option
    const refused = () => call({ modle: 1 });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "modle" for toRestateError; did you mean "model"?');
  });

  it('accepts every documented key', () => {
    expect(() => call(everyKey)).not.toThrow();
  });

  it('maxWaitMs: a TypeError at the call for a value that cannot be a wait', () => {
    for (const maxWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => call({ maxWaitMs }), String(maxWaitMs)).toThrow(/^toRestateError: maxWaitMs/);
      expect(
        () => faultlineRun(context, 'call', async () => 'done', { maxWaitMs }),
        String(maxWaitMs),
      ).toThrow(/^faultlineRun: maxWaitMs/);
    }
  });
});

describe('faultlineRun options', () => {
  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    const call = (options: FaultlineRunOptions<unknown>) =>
      faultlineRun(context, 'call', async () => 'done', options);
    // @ts-expect-error: runn is not an option
    const refused = () => call({ runn: {} });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "runn" for faultlineRun; did you mean "run"?');
  });
});
