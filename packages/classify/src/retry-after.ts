import { readHeader } from './read.ts';

/** No wait longer than this is believed; longer values are clamped (a week). */
export const MAX_RETRY_AFTER_SECONDS = 7 * 24 * 3600;

function bounded(seconds: number): number | undefined {
  if (!Number.isFinite(seconds)) return undefined;
  if (seconds < 0) return 0;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

/**
 * Parses a protobuf/Go-style duration: Gemini's `RetryInfo.retryDelay` ("13s", "1.5s", "0.25s")
 * and OpenAI's rate-limit reset headers ("1s", "6m0s", "1h2m3.5s", "250ms").
 */
export function parseDurationSeconds(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const value = text.trim();
  if (value.length === 0 || value.length > 64) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return bounded(Number(value));
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const match of value.matchAll(pattern)) {
    if (match.index !== consumed) return undefined;
    consumed += match[0].length;
    const amount = Number(match[1]);
    const unit = match[2];
    total +=
      unit === 'h' ? amount * 3600 : unit === 'm' ? amount * 60 : unit === 'ms' ? amount / 1000 : amount;
  }
  return consumed === value.length && consumed > 0 ? bounded(total) : undefined;
}

/**
 * A `Retry-After` value: delta-seconds, or an HTTP-date. Dates are parsed by the platform's
 * `Date.parse`, which reads the IMF-fixdate form RFC 9110 requires senders to produce, as well
 * as the obsolete RFC 850 and asctime forms; a library would add weight for no extra format.
 */
export function parseRetryAfterValue(value: unknown, now: number = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > 64) return undefined;
  if (/^-?\d+(\.\d+)?$/.test(text)) return bounded(Number(text));
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return bounded((date - now) / 1000);
}

/** The reset headers of the rate-limit windows providers send, with the header saying what is left. */
const DURATION_RESETS: ReadonlyArray<readonly [reset: string, remaining: string]> = [
  ['x-ratelimit-reset-requests', 'x-ratelimit-remaining-requests'],
  ['x-ratelimit-reset-tokens', 'x-ratelimit-remaining-tokens'],
];
const DATE_RESETS: ReadonlyArray<readonly [reset: string, remaining: string]> = [
  ['anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-requests-remaining'],
  ['anthropic-ratelimit-tokens-reset', 'anthropic-ratelimit-tokens-remaining'],
  ['anthropic-ratelimit-input-tokens-reset', 'anthropic-ratelimit-input-tokens-remaining'],
  ['anthropic-ratelimit-output-tokens-reset', 'anthropic-ratelimit-output-tokens-remaining'],
];

/**
 * When the rate-limit windows refill, in seconds: the resets of the windows whose `remaining` is 0
 * (the ones that refused), else every reset (no window said which).
 */
function resetsFromHeaders(headers: unknown, now: number): number[] {
  const all: number[] = [];
  const spent: number[] = [];
  const add = (seconds: number | undefined, remainingHeader: string) => {
    if (seconds === undefined) return;
    all.push(seconds);
    if (readHeader(headers, remainingHeader)?.trim() === '0') spent.push(seconds);
  };
  for (const [reset, remaining] of DURATION_RESETS)
    add(parseDurationSeconds(readHeader(headers, reset)), remaining);
  for (const [reset, remaining] of DATE_RESETS) {
    const text = readHeader(headers, reset);
    const date = text === undefined ? Number.NaN : Date.parse(text);
    add(Number.isNaN(date) ? undefined : bounded((date - now) / 1000), remaining);
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const text = readHeader(headers, name)?.trim();
    if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) continue;
    const number = Number(text);
    // Values past 2001-09-09 in epoch seconds are absolute times; smaller ones are deltas.
    const seconds = bounded(number > 1_000_000_000 ? number - now / 1000 : number);
    if (seconds !== undefined) all.push(seconds);
  }
  return spent.length > 0 ? spent : all;
}

/**
 * The wait a response asks for, in seconds, from its headers, in this order:
 * `retry-after-ms`, `retry-after` (seconds or HTTP-date), `x-amz-retry-after` (ms), then the
 * common rate-limit reset headers (`x-ratelimit-reset-requests`/`-tokens` as durations,
 * `anthropic-ratelimit-*-reset` as RFC 3339 dates, `ratelimit-reset`/`x-ratelimit-reset` as
 * seconds or epoch seconds; the latest reset of the spent windows when `remaining` says which,
 * else of all). The most precise consistent value wins: a whole-second `retry-after` is a
 * rounded-up reset, so a reset header that rounds up to it (`retry-after: 1` beside
 * `x-ratelimit-reset-requests: 230ms`) gives the wait.
 * Total: any headers value gives a number or `undefined`.
 */
export function retryAfterFromHeaders(headers: unknown, now: number = Date.now()): number | undefined {
  const milliseconds = readHeader(headers, 'retry-after-ms');
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())) {
    return bounded(Number(milliseconds) / 1000);
  }
  const retryAfterText = readHeader(headers, 'retry-after');
  const retryAfter = parseRetryAfterValue(retryAfterText, now);
  if (retryAfter !== undefined) {
    if (retryAfterText !== undefined && /^\d+$/.test(retryAfterText.trim()) && retryAfter > 0) {
      const consistent = resetsFromHeaders(headers, now).filter(
        (reset) => reset <= retryAfter && reset > retryAfter - 1,
      );
      if (consistent.length > 0) return Math.max(...consistent);
    }
    return retryAfter;
  }
  const amazon = readHeader(headers, 'x-amz-retry-after');
  if (amazon !== undefined && /^\d+$/.test(amazon.trim())) return bounded(Number(amazon) / 1000);
  const resets = resetsFromHeaders(headers, now);
  return resets.length > 0 ? Math.max(...resets) : undefined;
}
