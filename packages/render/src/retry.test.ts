import { describe, expect, it } from 'vitest';
import { FaultlineError } from './index.ts';
import { errorFromMetadata, type RetryLoopOptions, retryLoop, retryPolicy } from './toolkit.ts';

const unavailable = () =>
  errorFromMetadata({ provider: 'fake', origin: 'http', statusCode: 500, message: 'internal error' });
const badRequest = () =>
  errorFromMetadata({ provider: 'fake', origin: 'http', statusCode: 400, message: 'bad request' });

/** An attempt that throws what `thrown()` gives: a call, so it yields nothing. */
const throwing = (thrown: () => unknown) =>
  // biome-ignore lint/correctness/useYield: a call yields nothing.
  async function* (): AsyncGenerator<never, never, undefined> {
    throw thrown();
  };

/** Waits recorded, not slept; rejects with the signal's reason, as the loop's contract asks. */
function recordedSleep() {
  const slept: number[] = [];
  const sleep = async (milliseconds: number, signal: AbortSignal | undefined) => {
    if (signal?.aborted) throw signal.reason;
    slept.push(milliseconds);
  };
  return { slept, sleep };
}

async function drain<C, T>(
  loop: AsyncGenerator<C, T, undefined>,
): Promise<{ chunks: C[]; value?: T; error?: unknown }> {
  const chunks: C[] = [];
  try {
    for (;;) {
      const step = await loop.next();
      if (step.done === true) return { chunks, value: step.value };
      chunks.push(step.value);
    }
  } catch (error) {
    return { chunks, error };
  }
}

const policy = retryPolicy({ random: () => 1 }, 'test');

describe('retryLoop', () => {
  it("runs a stream's attempts through the same loop: chunks of each attempt, then the value", async () => {
    const { slept, sleep } = recordedSleep();
    const result = await drain(
      retryLoop(
        async function* ({ attempt }) {
          yield `start ${attempt}`;
          if (attempt < 3) throw unavailable();
          yield 'text';
          return 'done';
        },
        { policy, sleep },
      ),
    );
    expect(result).toEqual({ chunks: ['start 1', 'start 2', 'start 3', 'text'], value: 'done' });
    expect(slept).toEqual([500, 1000]);
  });

  it('shouldRetry is asked before each wait and beforeRetry after it; false ends the retries, exhausted', async () => {
    for (const refuse of ['shouldRetry', 'beforeRetry'] as const) {
      const { slept, sleep } = recordedSleep();
      const asked: string[] = [];
      const options: RetryLoopOptions = {
        policy,
        sleep,
        shouldRetry: ({ attempt, delayMs, report }) => {
          asked.push(`should ${attempt} ${delayMs} ${report.reason}`);
          return refuse !== 'shouldRetry' || attempt < 2;
        },
        beforeRetry: async ({ attempt }) => {
          asked.push(`before ${attempt}`);
          return refuse !== 'beforeRetry' || attempt < 2;
        },
      };
      const { error } = await drain(retryLoop(throwing(unavailable), options));
      expect(FaultlineError.isInstance(error)).toBe(true);
      const report = (error as FaultlineError).toErrorReport();
      expect(report.reason).toBe('server_error');
      expect(report.retriesExhausted).toBe(true);
      expect(report.nextStep).toBe('fallback');
      if (refuse === 'shouldRetry') {
        expect(asked).toEqual(['should 1 500 server_error', 'before 1', 'should 2 1000 server_error']);
        expect(slept).toEqual([500]);
        expect(report.attempts).toEqual({ made: 2, waitsMs: [500] });
      } else {
        expect(asked).toEqual([
          'should 1 500 server_error',
          'before 1',
          'should 2 1000 server_error',
          'before 2',
        ]);
        // The second wait was slept, but no attempt followed it: the report counts the retries made.
        expect(slept).toEqual([500, 1000]);
        expect(report.attempts).toEqual({ made: 2, waitsMs: [500] });
      }
    }
  });

  it('asks no hook for a failure no retry can help, and leaves anything but a FaultlineError untouched', async () => {
    const asked: number[] = [];
    const options: RetryLoopOptions = {
      policy,
      sleep: recordedSleep().sleep,
      shouldRetry: ({ attempt }) => asked.push(attempt) > 0,
    };
    const invalid = badRequest();
    const permanent = await drain(
      retryLoop(
        throwing(() => invalid),
        options,
      ),
    );
    expect(permanent.error).toBe(invalid);
    const abort = new DOMException('aborted', 'AbortError');
    let calls = 0;
    const aborted = await drain(
      retryLoop(
        throwing(() => {
          calls += 1;
          return abort;
        }),
        options,
      ),
    );
    expect(aborted.error).toBe(abort);
    expect(calls).toBe(1);
    expect(asked).toEqual([]);
  });

  it("the caller's signal ends a wait at once with its own reason", async () => {
    const controller = new AbortController();
    const { error } = await drain(
      retryLoop(throwing(unavailable), {
        // A wait longer than any test: only the abort can end it.
        policy: retryPolicy(
          {
            baseDelayMs: 3_600_000,
            maxDelayMs: 3_600_000,
            random: () => 1,
            onRetry: () => controller.abort(),
          },
          'test',
        ),
        signal: controller.signal,
      }),
    );
    expect(error).toBe(controller.signal.reason);
  });

  it('retryPolicy: the one option shape, a TypeError naming the entry point for a value that cannot mean anything', () => {
    expect(retryPolicy(undefined, 'x')).toMatchObject({
      maxAttempts: 3,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxRetryAfterSeconds: 60,
    });
    expect(retryPolicy(true, 'x')).toEqual(retryPolicy(undefined, 'x'));
    expect(retryPolicy(false, 'x')).toBeUndefined();
    expect(() => retryPolicy({ maxAttempts: 0 }, 'runWithFallback')).toThrow(
      /^runWithFallback: retry.maxAttempts/,
    );
    expect(() => retryPolicy(null, 'faultlineMiddleware')).toThrow(TypeError);
    expect(() => retryPolicy({ onRetry: 1 }, 'x')).toThrow(/retry.onRetry/);
    for (const maxElapsedMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000'])
      expect(() => retryPolicy({ maxElapsedMs }, 'x'), String(maxElapsedMs)).toThrow(
        /^x: retry.maxElapsedMs/,
      );
    expect(() => retryPolicy({ now: 1 }, 'x')).toThrow(/retry.now/);
    // A time budget alone bounds the retries by time; with maxAttempts, by whichever ends first.
    expect(retryPolicy({ maxElapsedMs: 5_000 }, 'x')?.maxAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(retryPolicy({ maxElapsedMs: 5_000, maxAttempts: 4 }, 'x')?.maxAttempts).toBe(4);
  });

  it('maxElapsedMs: retries while the budget lasts on its clock; a wait that would end past it is never slept', async () => {
    let clock = 1_000_000;
    const { slept, sleep } = recordedSleep();
    let calls = 0;
    const { error } = await drain(
      retryLoop(
        throwing(() => {
          calls += 1;
          clock += 1_000;
          return unavailable();
        }),
        {
          // Waits of 500, 1000, 2000 ms on a clock that each attempt moves by 1 s.
          policy: retryPolicy({ maxElapsedMs: 6_000, random: () => 1, now: () => clock }, 'test'),
          sleep: async (milliseconds, signal) => {
            clock += milliseconds;
            await sleep(milliseconds, signal);
          },
        },
      ),
    );
    // 1 s + 0.5 s, 2.5 s + 1 s, 4.5 s + 2 s > 6 s: the third wait is not started.
    expect(calls).toBe(3);
    expect(slept).toEqual([500, 1000]);
    const report = (error as FaultlineError).toErrorReport();
    expect(report.attempts).toEqual({ made: 3, waitsMs: [500, 1000] });
    expect(report.retriesExhausted).toBe(true);
    expect(report.nextStep).toBe('fallback');
  });

  it('maxElapsedMs: a Retry-After longer than what is left ends the loop at once, the wait and retryableAt in the report', async () => {
    const { slept, sleep } = recordedSleep();
    const failedAt = Date.UTC(2026, 5, 1, 12, 0, 0);
    let calls = 0;
    const limited = () =>
      errorFromMetadata(
        { provider: 'fake', origin: 'http', statusCode: 429, message: 'slow down', retryAfterSeconds: 30 },
        { now: failedAt },
      );
    const { error } = await drain(
      retryLoop(
        throwing(() => {
          calls += 1;
          return limited();
        }),
        { policy: retryPolicy({ maxAttempts: 5, maxElapsedMs: 10_000, now: () => 0 }, 'test'), sleep },
      ),
    );
    expect(calls).toBe(1);
    expect(slept).toEqual([]);
    const report = (error as FaultlineError).toErrorReport();
    expect(report).toMatchObject({
      reason: 'rate_limit',
      retryAfterSeconds: 30,
      retryableAt: '2026-06-01T12:00:30.000Z',
      retriesExhausted: true,
      attempts: { made: 1, waitsMs: [] },
    });
  });

  it('maxElapsedMs: a clock that throws or returns no number spends the budget, never a raw error', async () => {
    for (const now of [
      () => {
        throw new Error('no clock');
      },
      () => Number.NaN,
    ]) {
      let calls = 0;
      const { error } = await drain(
        retryLoop(
          throwing(() => {
            calls += 1;
            return unavailable();
          }),
          { policy: retryPolicy({ maxElapsedMs: 10_000, now }, 'test'), sleep: recordedSleep().sleep },
        ),
      );
      expect(calls).toBe(1);
      expect((error as FaultlineError).toErrorReport().retriesExhausted).toBe(true);
    }
  });
});
