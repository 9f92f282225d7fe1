import { classify } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cohereExtractor } from './extract-cohere.ts';
import { withClassifiedErrors } from './index.ts';

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('cohereExtractor leaves errors that are not from Cohere to the next extractor', () => {
  it('returns undefined for real errors thrown by code and for plain values', () => {
    const typeError = thrownBy(() => (null as unknown as { call(): void }).call());
    const rangeError = thrownBy(() => new Array(-1));
    expect(typeError).toBeInstanceOf(TypeError);
    expect(rangeError).toBeInstanceOf(RangeError);
    for (const value of [typeError, rangeError, {}, { message: 'x' }, new Error('x'), 'x', null, undefined]) {
      expect(cohereExtractor.extract(value)).toBeUndefined();
    }
  });
});

describe('cohereExtractor is total', () => {
  it('never throws on arbitrary values, hostile proxies or cyclic causes', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(() => cohereExtractor.extract(hostile)).not.toThrow();
    const cyclic = new Error('cyclic') as Error & { cause?: unknown };
    cyclic.cause = new Error('back', { cause: cyclic });
    expect(() => cohereExtractor.extract(cyclic)).not.toThrow();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const metadata = cohereExtractor.extract(value);
        return metadata === undefined || metadata.provider === 'cohere';
      }),
      { seed: 20261121, numRuns: 300 },
    );
    // Fields of any kind on an error whose prototype chain is cohere-ai's (a class named CohereError).
    class CohereError extends Error {}
    fc.assert(
      fc.property(
        fc.record({
          name: fc.oneof(fc.constant('TooManyRequestsError'), fc.string()),
          message: fc.anything(),
          statusCode: fc.anything(),
          body: fc.anything(),
          rawResponse: fc.anything(),
          cause: fc.anything(),
        }),
        (fields) => {
          const value = Object.assign(new CohereError('x'), fields);
          const metadata = cohereExtractor.extract(value);
          return (
            metadata === undefined || (metadata.provider === 'cohere' && classify(metadata) !== undefined)
          );
        },
      ),
      { seed: 20261121, numRuns: 300 },
    );
  });
});

describe('withClassifiedErrors', () => {
  it('turns what fn throws into a FaultlineError whose cause is the thrown value', async () => {
    const thrown = new TypeError('not a provider error');
    const caught = await withClassifiedErrors(
      async () => {
        throw thrown;
      },
      { retry: false },
    ).catch((error: unknown) => error);
    expect(FaultlineError.isInstance(caught)).toBe(true);
    expect((caught as FaultlineError).cause).toBe(thrown);
  });
});
