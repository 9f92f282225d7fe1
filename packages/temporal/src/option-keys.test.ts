import { describe, expect, it } from 'vitest';
import { type FaultlineActivityOptions, toApplicationFailure, withFaultlineActivity } from './activity.ts';

// Every documented key, written against each options type (`satisfies Record<keyof Options, undefined>`):
// a key added to a type and not here fails the type check; one refused by the entry point fails the test.

describe('withFaultlineActivity options', () => {
  const call = (options: FaultlineActivityOptions) => withFaultlineActivity(async () => 'done', options);
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
  } satisfies Record<keyof FaultlineActivityOptions, undefined>;

  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    // @ts-expect-error: modle is not an option
    const refused = () => call({ modle: 1 });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "modle" for withFaultlineActivity; did you mean "model"?');
  });

  it('accepts every documented key', () => {
    expect(() => call(everyKey)).not.toThrow();
  });

  it('maxWaitMs: a TypeError at the call for a value that cannot be a wait', () => {
    for (const maxWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => call({ maxWaitMs }), String(maxWaitMs)).toThrow(/^withFaultlineActivity: maxWaitMs/);
      expect(() => toApplicationFailure({} as never, { maxWaitMs }), String(maxWaitMs)).toThrow(
        /^toApplicationFailure: maxWaitMs/,
      );
    }
  });
});
