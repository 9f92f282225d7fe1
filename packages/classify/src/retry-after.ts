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

/**
 * The wait a response asks for, in seconds, from its headers, in this order:
 * `retry-after-ms`, `retry-after` (seconds or HTTP-date), `x-amz-retry-after` (ms), then the
 * common rate-limit reset headers (`x-ratelimit-reset-requests`/`-tokens` as durations,
 * `anthropic-ratelimit-*-reset` as RFC 3339 dates, `ratelimit-reset`/`x-ratelimit-reset` as
 * seconds or epoch seconds). Total: any headers value gives a number or `undefined`.
 */
export function retryAfterFromHeaders(headers: unknown, now: number = Date.now()): number | undefined {
  const milliseconds = readHeader(headers, 'retry-after-ms');
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())) {
    return bounded(Number(milliseconds) / 1000);
  }
  const retryAfter = parseRetryAfterValue(readHeader(headers, 'retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  const amazon = readHeader(headers, 'x-amz-retry-after');
  if (amazon !== undefined && /^\d+$/.test(amazon.trim())) return bounded(Number(amazon) / 1000);

  const resets: number[] = [];
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const seconds = parseDurationSeconds(readHeader(headers, name));
    if (seconds !== undefined) resets.push(seconds);
  }
  for (const name of [
    'anthropic-ratelimit-requests-reset',
    'anthropic-ratelimit-tokens-reset',
    'anthropic-ratelimit-input-tokens-reset',
    'anthropic-ratelimit-output-tokens-reset',
  ]) {
    const text = readHeader(headers, name);
    if (text === undefined) continue;
    const date = Date.parse(text);
    if (!Number.isNaN(date)) {
      const seconds = bounded((date - now) / 1000);
      if (seconds !== undefined) resets.push(seconds);
    }
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const text = readHeader(headers, name)?.trim();
    if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) continue;
    const number = Number(text);
    // Values past 2001-09-09 in epoch seconds are absolute times; smaller ones are deltas.
    const seconds = bounded(number > 1_000_000_000 ? number - now / 1000 : number);
    if (seconds !== undefined) resets.push(seconds);
  }
  return resets.length > 0 ? Math.max(...resets) : undefined;
}
