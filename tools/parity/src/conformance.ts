import type { Extractor } from '@faultline/classify';
import { ProviderErrorMetadata } from '@faultline/classify';
import fc from 'fast-check';
import * as v from 'valibot';

/** The fixed seed of every property run, so a failure replays. */
export const CONFORMANCE_SEED = 20261121;

/** Longest time one `extract()` call may take on any input before parity calls it a hang. */
export const MAX_EXTRACT_MILLISECONDS = 2_000;

/** A labelled input: the label is what a failure message shows. */
export interface LabelledValue {
  readonly label: string;
  readonly value: unknown;
}

function throwing(): never {
  throw new Error('parity: hostile trap');
}

/** A Proxy whose every trap throws, around `target`. */
export function hostileProxy(target: object): unknown {
  return new Proxy(target, {
    get: throwing,
    set: throwing,
    has: throwing,
    ownKeys: throwing,
    getOwnPropertyDescriptor: throwing,
    getPrototypeOf: throwing,
    setPrototypeOf: throwing,
    defineProperty: throwing,
    deleteProperty: throwing,
    isExtensible: throwing,
    preventExtensions: throwing,
    apply: throwing,
    construct: throwing,
  });
}

function withThrowingGetters(base: object, keys: readonly string[]): object {
  for (const key of keys) Object.defineProperty(base, key, { get: throwing, enumerable: true });
  return base;
}

const SDK_FIELD_NAMES = [
  'status',
  'statusCode',
  'code',
  'headers',
  'error',
  'body',
  'response',
  'request',
  'message',
  'name',
  'cause',
  'type',
  '$metadata',
  '$response',
  '$fault',
  'rawResponse',
  'data',
] as const;

/** The inputs docs/contributing/design.md's "total and safe" rule names, each built fresh. */
export function hostileValues(): LabelledValue[] {
  const cyclicA = new Error('cyclic a') as Error & { cause?: unknown };
  const cyclicB = new Error('cyclic b', { cause: cyclicA });
  cyclicA.cause = cyclicB;
  const selfCaused = new Error('self') as Error & { cause?: unknown };
  selfCaused.cause = selfCaused;
  let deep: unknown = new Error('deepest');
  for (let depth = 0; depth < 5_000; depth += 1) deep = new Error(`level ${depth}`, { cause: deep });
  const cyclicObject: Record<string, unknown> = { status: 500 };
  cyclicObject.error = cyclicObject;
  cyclicObject.response = { body: cyclicObject, headers: cyclicObject };
  const selfArray: unknown[] = [];
  selfArray.push(selfArray);
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  const huge = 'x'.repeat(20 * 1024 * 1024);
  const hugeJson = `{"error":{"message":"${'y'.repeat(8 * 1024 * 1024)}"}}`;
  const hugeError = Object.assign(new Error(huge), { status: 400, body: hugeJson, error: { message: huge } });
  const toPrimitiveThrows = { [Symbol.toPrimitive]: throwing, toString: throwing, valueOf: throwing };
  const errorWithHostileCause = new Error('hostile cause', { cause: hostileProxy({}) });
  const errorWithHostileFields = withThrowingGetters(new Error('hostile getters'), SDK_FIELD_NAMES);
  const objectWithHostileFields = withThrowingGetters({}, SDK_FIELD_NAMES);
  const nullPrototype = Object.assign(Object.create(null), { status: 429, message: 'null prototype' });
  const hostileHeaders = Object.assign(new Error('hostile headers'), {
    status: 429,
    headers: hostileProxy({}),
    error: hostileProxy({}),
  });
  const frozen = Object.freeze(
    Object.assign(new Error('frozen'), { status: 503, headers: Object.freeze({}) }),
  );
  const aggregate = new AggregateError([cyclicA, hostileProxy({}), null], 'aggregate');
  return [
    { label: 'null', value: null },
    { label: 'undefined', value: undefined },
    { label: 'a number', value: 429 },
    { label: 'NaN', value: Number.NaN },
    { label: 'a bigint', value: 10n },
    { label: 'a boolean', value: false },
    { label: 'an empty string', value: '' },
    { label: 'a string', value: '429 Too Many Requests' },
    { label: 'a symbol', value: Symbol('faultline') },
    { label: 'a registered symbol', value: Symbol.for('faultline.error') },
    { label: 'a function', value: () => undefined },
    { label: 'a 20 MB string', value: huge },
    { label: 'an Error with a 20 MB message and an 8 MB body', value: hugeError },
    { label: 'a Proxy whose traps throw (object)', value: hostileProxy({}) },
    { label: 'a Proxy whose traps throw (Error)', value: hostileProxy(new Error('proxied')) },
    { label: 'a Proxy whose traps throw (function)', value: hostileProxy(() => undefined) },
    { label: 'a revoked Proxy', value: revocable.proxy },
    { label: 'a cyclic cause chain', value: cyclicA },
    { label: 'an Error that is its own cause', value: selfCaused },
    { label: 'a 5,000-deep cause chain', value: deep },
    { label: 'a cyclic object', value: cyclicObject },
    { label: 'an array containing itself', value: selfArray },
    { label: 'an object whose conversions throw', value: toPrimitiveThrows },
    { label: 'an Error whose cause is a hostile Proxy', value: errorWithHostileCause },
    { label: 'an Error whose SDK-looking getters throw', value: errorWithHostileFields },
    { label: 'an object whose SDK-looking getters throw', value: objectWithHostileFields },
    { label: 'a null-prototype object', value: nullPrototype },
    { label: 'an Error with hostile headers and body', value: hostileHeaders },
    { label: 'a frozen Error', value: frozen },
    { label: 'an AggregateError with hostile members', value: aggregate },
  ];
}

/** Real errors thrown by code, and plain values, that no provider extractor may claim. */
export function unrelatedValues(): LabelledValue[] {
  const values: LabelledValue[] = [];
  try {
    (null as unknown as { property: { call(): void } }).property.call();
  } catch (error) {
    values.push({ label: 'a real TypeError thrown by code', value: error });
  }
  try {
    new Array(-1);
  } catch (error) {
    values.push({ label: 'a real RangeError thrown by code', value: error });
  }
  try {
    JSON.parse('{ not json');
  } catch (error) {
    values.push({ label: 'a real SyntaxError from JSON.parse', value: error });
  }
  try {
    new Function('return faultlineParityMissingVariable')();
  } catch (error) {
    values.push({ label: 'a real ReferenceError thrown by code', value: error });
  }
  values.push(
    { label: 'a plain object', value: {} },
    { label: 'a plain object with a message', value: { message: 'something went wrong' } },
    { label: 'a plain Error', value: new Error('something went wrong') },
  );
  return values;
}

/** Calls `extract` and turns a throw, a slow answer, a foreign provider or bad metadata into a problem. */
export function extractProblem(
  extractor: Extractor,
  provider: string,
  input: LabelledValue,
): { problem?: string; metadata?: unknown } {
  const started = performance.now();
  let metadata: unknown;
  try {
    metadata = extractor.extract(input.value);
  } catch (error) {
    return { problem: `extract() threw on ${input.label}: ${String((error as Error)?.message ?? error)}` };
  }
  const elapsed = performance.now() - started;
  if (elapsed > MAX_EXTRACT_MILLISECONDS) {
    return {
      problem: `extract() took ${Math.round(elapsed)} ms on ${input.label} (limit ${MAX_EXTRACT_MILLISECONDS} ms)`,
    };
  }
  if (metadata === undefined) return {};
  if (metadata === null || typeof metadata !== 'object') {
    return {
      problem: `extract() returned ${String(metadata)} on ${input.label} (metadata or undefined only)`,
    };
  }
  const claimed = (metadata as { provider?: unknown }).provider;
  if (claimed !== provider) {
    return {
      problem: `extract() returned metadata with provider ${JSON.stringify(claimed)} on ${input.label}, not '${provider}'`,
    };
  }
  let serialised: string;
  try {
    serialised = JSON.stringify(metadata);
  } catch (error) {
    return {
      problem: `extract() returned metadata JSON.stringify cannot serialise on ${input.label}: ${(error as Error).message}`,
    };
  }
  const parsed = v.safeParse(ProviderErrorMetadata, JSON.parse(serialised));
  if (!parsed.success) {
    const issue = parsed.issues[0];
    return {
      problem: `extract() returned metadata that is not a valid ProviderErrorMetadata on ${input.label}: ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`,
    };
  }
  return { metadata };
}

/**
 * Totality: hostile values and fast-check's arbitrary values (fixed seed) never make the
 * extractor throw or hang, and whatever it returns carries its own provider key and is valid,
 * serialisable metadata.
 */
export function checkTotality(
  extractor: Extractor,
  provider: string,
  options: { numRuns?: number } = {},
): string[] {
  const problems: string[] = [];
  for (const input of hostileValues()) {
    const { problem } = extractProblem(extractor, provider, input);
    if (problem !== undefined) problems.push(problem);
  }
  const sdkShaped = fc
    .record(
      {
        status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.anything()),
        statusCode: fc.anything(),
        headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
        error: fc.anything({ withNullPrototype: true }),
        body: fc.oneof(fc.string(), fc.json(), fc.anything()),
        message: fc.oneof(fc.string(), fc.anything()),
        name: fc.oneof(
          fc.string(),
          fc.constantFrom('APIError', 'RateLimitError', 'ApiError', 'SDKError', 'ThrottlingException'),
        ),
        code: fc.anything(),
        cause: fc.anything(),
        $metadata: fc.anything(),
      },
      { requiredKeys: [] },
    )
    .map((fields) => Object.assign(Object.create(Error.prototype), fields) as unknown);
  for (const [label, arbitrary] of [
    [
      'an arbitrary value',
      fc.anything({
        withNullPrototype: true,
        withBigInt: true,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withSparseArray: true,
      }),
    ],
    ['an arbitrary SDK-shaped error', sdkShaped],
  ] as const) {
    const result = fc.check(
      fc.property(arbitrary as fc.Arbitrary<unknown>, (value) => {
        const { problem } = extractProblem(extractor, provider, { label, value });
        if (problem !== undefined) throw new Error(problem);
      }),
      { seed: CONFORMANCE_SEED, numRuns: options.numRuns ?? 300 },
    );
    if (result.failed) {
      const reason = (result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance);
      problems.push(
        `${reason} (fast-check seed ${CONFORMANCE_SEED}, counterexample ${fc.stringify(result.counterexample)})`,
      );
    }
  }
  return problems;
}

/** A raw body nobody may serialise: a provider-looking error body with a unique canary. */
export function plantedBody(canary: string): { text: string; parsed: unknown } {
  const parsed = {
    error: {
      message: 'Rate limit reached for requests',
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      faultline_planted_raw_body: canary,
    },
    faultline_planted_raw_body: canary,
  };
  return { text: JSON.stringify(parsed), parsed };
}

/** SDK-looking carriers of a planted body: the places SDKs keep the raw response. */
export function plantedCarriers(canary: string, pascalName: string): LabelledValue[] {
  const { text, parsed } = plantedBody(canary);
  const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_parity' });
  const carriers: Array<[string, Record<string, unknown>]> = [
    ['a Stainless-style error (status, headers, error)', { status: 429, headers, error: parsed }],
    ['a fetch-style error (status, headers, body text)', { status: 429, headers, body: text }],
    [
      'an axios-style error (response.data)',
      { response: { status: 429, headers: {}, data: parsed }, status: 429 },
    ],
    [
      'a Speakeasy-style error (statusCode, body, rawResponse)',
      { statusCode: 429, body: text, rawResponse: new Response(text, { status: 429 }) },
    ],
    [
      'an AWS-style error ($metadata, $response)',
      {
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: { httpStatusCode: 429 },
        $response: { statusCode: 429, body: text },
      },
    ],
    [
      `a ${pascalName}ApiError-style error`,
      { name: `${pascalName}ApiError`, status: 429, headers, body: text },
    ],
  ];
  return carriers.map(([label, fields]) => ({
    label: `${label} with a planted raw body`,
    value: Object.assign(new Error('429 Rate limit reached for requests'), fields),
  }));
}

/** `JSON.stringify(metadata)` of a claimed carrier never contains the planted canary. */
export function checkPlantedBodies(extractor: Extractor, provider: string, pascalName: string): string[] {
  const canary = 'PLANTED-RAW-BODY-7f3a9c';
  const problems: string[] = [];
  for (const input of plantedCarriers(canary, pascalName)) {
    const { problem, metadata } = extractProblem(extractor, provider, input);
    if (problem !== undefined) problems.push(problem);
    else if (metadata !== undefined && JSON.stringify(metadata).includes(canary)) {
      problems.push(`JSON.stringify(metadata) contains the raw body planted in ${input.label}`);
    }
  }
  return problems;
}

/** Unrelated errors (and, when given, other providers' real errors) are left to the next extractor. */
export function checkLeavesUnrelated(extractor: Extractor, foreign: readonly LabelledValue[] = []): string[] {
  const problems: string[] = [];
  for (const input of [...unrelatedValues(), ...foreign]) {
    let metadata: unknown;
    try {
      metadata = extractor.extract(input.value);
    } catch (error) {
      problems.push(`extract() threw on ${input.label}: ${(error as Error).message}`);
      continue;
    }
    if (metadata !== undefined) {
      problems.push(
        `extract() claims ${input.label} (returned metadata with origin ${JSON.stringify((metadata as { origin?: unknown }).origin)}); it must return undefined and leave it to the next extractor`,
      );
    }
  }
  return problems;
}
