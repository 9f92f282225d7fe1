import type { ClassifyErrorOptions } from '@faultline/render';
import { describe, expect, it } from 'vitest';
import { withFaultlineActivity } from './activity.ts';

// Every documented key, written against each options type (`satisfies Record<keyof Options, undefined>`):
// a key added to a type and not here fails the type check; one refused by the entry point fails the test.

describe('withFaultlineActivity options', () => {
  const call = (options: ClassifyErrorOptions) => withFaultlineActivity(async () => 'done', options);
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
  } satisfies Record<keyof ClassifyErrorOptions, undefined>;

  it('refuses an unknown key with a TypeError naming it and the nearest valid one', () => {
    // @ts-expect-error: modle is not an option
    const refused = () => call({ modle: 1 });
    expect(refused).toThrow(TypeError);
    expect(refused).toThrow('unknown option "modle" for withFaultlineActivity; did you mean "model"?');
  });

  it('accepts every documented key', () => {
    expect(() => call(everyKey)).not.toThrow();
  });
});
