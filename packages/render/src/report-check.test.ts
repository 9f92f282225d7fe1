import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  USER_ACTION_KINDS,
} from '@faultline/classify/toolkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorReport as ReportCheck, WAIT_KINDS } from './report-check.ts';
import { ErrorReport } from './report-schema.ts';

// The zod-free report check (report-check.ts, used where an adapter's path checks a report) must give
// the public zod schema's verdict and output (report-schema.ts, used by fromDict) on every value.

/** What a `safeParse` says (the zod schema's or the check's), in a form `toStrictEqual` compares (key order included). */
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

const wrong = fc.oneof(
  fc.anything(),
  fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 2 ** 53, 1.5, -0, 'x', []),
);
/** Mostly `valid`, sometimes a wrong value (one field in 200; the mutation property below does one per sample). */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 199 }, { arbitrary: wrong, weight: 1 });
const oneOf = <T>(values: readonly T[]) => mostly(fc.constantFrom(...values));
/** Strings around each limit (120, 512, 2000), in UTF-16 units and in code points. */
const text = (limit: number) =>
  mostly(
    fc.oneof(
      { arbitrary: fc.string({ maxLength: 8 }), weight: 60 },
      { arbitrary: fc.string({ unit: 'grapheme', minLength: limit - 2, maxLength: limit + 2 }), weight: 1 },
      { arbitrary: fc.string({ unit: 'binary', minLength: limit - 2, maxLength: 2 * limit + 2 }), weight: 1 },
      { arbitrary: fc.constantFrom('a'.repeat(limit), 'a'.repeat(limit + 1), '😀'.repeat(limit)), weight: 1 },
    ),
  );
const integer = (min: number, max: number) =>
  mostly(
    fc.oneof(
      { arbitrary: fc.integer({ min, max }), weight: 19 },
      { arbitrary: fc.constantFrom(min - 1, max + 1, min + 0.5), weight: 1 },
    ),
  );
/** A record whose optional keys are sometimes absent, sometimes present as undefined, plus stray keys. */
function record<T extends Record<string, fc.Arbitrary<unknown>>>(fields: T, required: (keyof T)[]) {
  const optional = Object.keys(fields).filter((key) => !required.includes(key));
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: required as never }),
      fc.subarray(optional, { maxLength: Math.min(1, optional.length) }),
      fc.oneof(
        { arbitrary: fc.constant({}), weight: 40 },
        { arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.anything(), { maxKeys: 1 }), weight: 1 },
      ),
    )
    .map(([value, undefinedKeys, stray]) => {
      const result: Record<string, unknown> = { ...stray, ...value };
      for (const key of undefinedKeys) result[key] = undefined;
      return result;
    });
}

const providerMetadata = record(
  {
    origin: oneOf(FAILURE_ORIGINS),
    statusCode: integer(100, 599),
    requestId: text(512),
    providerCode: text(512),
    providerType: text(512),
    sdkErrorType: text(512),
    networkCode: text(512),
    networkPhase: oneOf(NETWORK_PHASES),
    sdkAttempts: integer(0, 5),
  },
  ['origin'],
);
const reportLike = record(
  {
    schemaVersion: mostly(fc.constantFrom(2, 1, '2')),
    errorType: text(512),
    message: text(2000),
    category: oneOf(ERROR_CATEGORIES),
    reason: oneOf(FAILURE_REASONS),
    retryable: mostly(fc.boolean()),
    userAction: mostly(record({ kind: oneOf(USER_ACTION_KINDS), detail: text(2000) }, ['kind'])),
    nextStep: oneOf(NEXT_STEPS),
    recovery: mostly(
      record(
        { rotateCredential: mostly(fc.boolean()), fallback: fc.boolean(), compress: mostly(fc.boolean()) },
        ['rotateCredential', 'fallback', 'compress'],
      ),
    ),
    domain: oneOf(ERROR_DOMAINS),
    httpStatus: integer(400, 599),
    provider: text(512),
    model: mostly(fc.oneof(fc.constant(null), text(512))),
    operation: text(512),
    retryAfterSeconds: mostly(
      fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(-1e-9, -0)),
    ),
    waitKind: oneOf(WAIT_KINDS),
    retryOnlyIfIdempotent: mostly(fc.boolean()),
    attempts: mostly(
      record(
        {
          made: integer(1, 10),
          waitsMs: mostly(
            fc.oneof(
              fc.array(integer(0, 60_000), { maxLength: 4 }),
              fc.array(fc.nat(), { minLength: 99, maxLength: 102 }),
            ),
          ),
        },
        ['made', 'waitsMs'],
      ),
    ),
    retriesExhausted: mostly(fc.boolean()),
    callerAborted: mostly(fc.boolean()),
    providerMetadata: mostly(providerMetadata),
    delivered: mostly(
      record({ chunks: integer(0, 50), characters: integer(0, 5000) }, ['chunks', 'characters']),
    ),
    decidedBy: mostly(record({ rule: oneOf(RULE_IDS), evidence: text(120) }, ['rule'])),
  },
  [
    'schemaVersion',
    'errorType',
    'message',
    'category',
    'reason',
    'retryable',
    'userAction',
    'nextStep',
    'recovery',
    'domain',
    'httpStatus',
    'provider',
    'model',
    'retryOnlyIfIdempotent',
    'callerAborted',
    'providerMetadata',
  ],
);

describe('the zod-free report check agrees with the ErrorReport schema', () => {
  it('the same verdict and the same output, key order included', () => {
    let valid = 0;
    fc.assert(
      fc.property(
        fc.oneof({ arbitrary: reportLike, weight: 9 }, { arbitrary: wrong, weight: 1 }),
        (value) => {
          const expected = verdict(ErrorReport, value);
          if (expected.success) valid++;
          expect(verdict(ReportCheck, value)).toStrictEqual(expected);
        },
      ),
      { numRuns: 5000 },
    );
    // A check that rejected everything would agree on every invalid value: most samples must pass.
    expect(valid).toBeGreaterThan(250);
  });

  it('one field replaced by a wrong value, at any depth: the same verdict and output', () => {
    const paths = [
      ...Object.keys(ErrorReport.shape).map((key) => [key]),
      ['userAction', 'kind'],
      ['userAction', 'detail'],
      ['recovery', 'compress'],
      ['providerMetadata', 'origin'],
      ['providerMetadata', 'statusCode'],
      ['providerMetadata', 'sdkAttempts'],
      ['providerMetadata', 'stray'],
      ['attempts', 'made'],
      ['attempts', 'waitsMs'],
      ['delivered', 'chunks'],
      ['decidedBy', 'rule'],
      ['decidedBy', 'evidence'],
      ['stray'],
    ];
    fc.assert(
      fc.property(reportLike, fc.constantFrom(...paths), wrong, (report, path, value) => {
        const copy = structuredClone(report);
        let target: Record<string, unknown> = copy;
        for (const key of path.slice(0, -1)) {
          const inner = target[key];
          if (typeof inner !== 'object' || inner === null) return;
          target = inner as Record<string, unknown>;
        }
        target[path.at(-1) as string] = value;
        expect(verdict(ReportCheck, copy)).toStrictEqual(verdict(ErrorReport, copy));
      }),
      { numRuns: 3000 },
    );
  });

  it('an inherited enumerable key is an unknown key, a non-enumerable own one is not', () => {
    const [sample] = fc.sample(
      reportLike.filter((value) => ErrorReport.safeParse(value).success),
      { seed: 20261124, numRuns: 1 },
    );
    const report = verdict(ErrorReport, sample);
    expect(report.success).toBe(true);
    const inherited = Object.assign(Object.create({ stray: 1 }), report.data);
    const hidden = { ...(report.data as object) };
    Object.defineProperty(hidden, 'stray', { value: 1, enumerable: false });
    class Holder {}
    for (const value of [inherited, hidden, Object.assign(new Holder(), report.data), [report.data]])
      expect(verdict(ReportCheck, value)).toStrictEqual(verdict(ErrorReport, value));
  });

  it('a throwing getter fails the check, never throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(ReportCheck.safeParse(hostile).success).toBe(false);
  });
});
