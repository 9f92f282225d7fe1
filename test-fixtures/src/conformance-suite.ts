/**
 * The conformance suite every adapter's extractor and `withClassifiedErrors` pass: it leaves what
 * is not its SDK's to the next extractor, it is total (arbitrary values, hostile proxies, cyclic
 * causes, errors shaped like its SDK's with fields of any kind), and `withClassifiedErrors` turns
 * what `fn` throws into a FaultlineError whose cause is the thrown value. Import it from tests only
 * (`@faultline/test-fixtures/conformance-suite`): it registers vitest suites.
 */

import { classify, type Extractor } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

export interface ConformanceSuiteOptions {
  /** The provider key its metadata carries; the extractor is named `${provider}Extractor` in titles. */
  readonly provider: string;
  /** The provider as a reader names it ("Hugging Face"). */
  readonly label: string;
  readonly extractor: Extractor;
  /** Errors shaped like the SDK's own (its class or name) with fields of any kind. */
  readonly sdkShaped: fc.Arbitrary<unknown>;
  /** The adapter's `withClassifiedErrors`. */
  readonly withClassifiedErrors: (fn: () => Promise<never>, options: { retry: false }) => Promise<unknown>;
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

/** Registers the adapter's conformance suite. */
export function conformanceSuite(options: ConformanceSuiteOptions): void {
  const { provider, extractor } = options;
  const name = `${provider}Extractor`;

  describe(`${name} leaves errors that are not from ${options.label} to the next extractor`, () => {
    it('returns undefined for real errors thrown by code and for plain values', () => {
      const typeError = thrownBy(() => (null as unknown as { call(): void }).call());
      const rangeError = thrownBy(() => new Array(-1));
      expect(typeError).toBeInstanceOf(TypeError);
      expect(rangeError).toBeInstanceOf(RangeError);
      for (const value of [
        typeError,
        rangeError,
        {},
        { message: 'x' },
        new Error('x'),
        'x',
        null,
        undefined,
      ]) {
        expect(extractor.extract(value)).toBeUndefined();
      }
    });
  });

  describe(`${name} is total`, () => {
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
      expect(() => extractor.extract(hostile)).not.toThrow();
      const cyclic = new Error('cyclic') as Error & { cause?: unknown };
      cyclic.cause = new Error('back', { cause: cyclic });
      expect(() => extractor.extract(cyclic)).not.toThrow();
      fc.assert(
        fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
          const metadata = extractor.extract(value);
          return metadata === undefined || metadata.provider === provider;
        }),
        { seed: 20261121, numRuns: 300 },
      );
      fc.assert(
        fc.property(options.sdkShaped, (value) => {
          const metadata = extractor.extract(value);
          return (
            metadata === undefined || (metadata.provider === provider && classify(metadata) !== undefined)
          );
        }),
        { seed: 20261121, numRuns: 300 },
      );
    });
  });

  describe('withClassifiedErrors', () => {
    it('turns what fn throws into a FaultlineError whose cause is the thrown value', async () => {
      const thrown = new TypeError('not a provider error');
      const caught = await options
        .withClassifiedErrors(
          async () => {
            throw thrown;
          },
          { retry: false },
        )
        .catch((error: unknown) => error);
      expect(FaultlineError.isInstance(caught)).toBe(true);
      expect((caught as { cause?: unknown }).cause).toBe(thrown);
    });
  });
}
