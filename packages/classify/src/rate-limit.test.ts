import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  parseResetSeconds,
  RateLimitBudget,
  readRateLimitBudget,
  spentWaitSeconds,
  X_RATELIMIT_HEADERS,
} from './rate-limit.ts';
import { retryAfterFromHeaders } from './retry-after.ts';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseResetSeconds', () => {
  it('reads durations, RFC 3339 times, HTTP-dates and epoch seconds', () => {
    expect(parseResetSeconds('1s', now)).toBe(1);
    expect(parseResetSeconds('6m0s', now)).toBe(360);
    expect(parseResetSeconds('20ms', now)).toBe(0.02);
    expect(parseResetSeconds('2.5', now)).toBe(2.5);
    expect(parseResetSeconds('2026-01-01T00:00:07.5Z', now)).toBe(7.5);
    expect(parseResetSeconds('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseResetSeconds(String(now / 1000 + 30), now)).toBe(30);
  });
  it('a time in the past is no wait; anything else is undefined', () => {
    expect(parseResetSeconds('2025-12-31T23:59:00Z', now)).toBe(0);
    for (const value of ['soon', '', '1 s', '-3s', 'x'.repeat(100), 12, null, undefined, {}]) {
      expect(parseResetSeconds(value, now), String(value)).toBeUndefined();
    }
  });
});

describe('readRateLimitBudget', () => {
  it('reads both windows under the names given, from any headers shape', () => {
    const headers = {
      'X-RateLimit-Limit-Requests': '100',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '230ms',
      'x-ratelimit-limit-tokens': '40000',
      'x-ratelimit-remaining-tokens': '39000',
      'x-ratelimit-reset-tokens': '1m30s',
    };
    const expected = {
      requests: { limit: 100, remaining: 0, resetSeconds: 0.23 },
      tokens: { limit: 40_000, remaining: 39_000, resetSeconds: 90 },
    };
    expect(readRateLimitBudget(headers, X_RATELIMIT_HEADERS, now)).toEqual(expected);
    expect(readRateLimitBudget(new Headers(headers), X_RATELIMIT_HEADERS, now)).toEqual(expected);
    expect(readRateLimitBudget(Object.entries(headers), X_RATELIMIT_HEADERS, now)).toEqual(expected);
    expect(v.is(RateLimitBudget, expected)).toBe(true);
  });
  it('keeps only what is readable, and nothing when no header is there', () => {
    expect(
      readRateLimitBudget(
        {
          'x-ratelimit-remaining-requests': '-1',
          'x-ratelimit-limit-requests': '7.5',
          'x-ratelimit-reset-requests': '5s',
        },
        X_RATELIMIT_HEADERS,
        now,
      ),
    ).toEqual({ requests: { resetSeconds: 5 } });
    expect(readRateLimitBudget({}, X_RATELIMIT_HEADERS, now)).toBeUndefined();
    for (const headers of [
      null,
      'x',
      42,
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
        },
      ),
    ]) {
      expect(readRateLimitBudget(headers, X_RATELIMIT_HEADERS, now)).toBeUndefined();
    }
  });
});

describe('spentWaitSeconds', () => {
  it('is the latest reset among the windows with nothing left', () => {
    expect(
      spentWaitSeconds({
        requests: { remaining: 0, resetSeconds: 0.5 },
        tokens: { remaining: 10, resetSeconds: 60 },
      }),
    ).toBe(0.5);
    expect(
      spentWaitSeconds({
        requests: { remaining: 0, resetSeconds: 0.5 },
        tokens: { remaining: 0, resetSeconds: 3 },
      }),
    ).toBe(3);
    expect(spentWaitSeconds({ requests: { remaining: 4, resetSeconds: 1 } })).toBeUndefined();
    expect(spentWaitSeconds({ requests: { remaining: 0 } })).toBeUndefined();
    expect(spentWaitSeconds(undefined)).toBeUndefined();
  });
});

describe('the most precise wait', () => {
  it('a millisecond reset that rounds up to a whole-second retry-after wins over it', () => {
    expect(retryAfterFromHeaders({ 'retry-after': '1', 'x-ratelimit-reset-requests': '230ms' }, now)).toBe(
      0.23,
    );
    expect(
      retryAfterFromHeaders(
        { 'retry-after': '8', 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:07.25Z' },
        now,
      ),
    ).toBe(7.25);
  });
  it('the spent window decides between two resets', () => {
    expect(
      retryAfterFromHeaders(
        {
          'retry-after': '1',
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '400ms',
          'x-ratelimit-remaining-tokens': '5000',
          'x-ratelimit-reset-tokens': '30s',
        },
        now,
      ),
    ).toBe(0.4);
    expect(
      retryAfterFromHeaders(
        {
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '2s',
          'x-ratelimit-reset-tokens': '6m0s',
        },
        now,
      ),
    ).toBe(2);
  });
  it('with no spent window named, the reset that rounds up to retry-after is the one', () => {
    expect(
      retryAfterFromHeaders(
        {
          'retry-after': '4',
          'x-ratelimit-remaining-requests': '14370',
          'x-ratelimit-reset-requests': '2m59.56s',
          'x-ratelimit-remaining-tokens': '50',
          'x-ratelimit-reset-tokens': '3.75s',
        },
        now,
      ),
    ).toBe(3.75);
  });
  it('an inconsistent reset leaves retry-after as it is', () => {
    expect(retryAfterFromHeaders({ 'retry-after': '5', 'x-ratelimit-reset-requests': '230ms' }, now)).toBe(5);
    expect(retryAfterFromHeaders({ 'retry-after': '1', 'x-ratelimit-reset-requests': '3s' }, now)).toBe(1);
    expect(retryAfterFromHeaders({ 'retry-after': '1.5', 'x-ratelimit-reset-requests': '1s' }, now)).toBe(
      1.5,
    );
  });
});
