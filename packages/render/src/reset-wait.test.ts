import { describe, expect, it } from 'vitest';
import { errorFromMetadata, maxResetWaitMs, resetWaitMs } from './toolkit.ts';

const report = (statusCode: number, message: string, retryAfterSeconds?: number) =>
  errorFromMetadata({
    provider: 'openai',
    origin: 'http',
    statusCode,
    message,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  }).toErrorReport();

describe('resetWaitMs', () => {
  it("waits only for a spent allowance's reset within the cap; a retryable failure or one with no reset is not its job", () => {
    const daily = report(429, 'Rate limit reached on requests per day (RPD).', 120);
    expect(daily).toMatchObject({ reason: 'quota', waitKind: 'quota_reset', retryable: false });
    expect(resetWaitMs(daily, 120_000)).toBe(120_000);
    expect(resetWaitMs(daily, 119_999)).toBeUndefined();
    expect(resetWaitMs(daily, 0)).toBeUndefined();
    expect(
      resetWaitMs(report(429, 'Rate limit reached on requests per day (RPD).'), 3_600_000),
    ).toBeUndefined();
    expect(
      resetWaitMs(report(429, 'Rate limit reached for requests per min.', 2), 3_600_000),
    ).toBeUndefined();
    expect(resetWaitMs(report(401, 'Incorrect API key provided', 30), 3_600_000)).toBeUndefined();
  });

  it('maxResetWaitMs: 0 when absent; a TypeError naming the entry point for a value that cannot be a wait', () => {
    expect(maxResetWaitMs(undefined, 'x')).toBe(0);
    expect(maxResetWaitMs({ maxWaitMs: 3_600_000 }, 'x')).toBe(3_600_000);
    for (const maxWaitMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '60000'])
      expect(
        () => maxResetWaitMs({ maxWaitMs } as never, 'withFaultlineProcessor'),
        String(maxWaitMs),
      ).toThrow(/^withFaultlineProcessor: maxWaitMs/);
  });
});
