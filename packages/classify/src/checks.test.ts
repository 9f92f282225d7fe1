import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as checks from './checks.ts';
import * as schemas from './schemas.ts';
import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_REASONS,
  NEXT_STEPS,
  RULE_IDS,
  USER_ACTION_KINDS,
} from './values.ts';

// The zod-free checks (checks.ts) must give the zod schema's verdict and output on every value:
// the adapters' paths validate with them, fromDict and the public schemas with zod.

/** What a `safeParse` says (zod's or a check's), in a form `toStrictEqual` compares (key order included). */
function verdict(
  parser: { safeParse(value: unknown): { success: boolean; data?: unknown } },
  value: unknown,
) {
  const result = parser.safeParse(value);
  return result.success
    ? { success: true, data: result.data, keys: keysOf(result.data) }
    : { success: false };
}

/** Every object's keys, depth first, so that a different key order is a difference. */
function keysOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return null;
  return Object.entries(value).map(([key, inner]) => [key, keysOf(inner)]);
}

const text = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'grapheme', minLength: 100, maxLength: 140 }),
  fc.string({ unit: 'binary', minLength: 110, maxLength: 250 }),
);
/** A value of the wrong kind for most fields, or a near miss of the right one. */
const wrong = fc.oneof(
  fc.anything(),
  fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -1, 2 ** 53, 399.5, 600, -0, 'x'),
  fc.integer({ min: 390, max: 610 }),
  fc.double(),
);
/** Mostly `valid`, sometimes a wrong value: every field is a near miss in about one sample of 25. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 24 }, { arbitrary: wrong, weight: 1 });
const oneOf = <T>(values: readonly T[]) => mostly(fc.constantFrom(...values));

const userAction = fc.record(
  { kind: oneOf(USER_ACTION_KINDS), detail: mostly(text) },
  { requiredKeys: ['kind'] },
);
const recovery = fc.record({
  rotateCredential: mostly(fc.boolean()),
  fallback: fc.boolean(),
  compress: mostly(fc.boolean()),
});
const decidedBy = mostly(
  fc.record({ rule: oneOf(RULE_IDS), evidence: mostly(text) }, { requiredKeys: ['rule'] }),
);
/** Mostly-valid classifications with fields dropped, mistyped, set to undefined, or added. */
const classificationLike = fc
  .tuple(
    fc.record(
      {
        category: oneOf(ERROR_CATEGORIES),
        reason: oneOf(FAILURE_REASONS),
        retryable: mostly(fc.boolean()),
        userAction: mostly(userAction),
        recovery: mostly(recovery),
        domain: oneOf(ERROR_DOMAINS),
        httpStatus: mostly(
          fc.oneof(fc.integer({ min: 400, max: 599 }), fc.constantFrom(399, 400, 599, 600, 450.5, -429)),
        ),
        nextStep: oneOf(NEXT_STEPS),
        retryAfterSeconds: mostly(
          fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(-0, -1e-9, 2 ** 60)),
        ),
        callerAborted: fc.boolean(),
        overridden: mostly(fc.boolean()),
        decidedBy,
      },
      {
        requiredKeys: [
          'category',
          'reason',
          'retryable',
          'userAction',
          'recovery',
          'domain',
          'httpStatus',
          'nextStep',
          'callerAborted',
        ],
      },
    ),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.anything(), { maxKeys: 2 }),
  )
  .map(([fields, extra]) => ({ ...extra, ...fields }));

describe('zod-free checks agree with the zod schemas', () => {
  it('Classification: the same verdict and the same output, key order included', () => {
    fc.assert(
      fc.property(fc.oneof(classificationLike, wrong), (value) => {
        expect(verdict(checks.Classification, value)).toStrictEqual(verdict(schemas.Classification, value));
      }),
      { numRuns: 4000 },
    );
  });

  it('Classification: every valid classification passes (a failing check cannot hide behind rejecting all)', () => {
    let passed = 0;
    fc.assert(
      fc.property(classificationLike, (value) => {
        if (schemas.Classification.safeParse(value).success) {
          passed++;
          expect(checks.Classification.safeParse(value).success).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
    expect(passed).toBeGreaterThan(20);
  });

  it('Classification: a class instance, an object without prototype and a getter read like zod', () => {
    const valid = schemas.Classification.parse({
      category: 'transient',
      reason: 'rate_limit',
      retryable: true,
      userAction: { kind: 'wait_and_retry' },
      recovery: { rotateCredential: true, fallback: true, compress: false },
      domain: 'runtime',
      httpStatus: 429,
      nextStep: 'retry',
      callerAborted: false,
      overridden: false,
    });
    class Holder {}
    const inherited = Object.create({ retryAfterSeconds: 3 });
    const withGetter = { ...valid };
    Object.defineProperty(withGetter, 'reason', { get: () => 'quota', enumerable: false });
    for (const value of [
      Object.assign(new Holder(), valid),
      Object.assign(Object.create(null), valid),
      Object.assign(inherited, valid),
      withGetter,
      [valid],
      new Date(),
    ])
      expect(verdict(checks.Classification, value)).toStrictEqual(verdict(schemas.Classification, value));
  });

  it('Classification: a throwing getter fails the check, never throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(checks.Classification.safeParse(hostile).success).toBe(false);
  });

  it('each enum has the schema options, in order, and the same verdict', () => {
    const pairs = [
      [checks.ErrorCategory, schemas.ErrorCategory],
      [checks.FailureReason, schemas.FailureReason],
      [checks.UserActionKind, schemas.UserActionKind],
      [checks.ErrorDomain, schemas.ErrorDomain],
      [checks.NextStep, schemas.NextStep],
      [checks.FailureOrigin, schemas.FailureOrigin],
      [checks.NetworkPhase, schemas.NetworkPhase],
      [checks.SdkCondition, schemas.SdkCondition],
      [checks.RuleId, schemas.RuleId],
    ] as const;
    for (const [check, schema] of pairs) {
      expect(check.options).toEqual(schema.options);
      fc.assert(
        fc.property(fc.oneof(fc.constantFrom(...schema.options), wrong, fc.string()), (value) => {
          expect(verdict(check, value)).toStrictEqual(verdict(schema, value));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('fitsLength counts code points, as zod 4 does', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.integer({ min: 0, max: 12 }),
        (value, max) => {
          expect(checks.fitsLength(value, max)).toBe(z.string().max(max).safeParse(value).success);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
