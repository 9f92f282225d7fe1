import { bigBody } from '@faultline/test-fixtures';

/**
 * The nastiest thrown values we know of, as builders (a fresh value per call, so that one entry
 * point can never "fix" a value for the next). Every public entry point must answer each of them
 * with a classification, in bounded time and memory, without throwing or hanging.
 */
export interface HostileCase {
  readonly name: string;
  build(): unknown;
}

const FIFTY_MEGABYTES = Number(process.env.FAULTLINE_BIG_BODY_MB ?? 50);

let cachedBigText: string | undefined;
/** `bigBody(50)`, built once: 50 MiB of JSON error body. */
export function bigText(): string {
  cachedBigText ??= bigBody(FIFTY_MEGABYTES);
  return cachedBigText;
}

let cachedBigBytes: Uint8Array | undefined;
/** The same 50 MiB body as bytes. */
export function bigBytes(): Uint8Array {
  cachedBigBytes ??= new TextEncoder().encode(bigText());
  return cachedBigBytes;
}

/** A Proxy whose every trap throws (`target` decides whether it is callable). */
export function throwingProxy(target: object = {}): object {
  const trap = () => {
    throw new Error('hostile proxy trap');
  };
  return new Proxy(target, {
    get: trap,
    set: trap,
    has: trap,
    deleteProperty: trap,
    ownKeys: trap,
    getOwnPropertyDescriptor: trap,
    defineProperty: trap,
    getPrototypeOf: trap,
    setPrototypeOf: trap,
    isExtensible: trap,
    preventExtensions: trap,
    apply: trap,
    construct: trap,
  });
}

/** A revoked Proxy: every operation on it, `Array.isArray` included, throws a TypeError. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** An object whose listed properties throw when read. */
export function throwingGetters(base: object, keys: readonly string[]): object {
  for (const key of keys) {
    Object.defineProperty(base, key, {
      get() {
        throw new Error(`hostile getter: ${key}`);
      },
      enumerable: true,
      configurable: true,
    });
  }
  return base;
}

/** An object whose listed properties recurse forever (a RangeError: Maximum call stack size exceeded). */
export function recursingGetters(base: object, keys: readonly string[]): object {
  for (const key of keys) {
    Object.defineProperty(base, key, {
      get(this: Record<string, unknown>): unknown {
        return this[key];
      },
      enumerable: true,
      configurable: true,
    });
  }
  return base;
}

/** An Error whose cause chain is `depth` links long. */
export function deepCauseChain(depth: number): Error {
  return withoutStacks(() => {
    let current: Error = new Error('the root cause');
    for (let index = 0; index < depth; index++) current = new Error(`link ${index}`, { cause: current });
    return current;
  });
}

/**
 * Builds thousands of errors without capturing a stack for each: the suite builds every case afresh
 * for each entry point, and capturing ten thousand stacks costs far more than any entry point
 * spends on the result. What the cases test is the depth and the count, not the stacks' text.
 */
export function withoutStacks<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A never-ending, never-answering ReadableStream (reading it would hang forever). */
export function stalledStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) });
}

/** Every kind of headers object an SDK error might carry (and a few no SDK would). */
export const HOSTILE_HEADERS: readonly HostileCase[] = [
  {
    name: 'Headers',
    build: () =>
      new Headers({ 'retry-after': '2', 'x-request-id': 'req_hostile', 'content-type': 'application/json' }),
  },
  { name: 'plain object, mixed case', build: () => ({ 'Retry-After': '2', 'X-Request-Id': 'req_hostile' }) },
  {
    name: 'Map',
    build: () =>
      new Map<unknown, unknown>([
        ['retry-after', '2'],
        [Symbol('odd'), 1],
        [42, 'x'],
      ]),
  },
  {
    name: 'array of pairs',
    build: () => [['retry-after', '2'], ['x-request-id', 'req_hostile'], ['broken'], null],
  },
  { name: 'Proxy whose traps throw', build: () => throwingProxy() },
  { name: 'revoked Proxy', build: () => revokedProxy() },
  {
    name: 'numbers, NaN, objects and arrays as values',
    build: () => ({
      'retry-after': Number.NaN,
      'retry-after-ms': -1,
      'x-ratelimit-reset-requests': Number.POSITIVE_INFINITY,
      'x-request-id': { nested: true },
      'x-should-retry': ['true', 'false'],
    }),
  },
  {
    name: 'absurd Retry-After values',
    build: () => ({ 'retry-after': '9'.repeat(400), 'retry-after-ms': '1e309', 'x-amz-retry-after': '-5' }),
  },
  {
    name: '10,000 headers',
    build: () => {
      const headers: Record<string, string> = {};
      for (let index = 0; index < 10_000; index++) headers[`x-filler-${index}`] = `value-${index}`;
      headers['retry-after'] = '3';
      return headers;
    },
  },
  {
    name: 'Headers with 10,000 entries',
    build: () => {
      const headers = new Headers();
      for (let index = 0; index < 10_000; index++) headers.set(`x-filler-${index}`, `value-${index}`);
      return headers;
    },
  },
  {
    name: 'get() that throws',
    build: () => ({
      get() {
        throw new Error('hostile get');
      },
    }),
  },
  {
    name: 'get() that recurses',
    build: () => ({
      get(this: { get(name: string): unknown }, name: string): unknown {
        return this.get(name);
      },
    }),
  },
  { name: 'a string', build: () => 'retry-after: 2' },
  { name: 'a number', build: () => 42 },
  { name: 'null', build: () => null },
];

/** Bodies that are huge, not text, or unreadable. */
export const HOSTILE_BODIES: readonly HostileCase[] = [
  { name: '50 MB JSON text', build: () => bigText() },
  { name: '50 MB Uint8Array', build: () => bigBytes() },
  {
    name: '50 MB Buffer',
    build: () => Buffer.from(bigBytes().buffer, bigBytes().byteOffset, bigBytes().length),
  },
  { name: 'ArrayBuffer', build: () => new TextEncoder().encode('{"error":{"message":"bytes"}}').buffer },
  { name: 'ReadableStream that never ends', build: () => stalledStream() },
  { name: 'a Response with a stalled body', build: () => new Response(stalledStream(), { status: 500 }) },
  { name: 'JSON nested 100,000 deep', build: () => `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
  { name: 'truncated JSON', build: () => '{"error":{"message":"cut' },
  { name: 'Proxy body', build: () => throwingProxy() },
  { name: 'an object with a cycle', build: () => cyclicObject() },
  { name: 'a symbol', build: () => Symbol('body') },
  { name: 'a bigint', build: () => 10n ** 30n },
];

function cyclicObject(): object {
  const body: Record<string, unknown> = { error: { message: 'cyclic' } };
  (body.error as Record<string, unknown>).self = body;
  body.error_again = body;
  return body;
}

/**
 * Error shapes that look like each SDK's own errors, so that a hostile body or headers object
 * reaches the deep code of every extractor (not just its first `typeof` check).
 */
function sdkShapes(body: () => unknown, headers: () => unknown): HostileCase[] {
  return [
    {
      name: 'stainless APIError (openai, anthropic, groq)',
      build: () =>
        Object.assign(new Error('500 status code (no body)'), {
          name: 'InternalServerError',
          status: 500,
          headers: headers(),
          error: body(),
          requestID: 'req_hostile',
        }),
    },
    {
      name: 'genai ApiError',
      build: () => {
        const value = body();
        return Object.assign(new Error(typeof value === 'string' ? value : 'got status: 500'), {
          name: 'ApiError',
          status: 500,
          headers: headers(),
          body: value,
        });
      },
    },
    {
      name: 'AWS ServiceException (bedrock)',
      build: () =>
        Object.assign(new Error('Internal server error'), {
          name: 'InternalServerException',
          $fault: 'server',
          $metadata: { httpStatusCode: 500, requestId: 'req_hostile', attempts: 1, totalRetryDelay: 0 },
          $response: { statusCode: 500, headers: headers(), body: body() },
        }),
    },
    {
      name: 'mistral SDKError',
      build: () =>
        Object.assign(new Error('API error occurred'), {
          name: 'SDKError',
          statusCode: 500,
          body: body(),
          headers: headers(),
          rawResponse: new Response('{}', { status: 500 }),
        }),
    },
  ];
}

function combine(
  prefix: string,
  cases: readonly HostileCase[],
  shapes: typeof sdkShapes,
  slot: 'body' | 'headers',
) {
  const combined: HostileCase[] = [];
  for (const item of cases) {
    const shaped =
      slot === 'body'
        ? shapes(item.build, () => ({ 'retry-after': '1' }))
        : shapes(() => '{"error":{"message":"hostile headers","type":"server_error"}}', item.build);
    for (const shape of shaped)
      combined.push({ name: `${prefix} ${item.name} in a ${shape.name}`, build: shape.build });
  }
  return combined;
}

/** Thrown values that are not errors, or errors whose every property is hostile. */
export const HOSTILE_VALUES: readonly HostileCase[] = [
  { name: 'null', build: () => null },
  { name: 'undefined', build: () => undefined },
  { name: 'zero', build: () => 0 },
  { name: 'NaN', build: () => Number.NaN },
  { name: 'a negative number', build: () => -1 },
  { name: 'a bigint', build: () => 2n ** 80n },
  { name: 'true', build: () => true },
  { name: 'an empty string', build: () => '' },
  { name: 'a 50 MB string', build: () => bigText() },
  { name: 'a symbol', build: () => Symbol('thrown') },
  { name: 'a registered symbol', build: () => Symbol.for('faultline.error') },
  { name: 'a function', build: () => () => 'thrown' },
  { name: 'a plain object', build: () => ({ message: 'a plain object', status: 'teapot' }) },
  { name: 'an object without prototype', build: () => Object.create(null) },
  { name: 'a frozen Error', build: () => Object.freeze(Object.assign(new Error('frozen'), { status: 429 })) },
  {
    name: 'a frozen SDK-shaped error with frozen headers',
    build: () =>
      Object.freeze(
        Object.assign(new Error('429 Too Many Requests'), {
          status: 429,
          headers: Object.freeze({ 'retry-after': '1' }),
          error: Object.freeze({ error: Object.freeze({ type: 'rate_limit_error', message: 'slow down' }) }),
        }),
      ),
  },
  { name: 'a Proxy whose every trap throws', build: () => throwingProxy() },
  { name: 'a Proxy over an Error whose every trap throws', build: () => throwingProxy(new Error('hidden')) },
  { name: 'a callable Proxy whose every trap throws', build: () => throwingProxy(() => {}) },
  { name: 'a revoked Proxy', build: () => revokedProxy() },
  {
    name: 'an Error whose getters throw',
    build: () =>
      throwingGetters(new Error('x'), [
        'stack',
        'message',
        'name',
        'cause',
        'status',
        'statusCode',
        'headers',
        'error',
        'body',
        'code',
        'constructor',
        '$metadata',
        '$response',
        'errors',
      ]),
  },
  {
    name: 'an Error whose getters recurse',
    build: () =>
      recursingGetters(new Error('x'), [
        'stack',
        'message',
        'name',
        'cause',
        'status',
        'headers',
        'error',
        'code',
      ]),
  },
  {
    name: 'an Error whose toString and Symbol.toPrimitive throw',
    build: () =>
      Object.assign(new Error('x'), {
        toString() {
          throw new Error('hostile toString');
        },
        [Symbol.toPrimitive]() {
          throw new Error('hostile toPrimitive');
        },
      }),
  },
  {
    name: 'a self-caused error',
    build: () => {
      const error = new Error('self');
      (error as { cause?: unknown }).cause = error;
      return error;
    },
  },
  {
    name: 'a two-link cause loop',
    build: () => {
      const first = new Error('first');
      const second = new Error('second', { cause: first });
      (first as { cause?: unknown }).cause = second;
      return first;
    },
  },
  { name: 'a 10,000-deep cause chain', build: () => deepCauseChain(10_000) },
  {
    name: 'a 10,000-deep cause chain of getters',
    build: () =>
      withoutStacks(() => {
        let current: object = new Error('root');
        for (let index = 0; index < 10_000; index++) {
          const next = current;
          current = Object.defineProperty(new Error(`getter link ${index}`), 'cause', { get: () => next });
        }
        return current;
      }),
  },
  {
    name: 'a cause getter that builds a new error every time',
    build: () => {
      const make = (depth: number): Error =>
        Object.defineProperty(new Error(`endless ${depth}`), 'cause', { get: () => make(depth + 1) });
      return make(0);
    },
  },
  {
    name: 'an AggregateError of mixed errors',
    build: () =>
      new AggregateError(
        [
          null,
          'a string',
          throwingProxy(),
          revokedProxy(),
          Object.assign(new Error('429'), { status: 429 }),
          new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
          deepCauseChain(1000),
        ],
        'mixed',
      ),
  },
  {
    name: 'an AggregateError of 10,000 errors',
    build: () =>
      new AggregateError(
        withoutStacks(() => Array.from({ length: 10_000 }, (_, index) => new Error(`error ${index}`))),
        'many',
      ),
  },
  {
    name: 'an AggregateError whose errors is a Proxy',
    build: () =>
      Object.defineProperty(new AggregateError([], 'proxied'), 'errors', { value: throwingProxy([]) }),
  },
  {
    name: 'an AggregateError that contains itself',
    build: () => {
      const errors: unknown[] = [];
      const aggregate = new AggregateError(errors, 'recursive');
      Object.defineProperty(aggregate, 'errors', { value: [aggregate, aggregate] });
      return aggregate;
    },
  },
  {
    name: 'a fetch failed TypeError whose cause is a Proxy',
    build: () => new TypeError('fetch failed', { cause: throwingProxy() }),
  },
  {
    name: 'an AbortError whose reason getter throws',
    build: () => throwingGetters(new DOMException('aborted', 'AbortError'), ['cause', 'code']),
  },
  {
    name: 'an error whose message is 50 MB',
    build: () => Object.assign(new Error(bigText()), { status: 500 }),
  },
  {
    name: 'an error whose message is not a string',
    build: () =>
      Object.defineProperty(new Error(), 'message', { value: { toString: () => 'object message' } }),
  },
  {
    name: 'a faultline-marked impostor with a Proxy classification',
    build: () =>
      Object.defineProperties(new Error('impostor'), {
        [Symbol.for('faultline.error')]: { value: true },
        classification: { value: throwingProxy() },
        metadata: { value: throwingProxy() },
      }),
  },
  ...combine('body:', HOSTILE_BODIES, sdkShapes, 'body'),
  ...combine('headers:', HOSTILE_HEADERS, sdkShapes, 'headers'),
];
