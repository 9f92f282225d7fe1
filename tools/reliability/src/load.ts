import { withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { FaultlineError, withClassifiedErrors } from '@faultline/render';
import { callProvider } from '@faultline/scenario-driver';
import { adHocScenario } from './ad-hoc-scenario.ts';
import {
  type FaultRoute,
  type FaultServer,
  type FaultStep,
  OPENAI_SUCCESS,
  openaiFailure,
} from './fault-server.ts';

export interface LoadCounts {
  readonly calls: number;
  readonly succeeded: number;
  readonly classified: number;
  /** Rejections that were not FaultlineErrors (or the caller's own abort reason). */
  readonly unclassified: number;
  /** Work-function attempts (fake calls) or requests sent (SDK calls). */
  readonly attempts: number;
}

/** A transient failure the generic wrapper retries: undici's `fetch failed` on a refused connection. */
function transientFailure(): Error {
  return new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
  });
}

function permanentFailure(): Error {
  return new RangeError('a bug in the caller');
}

/**
 * `count` concurrent calls of a fast fake work function through `withClassifiedErrors` with
 * retries: a quarter succeed at once, a quarter fail once then succeed, a quarter always fail
 * (transient, retried to the limit), a quarter fail permanently (attempted once). Every call has
 * its own deadline and shares the caller's signal, so every call adds (and must remove) a
 * listener and a timer.
 */
export async function fakeLoad(count: number, signal: AbortSignal): Promise<LoadCounts> {
  let attempts = 0;
  const calls = Array.from({ length: count }, (_, index) => {
    const kind = index % 4;
    return withClassifiedErrors(
      ({ attempt }) => {
        attempts += 1;
        if (kind === 0 || (kind === 1 && attempt > 1)) return Promise.resolve(index);
        return Promise.reject(kind === 3 ? permanentFailure() : transientFailure());
      },
      {
        extractors: [],
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 3 },
        deadlineMs: 30_000,
        signal,
      },
    );
  });
  return tally(await Promise.allSettled(calls), () => attempts);
}

/** The fault-server routes the SDK load cycles through. */
const SDK_ROUTES: readonly (readonly FaultStep[])[] = [
  [OPENAI_SUCCESS],
  [openaiFailure(503), OPENAI_SUCCESS],
  [openaiFailure(429, { 'retry-after-ms': '5' }), openaiFailure(500), OPENAI_SUCCESS],
  [openaiFailure(401)],
  [openaiFailure(500)],
];

/**
 * `count` concurrent real openai SDK calls (maxRetries 0) against the fault server, through the
 * bound `withClassifiedErrors` with retries, spread over routes that succeed, fail then succeed,
 * and fail (permanently or every time).
 */
export async function sdkLoad(server: FaultServer, count: number, signal: AbortSignal): Promise<LoadCounts> {
  // A route answers by request count, so each call gets its own route.
  const routes: FaultRoute[] = [];
  const scenario = adHocScenario('openai');
  const calls = Array.from({ length: count }, (_, index) => {
    const route = server.route(SDK_ROUTES[index % SDK_ROUTES.length]!);
    routes.push(route);
    return withOpenAI(
      ({ signal: attemptSignal }) =>
        // The server answers at once: the timeout and the deadline only catch a hang, so they are
        // far above what hundreds of calls at once take on a busy machine.
        callProvider(scenario, route.baseUrl, {
          timeoutMs: 120_000,
          ...(attemptSignal ? { signal: attemptSignal } : {}),
        }),
      { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 }, signal, deadlineMs: 240_000 },
    );
  });
  const settled = await Promise.allSettled(calls);
  return tally(settled, () => routes.reduce((sum, route) => sum + route.arrivals.length, 0));
}

function tally(settled: PromiseSettledResult<unknown>[], attempts: () => number): LoadCounts {
  let succeeded = 0;
  let classified = 0;
  let unclassified = 0;
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') succeeded += 1;
    else if (FaultlineError.isInstance(outcome.reason)) classified += 1;
    else unclassified += 1;
  }
  return { calls: settled.length, succeeded, classified, unclassified, attempts: attempts() };
}
