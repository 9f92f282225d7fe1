import { FaultlineError } from '@faultline/render';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFaultlineError, problemResponseFor } from './index.ts';
import { type Provider, SCENARIOS, startProvider } from './test-support.ts';

let provider: Provider;
let failure: FaultlineError;

beforeAll(async () => {
  provider = await startProvider();
  failure = (await provider.complete('rateLimit').catch((error: unknown) => error)) as FaultlineError;
  expect(FaultlineError.isInstance(failure)).toBe(true);
});
afterAll(() => provider?.close());

/** A Proxy whose every trap throws: what a hostile or broken library may throw. */
const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('get');
    },
    has() {
      throw new Error('has');
    },
    getPrototypeOf() {
      throw new Error('getPrototypeOf');
    },
  },
);

describe('problemResponseFor is total', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'boom'],
    ['a number', 42],
    ['a plain Error', new Error('plain')],
    ['a Proxy whose traps throw', hostile],
  ])('leaves %s to the framework', (_name, value) => {
    expect(problemResponseFor(value)).toBeUndefined();
  });

  it('finds the failure under wrappers, and stops on a cycle without one', () => {
    const outer = new Error('outer', { cause: new Error('middle', { cause: failure }) });
    expect(findFaultlineError(outer)).toBe(failure);
    expect(problemResponseFor(outer)?.status).toBe(SCENARIOS.rateLimit!.expected.httpStatus);
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    (first as { cause?: unknown }).cause = second;
    expect(problemResponseFor(first)).toBeUndefined();
  });
});

describe('options reach render', () => {
  it('sets instance from the path when asked, and the type prefix', () => {
    const reason = SCENARIOS.rateLimit!.expected.reason;
    expect(problemResponseFor(failure, {}, '/chat')?.body.instance).toBeUndefined();
    const answer = problemResponseFor(
      failure,
      { instanceFromPath: true, typePrefix: 'https://errors.example/' },
      '/chat',
    );
    expect(answer?.body.instance).toBe('/chat');
    expect(answer?.body.type).toBe(`https://errors.example/${reason}`);
  });
});
