import { defineExtractor } from '@faultline/classify/toolkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type AttemptContext, classifyError, FaultlineError, type RetryEvent } from './index.ts';
import { bindWithClassifiedErrors } from './toolkit.ts';

// render's generic withClassifiedErrors requires extractors; these tests read with the built-in ones alone.
const withBuiltIns = bindWithClassifiedErrors({ extractors: [] });

class FakeSdkError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

const fakeExtractor = defineExtractor({
  provider: 'fake',
  extract(error) {
    if (!(error instanceof FakeSdkError)) return undefined;
    return {
      provider: 'fake',
      origin: 'http',
      statusCode: error.status,
      message: error.message,
      ...(error.retryAfter === undefined ? {} : { retryAfterSeconds: error.retryAfter }),
    };
  },
});

const dropped = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
  });

/** Settles without an unhandled rejection, so the fake clock can be advanced first. */
function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('without retry', () => {
  it('returns the result; fn sees attempt 1 and no signal', async () => {
    const fn = vi.fn(async (context: AttemptContext) => context);
    const context = await withBuiltIns(fn);
    expect(context).toEqual({ signal: undefined, attempt: 1 });
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it('throws a classified FaultlineError whose cause is the original', async () => {
    const original = new FakeSdkError(429, 'Rate limit reached', 3);
    const { error } = await settle(
      withBuiltIns(() => Promise.reject(original), {
        extractors: [fakeExtractor],
        model: 'm1',
        retry: false,
      }),
    );
    expect(FaultlineError.isInstance(error)).toBe(true);
    const faultline = error as FaultlineError;
    expect(faultline.cause).toBe(original);
    expect(faultline.classification.reason).toBe('rate_limit');
    expect(faultline.toErrorReport().model).toBe('m1');
  });
  it('a thrown FaultlineError passes through as is', async () => {
    const inner = classifyError(new FakeSdkError(500, 'boom'), { extractors: [fakeExtractor] });
    const { error } = await settle(withBuiltIns(() => Promise.reject(inner), { retry: { maxAttempts: 1 } }));
    expect(error).toBe(inner);
  });
  it('a synchronous throw is classified too', async () => {
    const { error } = await settle(
      withBuiltIns(() => {
        throw 'a string';
      }),
    );
    expect(FaultlineError.isInstance(error)).toBe(true);
  });
  it('built-in extractors: zod → validation, our TypeError → local_bug, fetch failed → network', async () => {
    const zodError = z.object({ n: z.number() }).safeParse({ n: 'x' }).error;
    const validation = (await settle(withBuiltIns(() => Promise.reject(zodError)))).error as FaultlineError;
    expect(validation.classification.reason).toBe('invalid_request');
    expect(validation.metadata.origin).toBe('validation');
    const bug = (
      await settle(
        withBuiltIns(() =>
          Promise.reject(new TypeError("Cannot read properties of undefined (reading 'x')")),
        ),
      )
    ).error as FaultlineError;
    expect(bug.classification.reason).toBe('local_bug');
    for (const value of [
      new ReferenceError('x is not defined'),
      new RangeError('bad'),
      new SyntaxError('Unexpected token'),
    ]) {
      expect(
        ((await settle(withBuiltIns(() => Promise.reject(value)))).error as FaultlineError).classification
          .reason,
      ).toBe('local_bug');
    }
    const network = (await settle(withBuiltIns(() => Promise.reject(dropped())))).error as FaultlineError;
    expect(network.classification.reason).toBe('interrupted');
    const terminated = (await settle(withBuiltIns(() => Promise.reject(new TypeError('terminated')))))
      .error as FaultlineError;
    expect(terminated.classification.reason).toBe('interrupted');
  });
  it('registered extractors run before the built-in ones', async () => {
    const claimsAll = defineExtractor({
      provider: 'mine',
      extract: () => ({ provider: 'mine', origin: 'http', statusCode: 503, message: 'mine' }),
    });
    const error = (
      await settle(
        withBuiltIns(() => Promise.reject(new TypeError('x')), { extractors: [claimsAll], retry: false }),
      )
    ).error as FaultlineError;
    expect(error.classification.reason).toBe('overloaded');
    expect(error.provider).toBe('mine');
  });
  it('inspectResult: metadata returned for a success result is thrown classified', async () => {
    const { error } = await settle(
      withBuiltIns(async () => ({ finish_reason: 'content_filter' }), {
        family: 'completion',
        inspectResult: (result) =>
          result.finish_reason === 'content_filter'
            ? {
                provider: 'openai',
                origin: 'blocked_response',
                statusCode: 200,
                message: 'blocked',
                blockReason: 'content_filter',
              }
            : undefined,
      }),
    );
    expect((error as FaultlineError).classification.reason).toBe('content_policy');
    expect((error as FaultlineError).errorType).toBe('CompletionError');
    await expect(withBuiltIns(async () => 'fine', { inspectResult: () => undefined })).resolves.toBe('fine');
    await expect(
      withBuiltIns(async () => 'fine', {
        inspectResult: () => {
          throw new Error('inspector bug');
        },
      }),
    ).resolves.toBe('fine');
  });
});

describe('retries', () => {
  it('retries a rate limit after its Retry-After, then succeeds', async () => {
    const events: RetryEvent[] = [];
    let calls = 0;
    const fn = vi.fn(async () => {
      calls += 1;
      if (calls === 1) throw new FakeSdkError(429, 'Rate limit reached', 2);
      return 'ok';
    });
    const result = settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        retry: { random: () => 0, onRetry: (event) => events.push(event) },
      }),
    );
    await vi.advanceTimersByTimeAsync(1999);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toEqual({ value: 'ok' });
    expect(fn).toHaveBeenCalledTimes(2);
    expect((fn.mock.calls as unknown[][])[1]?.[0]).toMatchObject({ attempt: 2 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, delayMs: 2000 });
    expect(events[0]?.report.reason).toBe('rate_limit');
  });
  it('exponential backoff with full jitter, capped at maxDelayMs; the last error is thrown', async () => {
    const events: RetryEvent[] = [];
    const fn = vi.fn(async () => {
      throw new FakeSdkError(500, 'server error');
    });
    const result = settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        retry: {
          maxAttempts: 5,
          baseDelayMs: 100,
          maxDelayMs: 300,
          random: () => 0.5,
          onRetry: (event) => events.push(event),
        },
      }),
    );
    await vi.runAllTimersAsync();
    const { error } = await result;
    expect(fn).toHaveBeenCalledTimes(5);
    expect(events.map((event) => event.delayMs)).toEqual([50, 100, 150, 150]);
    expect((error as FaultlineError).classification.reason).toBe('server_error');
    expect((error as FaultlineError).cause).toBeInstanceOf(FakeSdkError);
  });
  it('retries by default: 3 attempts, as `retry: true`; `retry: false` makes one', async () => {
    for (const [retry, calls] of [
      [undefined, 3],
      [true, 3],
      [false, 1],
    ] as const) {
      const fn = vi.fn(async () => {
        throw new FakeSdkError(503, 'unavailable');
      });
      const result = settle(withBuiltIns(fn, { extractors: [fakeExtractor], retry }));
      await vi.runAllTimersAsync();
      const { error } = await result;
      expect(fn).toHaveBeenCalledTimes(calls);
      expect((error as FaultlineError).toErrorReport().attempts?.made).toBe(calls);
    }
  });
  it('delay = max(backoff, Retry-After)', async () => {
    const events: RetryEvent[] = [];
    const fn = vi.fn(async () => {
      throw new FakeSdkError(429, 'slow down', 0.01);
    });
    const result = settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        retry: {
          maxAttempts: 2,
          baseDelayMs: 1000,
          random: () => 0.9,
          onRetry: (event) => events.push(event),
        },
      }),
    );
    await vi.runAllTimersAsync();
    await result;
    expect(events[0]?.delayMs).toBe(900);
  });
  it('a Retry-After beyond the cap throws at once, with the wait in the report', async () => {
    const fn = vi.fn(async () => {
      throw new FakeSdkError(429, 'Rate limit reached', 120);
    });
    const { error } = await settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        retry: { maxAttempts: 5, maxRetryAfterSeconds: 60 },
      }),
    );
    expect(fn).toHaveBeenCalledTimes(1);
    const report = (error as FaultlineError).toErrorReport();
    expect(report.reason).toBe('rate_limit');
    expect(report.retryAfterSeconds).toBe(120);
  });
  it('the default cap is 60 seconds', async () => {
    const fn = vi.fn(async () => {
      throw new FakeSdkError(429, 'Rate limit reached', 61);
    });
    await settle(withBuiltIns(fn, { extractors: [fakeExtractor], retry: true }));
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it('never retries a non-transient error', async () => {
    for (const [status, message] of [
      [401, 'Incorrect API key'],
      [400, 'bad request'],
      [404, 'The model `x` does not exist'],
      [429, 'You exceeded your current quota (insufficient_quota)'],
    ] as const) {
      const fn = vi.fn(async () => {
        throw new FakeSdkError(status, message);
      });
      await settle(withBuiltIns(fn, { extractors: [fakeExtractor], retry: { maxAttempts: 5 } }));
      expect(fn, message).toHaveBeenCalledTimes(1);
    }
    const unknown = vi.fn(async () => {
      throw new Error('something odd, please retry');
    });
    await settle(withBuiltIns(unknown, { retry: { maxAttempts: 5 } }));
    expect(unknown).toHaveBeenCalledTimes(1);
    const bug = vi.fn(async () => {
      throw new TypeError('x is not a function');
    });
    await settle(withBuiltIns(bug, { retry: { maxAttempts: 5 }, idempotent: true }));
    expect(bug).toHaveBeenCalledTimes(1);
  });
  it('an ambiguous failure is retried only when the call is idempotent', async () => {
    const once = vi.fn(async () => {
      throw dropped();
    });
    const first = await settle(withBuiltIns(once, { retry: { maxAttempts: 3 } }));
    expect(once).toHaveBeenCalledTimes(1);
    expect((first.error as FaultlineError).classification.reason).toBe('interrupted');

    const idempotent = vi.fn(async () => {
      throw dropped();
    });
    const result = settle(
      withBuiltIns(idempotent, { retry: { maxAttempts: 3, random: () => 0 }, idempotent: true }),
    );
    await vi.runAllTimersAsync();
    await result;
    expect(idempotent).toHaveBeenCalledTimes(3);
  });
  it('an already classified ambiguous FaultlineError is retried when idempotent', async () => {
    const inner = classifyError(dropped());
    const fn = vi.fn(async () => {
      throw inner;
    });
    const result = settle(withBuiltIns(fn, { retry: { maxAttempts: 2, random: () => 0 }, idempotent: true }));
    await vi.runAllTimersAsync();
    const error = (await result).error as FaultlineError;
    // Given up on after its retries: the same failure (class, cause, reason), with the attempts.
    expect(error.errorType).toBe(inner.errorType);
    expect(error.cause).toBe(inner.cause);
    expect(error.classification.reason).toBe(inner.classification.reason);
    const report = error.toErrorReport();
    expect(report.attempts).toEqual({ made: 2, waitsMs: [0] });
    expect(report.retriesExhausted).toBe(true);
    expect(report.nextStep).toBe('fallback');
    expect(fn).toHaveBeenCalledTimes(2);
  });
  it('a throwing onRetry does not change the outcome', async () => {
    let calls = 0;
    const result = settle(
      withBuiltIns(
        async () => {
          calls += 1;
          if (calls < 2) throw new FakeSdkError(503, 'busy');
          return calls;
        },
        {
          extractors: [fakeExtractor],
          retry: {
            random: () => 0,
            onRetry: () => {
              throw new Error('listener bug');
            },
          },
        },
      ),
    );
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ value: 2 });
  });
  it('inspectResult failures go through the same retry decision', async () => {
    let calls = 0;
    const result = settle(
      withBuiltIns(async () => ++calls, {
        retry: { random: () => 0 },
        inspectResult: (value) =>
          value < 2
            ? {
                provider: 'p',
                origin: 'stream_event',
                message: 'Overloaded',
                providerType: 'overloaded_error',
              }
            : undefined,
      }),
    );
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ value: 2 });
  });
});

describe('abort and deadline', () => {
  it("the caller's abort mid-wait is re-thrown untouched, at once", async () => {
    const controller = new AbortController();
    const fn = vi.fn(async () => {
      throw new FakeSdkError(429, 'Rate limit', 30);
    });
    const result = settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        signal: controller.signal,
        retry: { maxAttempts: 3 },
      }),
    );
    await vi.advanceTimersByTimeAsync(1000);
    expect(fn).toHaveBeenCalledTimes(1);
    const reason = new DOMException('The user cancelled', 'AbortError');
    controller.abort(reason);
    const { error } = await result;
    expect(error).toBe(reason);
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it("the caller's abort during the call: the SDK's AbortError object is re-thrown untouched, never retried", async () => {
    const controller = new AbortController();
    const sdkAbort = Object.assign(new Error('Request was aborted.'), { name: 'AbortError' });
    const fn = vi.fn(
      ({ signal }: AttemptContext) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(sdkAbort), { once: true });
        }),
    );
    const result = settle(
      withBuiltIns(fn, { signal: controller.signal, retry: { maxAttempts: 5 }, idempotent: true }),
    );
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    const { error } = await result;
    expect(error).toBe(sdkAbort);
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it("an SDK's own abort class (APIUserAbortError) after the caller's abort is re-thrown untouched", async () => {
    class APIUserAbortError extends Error {}
    const controller = new AbortController();
    const sdkAbort = new APIUserAbortError('Request was aborted.');
    const fn = vi.fn(
      ({ signal }: AttemptContext) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(sdkAbort), { once: true });
        }),
    );
    const result = settle(withBuiltIns(fn, { signal: controller.signal, retry: true }));
    controller.abort();
    expect((await result).error).toBe(sdkAbort);
    expect(classifyError(sdkAbort, { signal: controller.signal }).classification.callerAborted).toBe(true);
    expect(classifyError(sdkAbort).classification.callerAborted).toBe(false);
  });
  it('the same without retry and with the signal passed straight through', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const result = settle(
      withBuiltIns(
        ({ signal }) =>
          new Promise((_resolve, reject) => {
            seen = signal;
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        { signal: controller.signal },
      ),
    );
    controller.abort();
    const { error } = await result;
    expect(seen).toBe(controller.signal);
    expect(error).toBe(controller.signal.reason);
  });
  it('an already aborted signal: fn is never called', async () => {
    const controller = new AbortController();
    controller.abort();
    const fn = vi.fn(async () => 1);
    const { error } = await settle(withBuiltIns(fn, { signal: controller.signal, retry: true }));
    expect(error).toBe(controller.signal.reason);
    expect(fn).not.toHaveBeenCalled();
  });
  it('a wait that would pass the deadline is not started: the last error is thrown', async () => {
    const events: RetryEvent[] = [];
    const fn = vi.fn(async () => {
      throw new FakeSdkError(503, 'busy');
    });
    const result = settle(
      withBuiltIns(fn, {
        extractors: [fakeExtractor],
        deadlineMs: 1000,
        retry: {
          maxAttempts: 10,
          baseDelayMs: 800,
          random: () => 0.99,
          onRetry: (event) => events.push(event),
        },
      }),
    );
    await vi.runAllTimersAsync();
    const { error } = await result;
    expect(fn).toHaveBeenCalledTimes(2);
    expect(events.map((event) => event.delayMs)).toEqual([792]);
    expect((error as FaultlineError).classification.reason).toBe('overloaded');
    expect(Date.now()).toBeLessThan(1000);
  });
  it('the deadline aborts a running attempt through its signal: a timeout, not a caller abort', async () => {
    const fn = vi.fn(
      ({ signal }: AttemptContext) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    );
    const result = settle(withBuiltIns(fn, { deadlineMs: 500, retry: { maxAttempts: 3 } }));
    await vi.advanceTimersByTimeAsync(500);
    const { error } = await result;
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).classification.reason).toBe('timeout');
    expect((error as FaultlineError).classification.callerAborted).toBe(false);
    expect(fn).toHaveBeenCalledTimes(1);
  });
  it('a call that ignores its signal is ended a second after the deadline, as a timeout', async () => {
    let settledAt: number | undefined;
    const fn = vi.fn(() => new Promise(() => {}));
    const started = Date.now();
    const result = settle(withBuiltIns(fn, { deadlineMs: 500, retry: false })).then((outcome) => {
      settledAt = Date.now() - started;
      return outcome;
    });
    await vi.advanceTimersByTimeAsync(1_400);
    expect(settledAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    const { error } = await result;
    expect(settledAt).toBe(1_500);
    expect((error as FaultlineError).classification.reason).toBe('timeout');
    expect((error as FaultlineError).classification.callerAborted).toBe(false);
  });
  it("a call that ignores the caller's abort ends a second later with the caller's reason", async () => {
    const controller = new AbortController();
    const result = settle(
      withBuiltIns(() => new Promise(() => {}), { signal: controller.signal, retry: true }),
    );
    await vi.advanceTimersByTimeAsync(10);
    const reason = new DOMException('The user cancelled', 'AbortError');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await result).error).toBe(reason);
  });
  it('leaves no listener on the caller signal', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    let calls = 0;
    const result = settle(
      withBuiltIns(
        async () => {
          calls += 1;
          if (calls < 3) throw new FakeSdkError(503, 'busy');
          return 'done';
        },
        {
          extractors: [fakeExtractor],
          signal: controller.signal,
          deadlineMs: 60_000,
          retry: { random: () => 0.5 },
        },
      ),
    );
    await vi.runAllTimersAsync();
    expect(await result).toEqual({ value: 'done' });
    expect(add.mock.calls.length).toBe(remove.mock.calls.length);
  });
});

describe('bindWithClassifiedErrors', () => {
  it('presets extractors and inspectResult; per-call extractors run first', async () => {
    const bound = bindWithClassifiedErrors({
      extractors: [fakeExtractor],
      provider: 'fake',
      family: 'embedding',
    });
    const error = (await settle(bound(() => Promise.reject(new FakeSdkError(401, 'bad key')))))
      .error as FaultlineError;
    expect(error.classification.reason).toBe('auth');
    expect(error.errorType).toBe('EmbeddingError');
    const mine = defineExtractor({
      provider: 'mine',
      extract: () => ({ provider: 'mine', origin: 'http', statusCode: 402, message: 'pay' }),
    });
    const first = (
      await settle(bound(() => Promise.reject(new FakeSdkError(401, 'bad key')), { extractors: [mine] }))
    ).error as FaultlineError;
    expect(first.classification.reason).toBe('billing');
    await expect(bound(async () => 7)).resolves.toBe(7);
  });

  // A preset that reads both a withheld answer and an error reported in a 200, as bedrock's and
  // google's do.
  type Answer = { readonly stop: string };
  const presetInspect = (result: Answer) =>
    result.stop === 'blocked'
      ? {
          provider: 'fake',
          origin: 'blocked_response' as const,
          statusCode: 200,
          message: 'withheld',
          blockReason: 'SAFETY',
        }
      : result.stop === 'error'
        ? {
            provider: 'fake',
            origin: 'stream_event' as const,
            message: 'overloaded',
            providerType: 'overloaded_error',
          }
        : undefined;
  const preset = bindWithClassifiedErrors({ extractors: [], inspectResult: presetInspect });

  it('detectBlockedAnswer: false returns a withheld answer; an error in a 200 is still thrown', async () => {
    const blocked = await settle(preset(async () => ({ stop: 'blocked' })));
    expect((blocked.error as FaultlineError).classification.reason).toBe('content_policy');
    await expect(preset(async () => ({ stop: 'blocked' }), { detectBlockedAnswer: false })).resolves.toEqual({
      stop: 'blocked',
    });
    const failed = await settle(
      preset(async () => ({ stop: 'error' }), { detectBlockedAnswer: false, retry: false }),
    );
    expect(failed.error).toBeInstanceOf(FaultlineError);
    expect((failed.error as FaultlineError).classification.category).not.toBe('content_policy');
    // The guarded path (a deadline) reads the option too.
    await expect(
      preset(async () => ({ stop: 'blocked' }), { detectBlockedAnswer: false, deadlineMs: 10_000 }),
    ).resolves.toEqual({ stop: 'blocked' });
    await expect(
      settle(preset(async () => ({ stop: 'blocked' }), { detectBlockedAnswer: true, deadlineMs: 10_000 })),
    ).resolves.toMatchObject({ error: expect.any(FaultlineError) });
    // inspectResult: undefined still turns inspection off altogether.
    await expect(preset(async () => ({ stop: 'error' }), { inspectResult: undefined })).resolves.toEqual({
      stop: 'error',
    });
  });

  it('runs a per-call inspectResult after the preset one instead of replacing it', async () => {
    const order: string[] = [];
    const mine = (result: Answer) => {
      order.push(result.stop);
      return result.stop === 'mine'
        ? { provider: 'mine', origin: 'http' as const, statusCode: 402, message: 'pay' }
        : undefined;
    };
    const ownHit = await settle(preset(async () => ({ stop: 'mine' }), { inspectResult: mine }));
    expect((ownHit.error as FaultlineError).classification.reason).toBe('billing');
    // The preset's metadata wins; the caller's is not asked.
    const presetHit = await settle(preset(async () => ({ stop: 'blocked' }), { inspectResult: mine }));
    expect((presetHit.error as FaultlineError).classification.reason).toBe('content_policy');
    expect(order).toEqual(['mine']);
    await expect(preset(async () => ({ stop: 'ok' }), { inspectResult: mine })).resolves.toEqual({
      stop: 'ok',
    });
    expect(order).toEqual(['mine', 'ok']);
    // A preset that throws is skipped, the caller's still runs.
    const broken = bindWithClassifiedErrors({
      extractors: [],
      inspectResult: () => {
        throw new Error('preset bug');
      },
    });
    const afterBug = await settle(broken(async () => ({ stop: 'mine' }), { inspectResult: mine }));
    expect((afterBug.error as FaultlineError).classification.reason).toBe('billing');
  });
});
