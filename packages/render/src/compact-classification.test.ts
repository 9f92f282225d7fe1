import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { describe, expect, it } from 'vitest';
import { compactClassification } from './compact-classification.ts';

// compactClassification hands back classify's answer in a smaller, shared form: equal answers give
// one frozen object, and the object is always deep-equal (same members, same order) to classify's.
// classify knows no provider, so one made-up provider name serves every kind of failure.

const rateLimited = (retryAfterSeconds?: number): ProviderErrorMetadata => ({
  provider: 'example',
  origin: 'http',
  statusCode: 429,
  message: 'Rate limit reached for requests',
  ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});

const FAILURES: readonly ProviderErrorMetadata[] = [
  rateLimited(),
  rateLimited(5.8),
  rateLimited(0),
  { provider: 'example', origin: 'http', statusCode: 401, message: 'invalid x-api-key' },
  { provider: 'example', origin: 'http', statusCode: 400, message: 'Input is too long for requested model.' },
  { provider: 'example', origin: 'network', message: 'fetch failed', networkPhase: 'connect' },
  { provider: 'example', origin: 'http', statusCode: 404, message: 'models/gemini-9 is not found' },
  { provider: 'example', origin: 'abort', message: 'The user aborted a request.' },
];

describe('compactClassification', () => {
  it("is deep-equal to classify's answer, key order included, for every kind of failure", () => {
    for (const metadata of FAILURES) {
      const answer = classify(metadata);
      const compact = compactClassification(answer);
      expect(compact).toEqual(answer);
      expect(Object.keys(compact)).toEqual(Object.keys(answer));
      expect(JSON.stringify(compact)).toBe(JSON.stringify(answer));
      expect(Object.isFrozen(compact)).toBe(true);
    }
  });

  it('gives one shared object for equal answers and distinct ones for answers that differ', () => {
    const first = compactClassification(classify(rateLimited(5.8)));
    expect(compactClassification(classify(rateLimited(5.8)))).toBe(first);
    expect(compactClassification(classify(rateLimited(6)))).not.toBe(first);
    expect(compactClassification(classify(rateLimited()))).not.toBe(first);
    expect(compactClassification(classify({ ...rateLimited(5.8), provider: 'another-provider' }))).toBe(
      first,
    );
    expect(compactClassification(classify(rateLimited(5.8), { idempotent: false }))).toEqual(
      classify(rateLimited(5.8), { idempotent: false }),
    );
  });

  it('keeps a wait of -0 apart from 0 (they print alike but are not the same value)', () => {
    const zero = compactClassification({ ...classify(rateLimited(0)), retryAfterSeconds: 0 });
    const negativeZero = compactClassification({ ...classify(rateLimited(0)), retryAfterSeconds: -0 });
    expect(negativeZero).not.toBe(zero);
    expect(Object.is(negativeZero.retryAfterSeconds, -0)).toBe(true);
  });
});
