import { describe, expect, it } from 'vitest';
import { faultlineErrorHandler as expressHandler } from './express.ts';
import { faultlineErrorHandler as fastifyHandler } from './fastify.ts';
import { faultlineErrors } from './hono.ts';
import { type FaultlineHttpOptions, problemResponseFor } from './index.ts';

// Every documented key, written against the type: a key added to FaultlineHttpOptions and not here
// fails the type check; one refused by the handlers fails the test.
const EVERY_KEY = {
  disclosure: undefined,
  typePrefix: undefined,
  instanceFromPath: undefined,
} satisfies Record<keyof FaultlineHttpOptions, undefined>;

const entries: ReadonlyArray<readonly [string, (options: FaultlineHttpOptions) => unknown]> = [
  ['faultlineErrorHandler', (options) => expressHandler(options)],
  ['faultlineErrorHandler', (options) => fastifyHandler(options)],
  ['faultlineErrors', (options) => faultlineErrors(options)],
  ['problemResponseFor', (options) => problemResponseFor(new Error('boom'), options)],
];

describe('unknown option keys', () => {
  for (const [name, call] of entries) {
    it(`${name} refuses an unknown key with a TypeError naming it and the nearest valid one`, () => {
      // @ts-expect-error: disclose is not an option (disclosure is)
      const refused = () => call({ disclose: 'full' });
      expect(refused).toThrow(TypeError);
      expect(refused).toThrow(`unknown option "disclose" for ${name}; did you mean "disclosure"?`);
    });

    it(`${name} accepts every documented key`, () => {
      expect(() => call(EVERY_KEY)).not.toThrow();
    });
  }
});
