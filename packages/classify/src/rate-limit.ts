import * as v from 'valibot';
import { readHeader, safeGet } from './read.ts';
import { MAX_RETRY_AFTER_SECONDS, parseDurationSeconds } from './retry-after.ts';

/** A number a JSON value can hold: never NaN or ±Infinity (what a wait or a count may be). */
export const finiteNumber = v.pipe(v.number(), v.finite());
/** A count: a whole number from 0 up to Number.MAX_SAFE_INTEGER. */
export const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const seconds = v.pipe(finiteNumber, v.minValue(0), v.maxValue(MAX_RETRY_AFTER_SECONDS));

/**
 * One window of a provider's rate limit as its headers stated it when the answer was read: the
 * allowance, what is left of it, and the seconds until it refills.
 */
export const RateLimitWindow = v.object({
  limit: v.optional(count),
  remaining: v.optional(count),
  resetSeconds: v.optional(seconds),
});
export type RateLimitWindow = v.InferOutput<typeof RateLimitWindow>;

/**
 * What a provider's rate-limit headers say of the key that made the call, per window: requests and
 * tokens. Read from successes and failures alike, provider-blind (each adapter maps its provider's
 * header names onto it).
 */
export const RateLimitBudget = v.object({
  requests: v.optional(RateLimitWindow),
  tokens: v.optional(RateLimitWindow),
});
export type RateLimitBudget = v.InferOutput<typeof RateLimitBudget>;

/**
 * Every adapter's `readRateLimit`: the budget an answer's headers state (the headers, a `Response`,
 * an SDK's `withResponse()` result or error), for successes and failures alike; else undefined.
 */
export type RateLimitReader = (source: unknown, now?: number) => RateLimitBudget | undefined;

/** The header names of one window: its allowance, what is left, when it refills. */
export interface RateLimitWindowHeaders {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** The header names one provider states its budget in (each adapter declares its own). */
export interface RateLimitHeaderNames {
  readonly requests?: RateLimitWindowHeaders | undefined;
  readonly tokens?: RateLimitWindowHeaders | undefined;
}

/** OpenAI's names, which Groq and OpenAI-compatible providers send too. */
export const X_RATELIMIT_HEADERS: RateLimitHeaderNames = {
  requests: {
    limit: 'x-ratelimit-limit-requests',
    remaining: 'x-ratelimit-remaining-requests',
    reset: 'x-ratelimit-reset-requests',
  },
  tokens: {
    limit: 'x-ratelimit-limit-tokens',
    remaining: 'x-ratelimit-remaining-tokens',
    reset: 'x-ratelimit-reset-tokens',
  },
};

function bounded(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  return Math.min(Math.max(0, value), MAX_RETRY_AFTER_SECONDS);
}

/**
 * A reset value, in seconds from `now`: a duration ("1s", "6m0s", "20ms", "0.5"), an absolute
 * time (RFC 3339, as Anthropic sends, or an HTTP-date), or epoch seconds. Total: anything else
 * is `undefined`.
 */
export function parseResetSeconds(value: unknown, now: number = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > 64) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const number = Number(text);
    // Values past 2001-09-09 in epoch seconds are absolute times; smaller ones are deltas.
    return bounded(number > 1_000_000_000 ? number - now / 1000 : number);
  }
  const duration = parseDurationSeconds(text);
  if (duration !== undefined) return duration;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : bounded((date - now) / 1000);
}

function integer(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

function readWindow(
  headers: unknown,
  names: RateLimitWindowHeaders | undefined,
  now: number,
): RateLimitWindow | undefined {
  if (names === undefined) return undefined;
  const window: RateLimitWindow = {};
  const limit = integer(readHeader(headers, names.limit));
  if (limit !== undefined) window.limit = limit;
  const remaining = integer(readHeader(headers, names.remaining));
  if (remaining !== undefined) window.remaining = remaining;
  const reset = parseResetSeconds(readHeader(headers, names.reset), now);
  if (reset !== undefined) window.resetSeconds = reset;
  return Object.keys(window).length > 0 ? window : undefined;
}

/**
 * Reads a budget under the names a provider uses from response headers (a `Headers`, a plain
 * object, a `Map`, pairs), or from what holds them: a `Response`, an SDK's `{ data, response }`
 * (`withResponse()`), an SDK error with `headers`. Total: any value gives a budget or `undefined`
 * (no header of it present).
 */
export function readRateLimitBudget(
  source: unknown,
  names: RateLimitHeaderNames,
  now: number = Date.now(),
): RateLimitBudget | undefined {
  for (const headers of [
    source,
    safeGet(source, 'headers'),
    safeGet(safeGet(source, 'response'), 'headers'),
  ]) {
    const budget = readFrom(headers, names, now);
    if (budget !== undefined) return budget;
  }
  return undefined;
}

function readFrom(headers: unknown, names: RateLimitHeaderNames, now: number): RateLimitBudget | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const budget: RateLimitBudget = {};
  const requests = readWindow(headers, names.requests, now);
  if (requests !== undefined) budget.requests = requests;
  const tokens = readWindow(headers, names.tokens, now);
  if (tokens !== undefined) budget.tokens = tokens;
  return budget.requests === undefined && budget.tokens === undefined ? undefined : budget;
}

/**
 * How long a budget says the key is spent for: the latest reset among the windows with nothing
 * left (the key answers again only once every spent window has refilled); `undefined` when no
 * window is spent, or a spent window states no reset.
 */
export function spentWaitSeconds(budget: RateLimitBudget | undefined): number | undefined {
  if (budget === undefined) return undefined;
  let wait: number | undefined;
  for (const window of [budget.requests, budget.tokens]) {
    if (window?.remaining !== 0) continue;
    if (window.resetSeconds === undefined) return undefined;
    wait = Math.max(wait ?? 0, window.resetSeconds);
  }
  return wait;
}
