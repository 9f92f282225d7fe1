/**
 * Total readers for values of unknown shape: every function here returns `undefined` instead of
 * throwing, whatever the value is (a Proxy whose traps throw, a getter that recurses, `null`).
 * Extractors use them so that they stay total without a try/catch around every property.
 */

/** Reads `value[key]` without ever throwing. */
export function safeGet(value: unknown, key: PropertyKey): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Reads a nested path, e.g. `safePath(error, 'error', 'error', 'type')`. */
export function safePath(value: unknown, ...keys: PropertyKey[]): unknown {
  let current = value;
  for (const key of keys) {
    current = safeGet(current, key);
    if (current === undefined) return undefined;
  }
  return current;
}

export function safeString(value: unknown, maxLength = 4096): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > maxLength ? value.slice(0, maxLength) : value;
}

export function safeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A finite integer HTTP status in 100..599, from a number or a numeric string. */
export function safeStatus(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 100 && number <= 599
    ? number
    : undefined;
}

/** The constructor name of a value, or undefined. Used as evidence, never as the sole test. */
export function constructorName(value: unknown): string | undefined {
  const owner = safeGet(value, 'constructor');
  const name = safeGet(owner, 'name');
  return typeof name === 'string' && name.length > 0 && name.length < 200 ? name : undefined;
}

/** `error.message` as a string, whatever the value is. */
export function messageOf(value: unknown, maxLength = 4096): string {
  if (typeof value === 'string') return value.slice(0, maxLength);
  const message = safeGet(value, 'message');
  if (typeof message === 'string') return message.slice(0, maxLength);
  return '';
}

/**
 * Reads one header from a `Headers` object, a plain object (any key case), a `Map`, or an array
 * of pairs. Arrays of values are joined with `, `.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (headers === null || headers === undefined || typeof headers !== 'object') return undefined;
  const lower = name.toLowerCase();
  try {
    const get = safeGet(headers, 'get');
    if (typeof get === 'function' && !(headers instanceof Map)) {
      const value = get.call(headers, name);
      return typeof value === 'string' ? value : undefined;
    }
    if (headers instanceof Map) {
      for (const [key, value] of headers) {
        if (typeof key === 'string' && key.toLowerCase() === lower) return headerValue(value);
      }
      return undefined;
    }
    if (Array.isArray(headers)) {
      for (const pair of headers.slice(0, 1000)) {
        if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === lower) {
          return headerValue(pair[1]);
        }
      }
      return undefined;
    }
    const direct = safeGet(headers, name) ?? safeGet(headers, lower);
    if (direct !== undefined) return headerValue(direct);
    for (const key of Object.keys(headers).slice(0, 1000)) {
      if (key.toLowerCase() === lower) return headerValue(safeGet(headers, key));
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function headerValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.slice(0, 1024);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const parts = value.filter((part): part is string => typeof part === 'string');
    return parts.length > 0 ? parts.join(', ').slice(0, 1024) : undefined;
  }
  return undefined;
}

/** The longest text `parseJsonSafely` will parse; longer text is cut and therefore not parsed. */
export const MAX_PARSE_LENGTH = 256 * 1024;

/** Parses JSON without throwing; text longer than `MAX_PARSE_LENGTH` is not parsed at all. */
export function parseJsonSafely(text: unknown): unknown {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_PARSE_LENGTH) return undefined;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/**
 * A short description of a failed answer's body that is not the provider's JSON, for the message:
 * an HTML page's title (or first heading), a one-line text of at most `maxLineLength` characters as
 * it is (a router's "404 page not found"), else the body's kind. A page is never the message: the
 * whole body stays in rawBody only. A `maxLineLength` of 0 keeps every text body out of the message.
 */
export function describeTextBody(text: string, status: number | undefined, maxLineLength = 200): string {
  const trimmed = text.trim();
  const answer = `HTTP ${status ?? 'error'}`;
  if (trimmed.length === 0) return `${answer} with an empty body`;
  if (!trimmed.startsWith('<')) {
    return trimmed.length <= maxLineLength && !trimmed.includes('\n')
      ? trimmed
      : `${answer} with a text body`;
  }
  const title =
    /<title[^>]*>([^<]{1,200})<\/title>/i.exec(trimmed)?.[1] ??
    /<h1[^>]*>([^<]{1,200})<\/h1>/i.exec(trimmed)?.[1];
  return title?.trim() || `${answer} with a HTML body`;
}

function isArraySafely(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The cause chain of a thrown value, the value first, cycle-guarded and bounded. Follows
 * `cause` and, for `AggregateError`, its first error.
 */
export function causeChain(error: unknown, maxDepth = 8): unknown[] {
  const chain: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < maxDepth && !seen.has(current)) {
    chain.push(current);
    seen.add(current);
    const cause = safeGet(current, 'cause');
    if (cause !== undefined && cause !== null) {
      current = cause;
      continue;
    }
    // An AggregateError's first error. `errors` may be a Proxy: Array.isArray throws on a revoked
    // one, and indexing runs its get trap, so both go through guarded reads.
    const errors = safeGet(current, 'errors');
    current = isArraySafely(errors) ? safeGet(errors, 0) : undefined;
  }
  return chain;
}

/**
 * The constructor names along a value's prototype chain, nearest first, stopping before
 * `Object.prototype`; bounded and total. Evidence of an SDK's error class, never the sole test
 * (minifiers rename classes).
 */
export function prototypeNames(value: unknown, maxDepth = 10): string[] {
  const names: string[] = [];
  let current: unknown = value;
  for (let depth = 0; depth < maxDepth; depth += 1) {
    let prototype: unknown;
    try {
      prototype = Object.getPrototypeOf(current);
    } catch {
      break;
    }
    if (prototype === null || prototype === undefined || prototype === Object.prototype) break;
    const name = constructorName(prototype);
    if (name !== undefined) names.push(name);
    current = prototype;
  }
  return names;
}

/** `Object.hasOwn` for any value, never throwing (a Proxy's `getOwnPropertyDescriptor` trap). */
export function safeHasOwn(value: unknown, key: PropertyKey): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    return Object.hasOwn(value, key);
  } catch {
    return false;
  }
}
