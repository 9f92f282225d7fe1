import { describe, expect, it } from 'vitest';

/** An adapter whose provider sends OpenAI's `x-ratelimit-*` headers (Groq, Mistral). */
export interface RateLimitSuiteAdapter {
  readonly readHttpFailure: (
    response: { status: number; headers: Record<string, string>; body: string },
    options: { now: number },
  ) => { rateLimit?: unknown; retryAfterSeconds?: number | undefined };
  readonly readRateLimit: (source: unknown, now?: number) => unknown;
}

const now = Date.parse('2026-01-01T00:00:00Z');
const headers = {
  'retry-after': '1',
  'x-ratelimit-limit-requests': '30',
  'x-ratelimit-remaining-requests': '0',
  'x-ratelimit-reset-requests': '450ms',
  'x-ratelimit-limit-tokens': '6000',
  'x-ratelimit-remaining-tokens': '5800',
  'x-ratelimit-reset-tokens': '2m59.5s',
};
const budget = {
  requests: { limit: 30, remaining: 0, resetSeconds: 0.45 },
  tokens: { limit: 6000, remaining: 5800, resetSeconds: 179.5 },
};

/**
 * The rate-limit budget an adapter reads from `x-ratelimit-*` headers: from a 429's, with the spent
 * window's precise reset as the wait, and from a success's headers or what holds them.
 */
export function rateLimitSuite(title: string, adapter: RateLimitSuiteAdapter): void {
  describe(`the rate-limit budget (${title})`, () => {
    it('a 429 carries it in its metadata, and waits for the spent window (the precise reset)', () => {
      const metadata = adapter.readHttpFailure(
        {
          status: 429,
          headers,
          body: JSON.stringify({ error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } }),
        },
        { now },
      );
      expect(metadata.rateLimit).toEqual(budget);
      expect(metadata.retryAfterSeconds).toBe(0.45);
    });

    it('a success is read from its headers or what holds them', () => {
      expect(adapter.readRateLimit(headers, now)).toEqual(budget);
      expect(adapter.readRateLimit(new Response('{}', { headers }), now)).toEqual(budget);
      expect(adapter.readRateLimit({ data: {}, response: new Response('{}', { headers }) }, now)).toEqual(
        budget,
      );
      expect(adapter.readRateLimit({ 'content-type': 'application/json' }, now)).toBeUndefined();
      expect(adapter.readRateLimit(undefined, now)).toBeUndefined();
    });
  });
}
