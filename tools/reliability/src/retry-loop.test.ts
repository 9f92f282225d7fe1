import { getEventListeners } from 'node:events';
import { withClassifiedErrors as withAnthropic } from '@faultline/extract-anthropic';
import { withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { FaultlineError, withClassifiedErrors } from '@faultline/render';
import { callProvider } from '@faultline/scenario-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { adHocScenario } from './ad-hoc-scenario.ts';
import {
  ANTHROPIC_SUCCESS,
  anthropicFailure,
  type FaultServer,
  type FaultStep,
  OPENAI_SUCCESS,
  openaiFailure,
  startFaultServer,
} from './fault-server.ts';

/** Real openai SDK errors, captured once from the fault server, thrown again by fake work functions. */
const captured: Record<string, unknown> = {};

async function captureOpenAIError(server: FaultServer, step: FaultStep): Promise<unknown> {
  const route = server.route([step]);
  try {
    await callProvider(adHocScenario('openai'), route.baseUrl, { timeoutMs: 2_000 });
  } catch (error) {
    return error;
  }
  throw new Error('the openai SDK did not throw');
}

/** The openai SDK's error for a 503 (with the Retry-After, if given). */
function transient(retryAfterSeconds?: number): unknown {
  return captured[`503:${retryAfterSeconds ?? ''}`];
}

function permanent(): unknown {
  return captured['401'];
}

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

describe('the retry loop on a fake clock', () => {
  beforeAll(async () => {
    const server = await startFaultServer();
    try {
      for (const wait of [undefined, 4, 7, 30]) {
        const headers: Record<string, string> = wait === undefined ? {} : { 'retry-after': String(wait) };
        captured[`503:${wait ?? ''}`] = await captureOpenAIError(server, openaiFailure(503, headers));
      }
      captured['401'] = await captureOpenAIError(server, openaiFailure(401));
    } finally {
      await server.close();
    }
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([1, 2, 3, 5, 8])(
    'never attempts more than maxAttempts (%i) and waits only between attempts',
    async (maxAttempts) => {
      vi.useFakeTimers();
      let attempts = 0;
      const delays: number[] = [];
      const call = settle(
        withOpenAI(
          async () => {
            attempts += 1;
            throw transient();
          },
          {
            retry: {
              maxAttempts,
              baseDelayMs: 100,
              maxDelayMs: 1_000,
              onRetry: (event) => delays.push(event.delayMs),
            },
          },
        ),
      );
      await vi.runAllTimersAsync();
      const outcome = await call;
      expect(attempts).toBe(maxAttempts);
      expect(delays).toHaveLength(maxAttempts - 1);
      expect(FaultlineError.isInstance(outcome.error)).toBe(true);
      expect((outcome.error as FaultlineError).classification.reason).toBe('overloaded');
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it('waits at least the Retry-After before the next attempt', async () => {
    vi.useFakeTimers();
    const attemptTimes: number[] = [];
    const call = settle(
      withOpenAI(
        async () => {
          attemptTimes.push(Date.now());
          if (attemptTimes.length < 3) throw transient(7);
          return 'done';
        },
        { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 10 } },
      ),
    );
    await vi.advanceTimersByTimeAsync(6_999);
    expect(attemptTimes).toHaveLength(1);
    await vi.runAllTimersAsync();
    expect((await call).value).toBe('done');
    expect(attemptTimes[1]! - attemptTimes[0]!).toBeGreaterThanOrEqual(7_000);
    expect(attemptTimes[2]! - attemptTimes[1]!).toBeGreaterThanOrEqual(7_000);
  });

  it('a permanent failure is attempted exactly once', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const call = settle(
      withOpenAI(
        async () => {
          attempts += 1;
          throw permanent();
        },
        { retry: { maxAttempts: 10, baseDelayMs: 1 } },
      ),
    );
    await vi.runAllTimersAsync();
    expect(attempts).toBe(1);
    expect((await call).error).toMatchObject({ classification: { reason: 'auth', retryable: false } });
  });

  it('does not start a wait that would pass the deadline, and leaves no timer', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const call = settle(
      withOpenAI(
        async () => {
          attempts += 1;
          throw transient(4);
        },
        { retry: { maxAttempts: 10, baseDelayMs: 1 }, deadlineMs: 10_000 },
      ),
    );
    await vi.runAllTimersAsync();
    const outcome = await call;
    // Waits of 4 s: attempts at 0, 4 and 8 s; a third wait would end at 12 s > 10 s.
    expect(attempts).toBe(3);
    expect(FaultlineError.isInstance(outcome.error)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort mid-wait ends the call at once with the caller’s reason, and removes its listener', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let attempts = 0;
    const call = settle(
      withOpenAI(
        async () => {
          attempts += 1;
          throw transient(30);
        },
        { retry: { maxAttempts: 5 }, signal: controller.signal },
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(attempts).toBe(1);
    const reason = new DOMException('the caller gave up', 'AbortError');
    controller.abort(reason);
    const outcome = await call;
    expect(outcome.error).toBe(reason);
    expect(attempts).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('the retry loop against a faulty server (real SDKs, real clock)', () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await startFaultServer();
  });
  afterAll(async () => {
    await server.close();
  });

  function openaiCall(steps: readonly FaultStep[], timeoutMs = 2_000) {
    const route = server.route(steps);
    const scenario = adHocScenario('openai');
    return {
      route,
      run: ({ signal }: { signal: AbortSignal | undefined }) =>
        callProvider(scenario, route.baseUrl, { timeoutMs, ...(signal ? { signal } : {}) }),
    };
  }

  it('openai: fails 3 times (500, 503, 429) then succeeds: 4 requests, the answer returned', async () => {
    const { route, run } = openaiCall([
      openaiFailure(500),
      openaiFailure(503),
      openaiFailure(429),
      OPENAI_SUCCESS,
    ]);
    const result = await withOpenAI(run, { retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20 } });
    expect(result).toMatchObject({ choices: [{ message: { content: 'hello' } }] });
    expect(route.arrivals).toHaveLength(4);
  });

  it('openai: always failing: exactly maxAttempts requests', async () => {
    const { route, run } = openaiCall([openaiFailure(503)]);
    const outcome = await settle(
      withOpenAI(run, { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } }),
    );
    expect(FaultlineError.isInstance(outcome.error)).toBe(true);
    expect(route.arrivals).toHaveLength(4);
  });

  it.each([401, 400, 404, 422])('openai: a permanent %i is requested exactly once', async (status) => {
    const { route, run } = openaiCall([openaiFailure(status), OPENAI_SUCCESS]);
    const outcome = await settle(withOpenAI(run, { retry: { maxAttempts: 5, baseDelayMs: 5 } }));
    expect((outcome.error as FaultlineError).classification.retryable).toBe(false);
    expect(route.arrivals).toHaveLength(1);
  });

  it('openai: honours Retry-After (1 s) between requests', async () => {
    const { route, run } = openaiCall([openaiFailure(429, { 'retry-after': '1' }), OPENAI_SUCCESS]);
    await withOpenAI(run, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
    expect(route.arrivals).toHaveLength(2);
    expect(route.arrivals[1]! - route.arrivals[0]!).toBeGreaterThanOrEqual(950);
  });

  it('openai: a Retry-After over the cap is not waited for: one request, the wait in the report', async () => {
    const { route, run } = openaiCall([openaiFailure(429, { 'retry-after': '120' }), OPENAI_SUCCESS]);
    const outcome = await settle(withOpenAI(run, { retry: { maxAttempts: 3, maxRetryAfterSeconds: 60 } }));
    expect(route.arrivals).toHaveLength(1);
    expect((outcome.error as FaultlineError).toErrorReport().retryAfterSeconds).toBe(120);
  });

  it('openai: a reset after the request was written is not retried for a call that is not idempotent', async () => {
    const { route, run } = openaiCall([{ kind: 'reset' }, OPENAI_SUCCESS]);
    const outcome = await settle(withOpenAI(run, { retry: { maxAttempts: 3, baseDelayMs: 5 } }));
    expect(outcome.error).toMatchObject({ classification: { category: 'ambiguous', reason: 'interrupted' } });
    expect(route.arrivals).toHaveLength(1);
  });

  it('openai: a reset after the request was written is retried for an idempotent call', async () => {
    const { route, run } = openaiCall([{ kind: 'reset' }, { kind: 'reset' }, OPENAI_SUCCESS]);
    const result = await withOpenAI(run, { retry: { maxAttempts: 3, baseDelayMs: 5 }, idempotent: true });
    expect(result).toMatchObject({ choices: [{ message: { content: 'hello' } }] });
    expect(route.arrivals).toHaveLength(3);
  });

  it('openai: a stalled server: each attempt times out, the deadline ends the whole call', async () => {
    const { route, run } = openaiCall([{ kind: 'stall' }], 300);
    const started = performance.now();
    const outcome = await settle(
      withOpenAI(run, { retry: { maxAttempts: 50, baseDelayMs: 5, maxDelayMs: 20 }, deadlineMs: 1_500 }),
    );
    const elapsed = performance.now() - started;
    expect(outcome.error).toBeDefined();
    expect(route.arrivals.length).toBeGreaterThanOrEqual(2);
    expect(route.arrivals.length).toBeLessThan(50);
    // The deadline is 1.5 s and each attempt 300 ms: without the deadline, 50 attempts would take 15 s.
    expect(elapsed).toBeLessThan(10_000);
  });

  it('openai: an abort mid-wait (Retry-After 30 s) returns promptly with the caller’s reason', async () => {
    const { route, run } = openaiCall([openaiFailure(429, { 'retry-after': '30' })]);
    const controller = new AbortController();
    const call = settle(withOpenAI(run, { retry: { maxAttempts: 3 }, signal: controller.signal }));
    while (route.arrivals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reason = new DOMException('the caller gave up', 'AbortError');
    const abortedAt = performance.now();
    controller.abort(reason);
    const outcome = await call;
    const latency = performance.now() - abortedAt;
    console.info(`abort mid-wait: the call ended ${latency.toFixed(1)} ms after the abort`);
    expect(outcome.error).toBe(reason);
    expect(route.arrivals).toHaveLength(1);
    // Without the abort the call would wait the 30 s; the bound tells the two apart on a busy machine.
    expect(latency).toBeLessThan(10_000);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('openai: an abort mid-request (stalled server) returns promptly and is never retried', async () => {
    const { route, run } = openaiCall([{ kind: 'stall' }], 60_000);
    const controller = new AbortController();
    const call = settle(withOpenAI(run, { retry: { maxAttempts: 3 }, signal: controller.signal }));
    while (route.arrivals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const abortedAt = performance.now();
    controller.abort();
    const outcome = await call;
    const latency = performance.now() - abortedAt;
    console.info(`abort mid-request: the call ended ${latency.toFixed(1)} ms after the abort`);
    // The attempt's own timeout is 60 s: the bound tells an honoured abort from it on a busy machine.
    expect(latency).toBeLessThan(10_000);
    expect(FaultlineError.isInstance(outcome.error)).toBe(false);
    expect(route.arrivals).toHaveLength(1);
  });

  it('openai: connection refused is retried up to the limit', async () => {
    const refused = await startFaultServer();
    const baseUrl = refused.route([OPENAI_SUCCESS]).baseUrl;
    await refused.close();
    let attempts = 0;
    const outcome = await settle(
      withOpenAI(
        () => {
          attempts += 1;
          return callProvider(adHocScenario('openai'), baseUrl, { timeoutMs: 1_000 });
        },
        { retry: { maxAttempts: 3, baseDelayMs: 5 } },
      ),
    );
    expect(outcome.error).toMatchObject({ classification: { reason: 'connection', retryable: true } });
    expect(attempts).toBe(3);
  });

  function anthropicCall(steps: readonly FaultStep[]) {
    const route = server.route(steps);
    const scenario = adHocScenario('anthropic');
    return {
      route,
      run: ({ signal }: { signal: AbortSignal | undefined }) =>
        callProvider(scenario, route.baseUrl, { timeoutMs: 2_000, ...(signal ? { signal } : {}) }),
    };
  }

  it('anthropic: 529, 529, 500 then success: 4 requests', async () => {
    const { route, run } = anthropicCall([
      anthropicFailure(529),
      anthropicFailure(529),
      anthropicFailure(500),
      ANTHROPIC_SUCCESS,
    ]);
    const result = await withAnthropic(run, { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } });
    expect(result).toMatchObject({ content: [{ text: 'hello' }] });
    expect(route.arrivals).toHaveLength(4);
  });

  it('anthropic: always overloaded: exactly maxAttempts requests', async () => {
    const { route, run } = anthropicCall([anthropicFailure(529)]);
    const outcome = await settle(
      withAnthropic(run, { retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 } }),
    );
    expect(outcome.error).toMatchObject({ classification: { reason: 'overloaded' } });
    expect(route.arrivals).toHaveLength(3);
  });

  it('anthropic: a 401 is requested exactly once', async () => {
    const { route, run } = anthropicCall([anthropicFailure(401), ANTHROPIC_SUCCESS]);
    const outcome = await settle(withAnthropic(run, { retry: { maxAttempts: 5, baseDelayMs: 5 } }));
    expect(outcome.error).toMatchObject({ classification: { reason: 'auth' } });
    expect(route.arrivals).toHaveLength(1);
  });

  it('anthropic: Retry-After honoured, reset retried only when idempotent', async () => {
    const waited = anthropicCall([anthropicFailure(429, { 'retry-after': '1' }), ANTHROPIC_SUCCESS]);
    await withAnthropic(waited.run, { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    expect(waited.route.arrivals[1]! - waited.route.arrivals[0]!).toBeGreaterThanOrEqual(950);

    const once = anthropicCall([{ kind: 'reset' }, ANTHROPIC_SUCCESS]);
    await settle(withAnthropic(once.run, { retry: { maxAttempts: 3, baseDelayMs: 5 } }));
    expect(once.route.arrivals).toHaveLength(1);

    const twice = anthropicCall([{ kind: 'reset' }, ANTHROPIC_SUCCESS]);
    await withAnthropic(twice.run, { retry: { maxAttempts: 3, baseDelayMs: 5 }, idempotent: true });
    expect(twice.route.arrivals).toHaveLength(2);
  });

  it('leaves no socket open once every call has ended', async () => {
    const { run } = openaiCall([openaiFailure(503), OPENAI_SUCCESS]);
    await withOpenAI(run, { retry: { maxAttempts: 2, baseDelayMs: 1 } });
    // Keep-alive sockets close after the server's keepAliveTimeout (500 ms).
    for (let waited = 0; waited < 3_000 && server.openSockets() > 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(server.openSockets()).toBe(0);
  });

  it('the generic wrapper: a fake work function and a fast real clock agree with the fake-clock counts', async () => {
    let attempts = 0;
    const outcome = await settle(
      withClassifiedErrors(
        async () => {
          attempts += 1;
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
          });
        },
        { extractors: [], retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 } },
      ),
    );
    expect(outcome.error).toMatchObject({ classification: { reason: 'connection' } });
    expect(attempts).toBe(4);
  });
});
