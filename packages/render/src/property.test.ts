import { Classification, classify, FailureReason, type ProviderErrorMetadata } from '@faultline/classify';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  classifyError,
  ERROR_REPORT_SCHEMA_VERSION,
  ErrorReport,
  exitCodeFor,
  FaultlineContextError,
  FaultlineError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  fromDict,
  guardStream,
  httpResponseFor,
  problemDetails,
  toDict,
  toErrorReport,
  toolResultFor,
  toWireError,
} from './index.ts';
import { bindWithClassifiedErrors } from './toolkit.ts';

// render's generic withClassifiedErrors requires extractors; these tests read with the built-in ones alone.
const withBuiltIns = bindWithClassifiedErrors({ extractors: [] });

const SEED = 20261121;
const throwing = () => {
  throw new Error('trap');
};

/** A Proxy whose every trap throws. */
function hostileProxy(): unknown {
  return new Proxy(function target() {}, {
    get: throwing,
    set: throwing,
    has: throwing,
    ownKeys: throwing,
    getPrototypeOf: throwing,
    setPrototypeOf: throwing,
    getOwnPropertyDescriptor: throwing,
    defineProperty: throwing,
    deleteProperty: throwing,
    isExtensible: throwing,
    preventExtensions: throwing,
    apply: throwing,
    construct: throwing,
  });
}

function throwingGetters(): unknown {
  const descriptors: PropertyDescriptorMap = {};
  for (const key of [
    'message',
    'name',
    'cause',
    'code',
    'status',
    'stack',
    'errors',
    'issues',
    'constructor',
    'headers',
  ]) {
    descriptors[key] = { get: throwing, enumerable: true };
  }
  return Object.create(Error.prototype, descriptors);
}

function cyclicCause(): unknown {
  const first = new Error('first');
  const second = new Error('second', { cause: first });
  Object.defineProperty(first, 'cause', { value: second });
  return first;
}

const HUGE = `huge ${'x'.repeat(50 * 1024 * 1024)}`;

const errorLike = fc
  .record(
    {
      message: fc.string({ maxLength: 300 }),
      name: fc.constantFrom(
        'Error',
        'TypeError',
        'AbortError',
        'TimeoutError',
        'ZodError',
        'RangeError',
        'APIError',
      ),
      code: fc.oneof(
        fc.constantFrom(
          'ECONNRESET',
          'ENOTFOUND',
          'ECONNREFUSED',
          'UND_ERR_SOCKET',
          'ETIMEDOUT',
          'ABORT_ERR',
        ),
        fc.string(),
        fc.integer(),
      ),
      status: fc.oneof(fc.integer({ min: -1, max: 1000 }), fc.string()),
      issues: fc.array(fc.anything(), { maxLength: 3 }),
      headers: fc.dictionary(fc.string(), fc.string()),
    },
    { requiredKeys: ['message'] },
  )
  .map(({ message, ...rest }) => Object.assign(new Error(message), rest));

/**
 * A recipe for a thrown value: fast-check itself reads generated values (clone checks, printing),
 * so hostile values are built inside the property, from a box fast-check can handle.
 */
interface Recipe {
  readonly build: () => unknown;
  toString(): string;
}
const recipe = (label: string, build: () => unknown): Recipe => ({ build, toString: () => label });
const plain = (arbitrary: fc.Arbitrary<unknown>) =>
  arbitrary.map((value) => recipe(`plain ${fc.stringify(value)}`, () => value));

const leaf: fc.Arbitrary<Recipe> = fc.oneof(
  plain(fc.anything()),
  plain(fc.string()),
  plain(fc.constant(null)),
  plain(fc.constant(undefined)),
  plain(fc.double()),
  plain(fc.bigInt()),
  fc.string().map((description) => recipe('symbol', () => Symbol(description))),
  fc.constant(recipe('hostile proxy', hostileProxy)),
  fc.constant(recipe('throwing getters', throwingGetters)),
  fc.constant(recipe('cyclic cause', cyclicCause)),
  fc.constant(recipe('huge error', () => new Error(HUGE))),
  fc.constant(recipe('huge string', () => HUGE)),
  errorLike.map((error) => recipe(`error ${error.message}`, () => error)),
);

/** Any thrown value, sometimes wrapped in causes (plain, FaultlineError and context wrappers). */
const thrownRecipe: fc.Arbitrary<Recipe> = fc
  .tuple(leaf, fc.array(fc.constantFrom('error', 'context', 'faultline', 'typeerror'), { maxLength: 3 }))
  .map(([inner, wrappers]) =>
    recipe(`${inner} wrapped in [${wrappers.join(', ')}]`, () => {
      let current: unknown = inner.build();
      for (const wrapper of wrappers) {
        if (wrapper === 'error') current = new Error('wrapped', { cause: current });
        if (wrapper === 'typeerror') current = new TypeError('fetch failed', { cause: current });
        if (wrapper === 'context')
          current = new FaultlineContextError('context', { cause: current, model: 'm' });
        if (wrapper === 'faultline') current = classifyError(current, { family: 'completion' });
      }
      return current;
    }),
  );

const RUNS = { seed: SEED, numRuns: 150 };

function everyFormatter(report: ErrorReport): void {
  expect(typeof formatPanel(report, { color: true })).toBe('string');
  expect(typeof formatPanel(report, { color: false })).toBe('string');
  expect(typeof formatMarkdown(report)).toBe('string');
  expect(typeof formatForLlm(report)).toBe('string');
  expect(fromDict(JSON.parse(JSON.stringify(toDict(report))))).toStrictEqual(report);
  expect(JSON.parse(toolResultFor(report, { toolUseId: 'id' }).content).error).toBe(report.reason);
  expect(toWireError(report, { extra: 1 }).error).toBe(report.reason);
  expect([1, 2]).toContain(exitCodeFor(report));
  expect(problemDetails(report).status).toBe(report.httpStatus);
  expect(httpResponseFor(report).status).toBe(report.httpStatus);
}

describe('totality on arbitrary thrown values', () => {
  it('classifyError → a FaultlineError; toErrorReport → a valid report that round-trips', () => {
    fc.assert(
      fc.property(thrownRecipe, (thrown) => {
        const value = thrown.build();
        const error = classifyError(value);
        expect(FaultlineError.isInstance(error)).toBe(true);
        for (const report of [error.toErrorReport(), toErrorReport(value)]) {
          expect(v.is(ErrorReport, report)).toBe(true);
          expect(fromDict(toDict(report))).toStrictEqual(report);
          expect(fromDict(JSON.parse(JSON.stringify(report)))).toStrictEqual(report);
          expect(report.message.length).toBeLessThanOrEqual(2000);
          if (report.category === 'unknown') expect(report.retryable).toBe(false);
        }
      }),
      RUNS,
    );
  });
  it('every formatter, on the report and on the raw value', () => {
    fc.assert(
      fc.property(thrownRecipe, (thrown) => {
        const value = thrown.build();
        everyFormatter(toErrorReport(value));
        // Formatters also accept a thrown value directly and report on it first.
        expect(typeof formatPanel(value as Error)).toBe('string');
        expect(typeof formatForLlm(value as Error)).toBe('string');
        expect(typeof toWireError(value as Error).detail).toBe('string');
        expect(typeof httpResponseFor(value as Error).status).toBe('number');
      }),
      RUNS,
    );
  });
  it('classify is total on arbitrary metadata-shaped input', () => {
    const metadataLike = fc.oneof(
      fc.anything(),
      fc.record({
        provider: fc.oneof(fc.string(), fc.anything()),
        message: fc.oneof(fc.string(), fc.anything()),
        origin: fc.oneof(
          fc.constantFrom('http', 'network', 'timeout', 'abort', 'local', 'stream_event'),
          fc.anything(),
        ),
        statusCode: fc.oneof(fc.integer(), fc.double(), fc.anything()),
        retryAfterSeconds: fc.oneof(fc.double(), fc.anything()),
        quotaIds: fc.oneof(fc.array(fc.string()), fc.anything()),
      }),
      fc.constant('hostile'),
    );
    fc.assert(
      fc.property(metadataLike, fc.boolean(), (generated, idempotent) => {
        const metadata = generated === 'hostile' ? hostileProxy() : generated;
        const classification = classify(metadata as ProviderErrorMetadata, { idempotent });
        expect(v.is(Classification, classification)).toBe(true);
        expect(FailureReason.options).toContain(classification.reason);
      }),
      RUNS,
    );
  });
  it('withClassifiedErrors always rejects with a FaultlineError (no signal given, no retries)', async () => {
    await fc.assert(
      fc.asyncProperty(thrownRecipe, async (thrown) => {
        const value = thrown.build();
        let caught: unknown;
        try {
          await withBuiltIns(
            () => {
              throw value;
            },
            { retry: false },
          );
        } catch (error) {
          caught = error;
        }
        expect(FaultlineError.isInstance(caught)).toBe(true);
        if (FaultlineError.isInstance(value)) expect(caught).toBe(value);
        expect(v.is(ErrorReport, (caught as FaultlineError).toErrorReport())).toBe(true);
      }),
      RUNS,
    );
  });
  it('guardStream always ends with a FaultlineError carrying delivered', async () => {
    await fc.assert(
      fc.asyncProperty(
        thrownRecipe,
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
        async (thrown, chunks) => {
          const value = thrown.build();
          async function* source() {
            yield* chunks;
            throw value;
          }
          let caught: unknown;
          try {
            for await (const _chunk of guardStream(source())) {
              // drain
            }
          } catch (error) {
            caught = error;
          }
          expect(FaultlineError.isInstance(caught)).toBe(true);
          expect((caught as FaultlineError).toErrorReport().delivered?.chunks).toBe(chunks.length);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });
});

describe('any valid report round-trips', () => {
  const text = fc.string({ maxLength: 100 });
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const report = fc
    .record({
      errorType: text,
      message: fc.string({ maxLength: 2000 }),
      reason: fc.constantFrom(...FailureReason.options),
      retryable: fc.boolean(),
      detail: optional(text),
      model: fc.option(text, { nil: null }),
      provider: text,
      operation: optional(text),
      retryAfterSeconds: optional(fc.double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true })),
      statusCode: optional(fc.integer({ min: 100, max: 599 })),
      requestId: optional(text),
      delivered: optional(fc.record({ chunks: fc.nat(), characters: fc.nat() })),
      callerAborted: fc.boolean(),
      retryOnlyIfIdempotent: fc.boolean(),
      waitKind: fc.constantFrom('retry_after', 'quota_reset', 'provider_wait'),
      attempts: optional(
        fc.record({ made: fc.integer({ min: 1, max: 100 }), waitsMs: fc.array(fc.nat(), { maxLength: 99 }) }),
      ),
      retriesExhausted: fc.boolean(),
    })
    .map((fields) => {
      const base = classify({ provider: 'p', origin: 'unknown', message: '' });
      const value: Record<string, unknown> = {
        schemaVersion: ERROR_REPORT_SCHEMA_VERSION,
        retryOnlyIfIdempotent: fields.retryOnlyIfIdempotent,
        errorType: fields.errorType,
        message: fields.message,
        category: base.category,
        reason: fields.reason,
        retryable: fields.retryable,
        userAction:
          fields.detail === undefined ? { kind: 'unknown' } : { kind: 'unknown', detail: fields.detail },
        nextStep: base.nextStep,
        recovery: base.recovery,
        domain: base.domain,
        httpStatus: 500,
        provider: fields.provider,
        model: fields.model,
        callerAborted: fields.callerAborted,
        providerMetadata: {
          origin: 'http',
          ...(fields.statusCode === undefined ? {} : { statusCode: fields.statusCode }),
          ...(fields.requestId === undefined ? {} : { requestId: fields.requestId }),
        },
      };
      if (fields.operation !== undefined) value.operation = fields.operation;
      if (fields.retryAfterSeconds !== undefined) {
        value.retryAfterSeconds = fields.retryAfterSeconds;
        value.waitKind = fields.waitKind;
      }
      if (fields.attempts !== undefined) {
        value.attempts = fields.attempts;
        value.retriesExhausted = fields.retriesExhausted;
      }
      if (fields.delivered !== undefined) value.delivered = fields.delivered;
      return fromDict(value);
    });
  it('fromDict(toDict(r)) deep-equals r, and so does a JSON trip', () => {
    fc.assert(
      fc.property(report, (value) => {
        expect(fromDict(toDict(value))).toStrictEqual(value);
        expect(fromDict(JSON.parse(JSON.stringify(value)))).toStrictEqual(value);
        everyFormatter(value);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
