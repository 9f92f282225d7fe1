import type { ProviderKey } from './providers.ts';
import type { RateLimit } from './script.ts';

/** What the current window said of one request. */
export interface RateLimitWindow {
  readonly admitted: boolean;
  readonly limit: number;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Milliseconds until the window refills. */
  readonly resetMs: number;
}

/** A fixed-window request counter, windows aligned on when the limit was set. */
export class RateLimitState {
  #window = -1;
  #used = 0;

  constructor(
    readonly limit: RateLimit,
    readonly start: number,
  ) {}

  /** Counts a request arriving at `time` (epoch ms) against its window. */
  take(time: number): RateLimitWindow {
    const elapsed = Math.max(0, time - this.start);
    const window = Math.floor(elapsed / this.limit.windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#used = 0;
    }
    const resetMs = Math.max(1, (window + 1) * this.limit.windowMs - elapsed);
    const admitted = this.#used < this.limit.requests;
    if (admitted) this.#used++;
    return { admitted, limit: this.limit.requests, remaining: this.limit.requests - this.#used, resetMs };
  }
}

/**
 * The rate-limit headers the provider sends with every answer: Anthropic's names with an RFC 3339
 * reset time; everyone else's `x-ratelimit-*` names with a duration (OpenAI's "1s", "230ms").
 */
export function rateLimitHeaders(
  provider: ProviderKey,
  window: RateLimitWindow,
  time: number,
): Record<string, string> {
  if (provider === 'anthropic') {
    return {
      'anthropic-ratelimit-requests-limit': String(window.limit),
      'anthropic-ratelimit-requests-remaining': String(window.remaining),
      'anthropic-ratelimit-requests-reset': new Date(time + window.resetMs).toISOString(),
    };
  }
  return {
    'x-ratelimit-limit-requests': String(window.limit),
    'x-ratelimit-remaining-requests': String(window.remaining),
    'x-ratelimit-reset-requests': `${window.resetMs}ms`,
  };
}
