import { classify } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openrouterExtractor } from './extract-openrouter.ts';
import { withClassifiedErrors } from './index.ts';

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('openrouterExtractor leaves errors that are not from OpenRouter to the next extractor', () => {
  it('returns undefined for real errors thrown by code and for plain values', () => {
    const typeError = thrownBy(() => (null as unknown as { call(): void }).call());
    const rangeError = thrownBy(() => new Array(-1));
    expect(typeError).toBeInstanceOf(TypeError);
    expect(rangeError).toBeInstanceOf(RangeError);
    for (const value of [typeError, rangeError, {}, { message: 'x' }, new Error('x'), 'x', null, undefined]) {
      expect(openrouterExtractor.extract(value)).toBeUndefined();
    }
  });
});

describe('openrouterExtractor is total', () => {
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
    expect(() => openrouterExtractor.extract(hostile)).not.toThrow();
    const cyclic = new Error('cyclic') as Error & { cause?: unknown };
    cyclic.cause = new Error('back', { cause: cyclic });
    expect(() => openrouterExtractor.extract(cyclic)).not.toThrow();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
        const metadata = openrouterExtractor.extract(value);
        return metadata === undefined || metadata.provider === 'openrouter';
      }),
      { seed: 20261121, numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.record({
          statusCode: fc.anything(),
          headers: fc.anything(),
          body: fc.anything(),
          rawResponse: fc.anything(),
          contentType: fc.anything(),
        }),
        (fields) => {
          // The fields of @openrouter/sdk's OpenRouterError, with values of any type.
          const value = Object.assign(new Error('x'), fields, { name: 'TooManyRequestsResponseError' });
          const metadata = openrouterExtractor.extract(value);
          return (
            metadata === undefined || (metadata.provider === 'openrouter' && classify(metadata) !== undefined)
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
