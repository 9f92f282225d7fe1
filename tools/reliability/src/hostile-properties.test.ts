import { classify } from '@faultline/classify';
import { parseClassification } from '@faultline/classify/toolkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bounded } from './bounded.ts';
import { ENTRY_POINTS } from './entry-points.ts';
import { deepCauseChain, revokedProxy, throwingGetters, throwingProxy } from './hostile-corpus.ts';
import { KNOWN_DEFECTS } from './known-defects.ts';

/** One seed for every property: a failure is replayed exactly by re-running the suite. */
const SEED = 20_251_122;
/**
 * fast-check's default of 100 runs for the properties that call every entry point (each run is one
 * value through all of them; the named hostile shapes are covered one by one in
 * hostile-input.test.ts), more for the one that calls classify alone.
 */
export const PROPERTY_RUNS = { sdkShaped: 100, wrapped: 100, metadata: 1_000 } as const;

const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom('', '{', '{"error":', 'null', '[]', '<html>502</html>', 'retry-after: 5', 'Infinity', '-0'),
);

const headerValue = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.array(text, { maxLength: 3 }),
);
const headerName = fc.oneof(
  fc.constantFrom(
    'retry-after',
    'Retry-After',
    'retry-after-ms',
    'x-request-id',
    'x-should-retry',
    'request-id',
  ),
  fc.string({ maxLength: 20 }),
);
const headers = fc.oneof(
  fc.dictionary(headerName, headerValue, { maxKeys: 12 }),
  fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 }),
  fc
    .array(fc.tuple(headerName, headerValue), { maxLength: 12 })
    .map((pairs) => new Map<unknown, unknown>(pairs)),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('retry-after', 'x-request-id', 'retry-after-ms'),
        fc.string({ maxLength: 20 }),
      ),
      {
        maxLength: 6,
      },
    )
    .map((pairs) => {
      const result = new Headers();
      for (const [name, value] of pairs) {
        try {
          result.set(name, value);
        } catch {
          // An invalid header value: leave it out, as fetch would refuse it.
        }
      }
      return result;
    }),
  // 'PROXY' stands for a Proxy whose traps throw, built with the error (fast-check must not see it).
  fc.constantFrom(null, undefined, 42, 'headers', 'PROXY'),
);

const body = fc.oneof(
  text,
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({
    error: fc.record(
      {
        message: fc.oneof(text, fc.anything({ maxDepth: 2 })),
        type: fc.oneof(text, fc.integer()),
        code: fc.oneof(text, fc.integer(), fc.constant(null)),
        status: fc.oneof(text, fc.integer()),
        details: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.uint8Array({ maxLength: 64 }),
  fc.anything({ maxDepth: 3, withBoxedValues: true, withNullPrototype: true, withMap: true, withSet: true }),
);

const status = fc.oneof(
  fc.constantFrom(400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 451, 500, 502, 503, 504, 529),
  fc.integer({ min: -1_000, max: 1_000 }),
  fc.double(),
  text,
  fc.constant(undefined),
);

const errorName = fc.constantFrom(
  'APIError',
  'RateLimitError',
  'InternalServerError',
  'APIConnectionError',
  'APIConnectionTimeoutError',
  'APIUserAbortError',
  'ApiError',
  'ThrottlingException',
  'ValidationException',
  'SDKError',
  'HTTPValidationError',
  'AbortError',
  'TimeoutError',
  'TypeError',
  'Error',
);

/**
 * Errors shaped like any of the six SDKs' errors, with every field drawn from hostile values. Each
 * arbitrary gives a builder, not the value: fast-check itself would trip over a hostile Proxy while
 * reporting it, and each entry point gets a fresh value.
 */
const sdkShaped = fc
  .record({
    name: errorName,
    message: text,
    status,
    headers,
    error: body,
    body,
    code: fc.oneof(
      fc.constantFrom('ECONNRESET', 'ENOTFOUND', 'ECONNREFUSED', 'ETIMEDOUT', 'UND_ERR_SOCKET'),
      text,
    ),
    metadata: fc.option(fc.record({ httpStatusCode: status, requestId: text, attempts: fc.integer() })),
  })
  .map((fields) => () => {
    const error = new Error(fields.message);
    Object.assign(error, {
      name: fields.name,
      status: fields.status,
      statusCode: fields.status,
      headers: fields.headers === 'PROXY' ? throwingProxy() : fields.headers,
      error: fields.error,
      body: fields.body,
      code: fields.code,
    });
    if (fields.metadata !== null) Object.assign(error, { $metadata: fields.metadata, $fault: 'server' });
    return error;
  });

/** Any value, then made hostile: a Proxy around it, getters that throw, a cause chain, an aggregate. */
const wrapped: fc.Arbitrary<() => unknown> = fc
  .tuple(
    fc.oneof(
      sdkShaped,
      fc
        .anything({ maxDepth: 3, withBoxedValues: true, withNullPrototype: true })
        .map((value) => () => value),
    ),
    fc.constantFrom(
      'as is',
      'proxy',
      'revoked',
      'getters',
      'cause loop',
      'deep cause',
      'aggregate',
      'frozen',
    ),
    fc.array(fc.constantFrom('message', 'name', 'cause', 'status', 'headers', 'error', 'body', 'code'), {
      maxLength: 4,
    }),
  )
  .map(([build, how, keys]) => () => {
    const value = build();
    switch (how) {
      case 'proxy':
        return typeof value === 'object' && value !== null ? throwingProxy(value) : throwingProxy();
      case 'revoked':
        return revokedProxy();
      case 'getters':
        return throwingGetters(value instanceof Error ? value : new Error('getters'), keys);
      case 'cause loop': {
        const head = new Error('loop head', { cause: value });
        const tail = new Error('loop tail', { cause: head });
        Object.defineProperty(head, 'cause', { value: tail });
        return head;
      }
      case 'deep cause':
        return new Error('deep', { cause: Object.assign(deepCauseChain(500), { inner: value }) });
      case 'aggregate':
        return new AggregateError([value, throwingProxy(), null, value], 'aggregate');
      case 'frozen':
        return typeof value === 'object' && value !== null ? Object.freeze(value) : value;
      default:
        return value;
    }
  });

/** Entry points with a known defect that generated values trigger (see known-defects.ts). */
const PROPERTY_ENTRY_POINTS = ENTRY_POINTS.filter(
  (entryPoint) =>
    !KNOWN_DEFECTS.some(
      (defect) => defect.failsOnProxies === true && defect.entryPoints.test(entryPoint.name),
    ),
);

async function everyEntryPointHolds(build: () => unknown): Promise<void> {
  for (const entryPoint of PROPERTY_ENTRY_POINTS) {
    const outcome = await bounded(() => entryPoint.call(build()));
    if (outcome.hung) throw new Error(`${entryPoint.name} hung`);
    if (outcome.error !== undefined) throw new Error(`${entryPoint.name}: ${String(outcome.error)}`);
  }
}

describe(`properties over generated hostile values (fast-check, seed ${SEED})`, () => {
  it(`every entry point classifies SDK-shaped errors with hostile fields (${PROPERTY_RUNS.sdkShaped} runs × ${PROPERTY_ENTRY_POINTS.length} entry points)`, async () => {
    await fc.assert(fc.asyncProperty(sdkShaped, everyEntryPointHolds), {
      seed: SEED,
      numRuns: PROPERTY_RUNS.sdkShaped,
    });
  }, 120_000);

  it(`every entry point classifies values wrapped in Proxies, throwing getters, cause loops and aggregates (${PROPERTY_RUNS.wrapped} runs × ${PROPERTY_ENTRY_POINTS.length} entry points)`, async () => {
    await fc.assert(fc.asyncProperty(wrapped, everyEntryPointHolds), {
      seed: SEED,
      numRuns: PROPERTY_RUNS.wrapped,
    });
  }, 120_000);

  it(`classify gives a valid classification for any metadata-like record (${PROPERTY_RUNS.metadata} runs)`, () => {
    const metadata = fc.record(
      {
        provider: fc.oneof(text, fc.anything({ maxDepth: 1 })),
        message: fc.oneof(text, fc.anything({ maxDepth: 1 })),
        origin: fc.oneof(
          fc.constantFrom(
            'http',
            'stream_event',
            'network',
            'timeout',
            'abort',
            'malformed_response',
            'blocked_response',
            'local',
            'validation',
            'unknown',
          ),
          text,
        ),
        statusCode: status,
        retryAfterSeconds: fc.oneof(fc.double(), fc.integer(), text),
        providerCode: fc.oneof(text, fc.integer()),
        providerType: text,
        quotaIds: fc.oneof(fc.array(text, { maxLength: 3 }), text),
        networkPhase: fc.oneof(
          fc.constantFrom('dns', 'connect', 'before_response', 'response_body', 'stream', 'unknown'),
          text,
        ),
        networkCode: text,
        shouldRetryHint: fc.oneof(fc.boolean(), text),
        delivered: fc.anything({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(metadata, fc.boolean(), (value, idempotent) => {
        const classification = classify(value as never, { idempotent });
        expect(parseClassification(classification)).toBeDefined();
        // Only transient failures are retryable (ambiguous ones too when the call is idempotent).
        if (classification.retryable)
          expect(idempotent ? ['transient', 'ambiguous'] : ['transient']).toContain(classification.category);
      }),
      { seed: SEED, numRuns: PROPERTY_RUNS.metadata },
    );
  });
});
