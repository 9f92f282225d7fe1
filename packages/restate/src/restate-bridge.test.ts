import { withClassifiedErrors } from '@faultline/extract-openai';
import { FaultlineError, toDict } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  openaiChatCompletion,
  type Scenario,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { type Context, service, TerminalError } from '@restatedev/restate-sdk';
import { connect, HttpCallError } from '@restatedev/restate-sdk-clients';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  faultlineAsTerminalError,
  faultlineRun,
  recoverErrorReport,
  toRestateError,
  UNRECOVERABLE_INVOCATION_FAILURE,
} from './index.ts';
import { type RestateServer, startRestateServer } from './restate-server.ts';

const success = openaiChatCompletion('Hello');

// A real Restate server, started here from the npm package's binary. In CI (CI=1) a server that
// cannot start fails the suite; elsewhere the suite is skipped with the reason.
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

const shortWait = {
  id: 'openai/restate-short-retry-after',
  provider: 'openai',
  description: 'a 429 asking for a one-second wait',
  source: 'https://platform.openai.com/docs/guides/error-codes (429 rate_limit_exceeded)',
  response: {
    kind: 'http',
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': '1' },
    body: JSON.stringify({
      error: {
        message: 'Rate limit reached for requests',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    }),
  },
  expected: {
    category: 'transient',
    reason: 'rate_limit',
    retryable: true,
    userAction: 'wait_and_retry',
    httpStatus: 429,
    retryAfterSeconds: 1,
  },
} as Scenario;

const dailyCap = {
  id: 'openai/restate-daily-cap-resets-soon',
  provider: 'openai',
  description: 'a 429 on the requests-per-day cap, resetting in one second',
  source: 'https://platform.openai.com/docs/guides/rate-limits',
  response: {
    kind: 'http',
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': '1' },
    body: JSON.stringify({
      error: {
        message: 'Rate limit reached for gpt-4o-mini on requests per day (RPD): Limit 200, Used 200.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    }),
  },
  expected: {
    category: 'capacity',
    reason: 'quota',
    retryable: false,
    userAction: 'check_billing',
    httpStatus: 500,
    retryAfterSeconds: 1,
  },
} as Scenario;

// Every recorded openai scenario whose failure no retry can fix, answered over plain HTTP.
const permanent = loadScenarios('openai').filter(
  (scenario) =>
    scenario.response.kind === 'http' && !scenario.expected.retryable && scenario.response.status >= 400,
);
const byId = new Map<string, Scenario>(
  [...permanent, shortWait, dailyCap, success].map((scenario) => [scenario.id, scenario]),
);

let loopback: LoopbackServer;
let restate: RestateServer | undefined;
let startError: unknown;
/** When each invocation's model call ran (by the caller's run id): the attempts Restate made. */
const attempts = new Map<string, number[]>();

function chat(scenarioId: string) {
  const client = new OpenAI({
    baseURL: loopback.baseUrlFor(byId.get(scenarioId)!),
    apiKey: 'sk-test',
    maxRetries: 0,
  });
  return withClassifiedErrors(
    ({ signal }) =>
      client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] },
        { signal },
      ),
    // Restate retries the run: faultline's own retries off, as the bridge's docs say.
    { model: 'gpt-4o-mini', retry: false },
  );
}

function attempt(runId: string): number {
  const times = attempts.get(runId) ?? [];
  times.push(Date.now());
  attempts.set(runId, times);
  return times.length;
}

interface CallInput {
  readonly runId: string;
  readonly scenarioId: string;
  /** Attempt from which the call answers with `success` instead of the scenario. */
  readonly succeedFrom?: number;
}

const llm = service({
  name: 'faultline_llm',
  handlers: {
    // The model call inside ctx.run, through faultlineRun.
    complete: async (ctx: Context, input: CallInput): Promise<string> =>
      faultlineRun(ctx, 'chat', async () => {
        const count = attempt(input.runId);
        const scenarioId =
          input.succeedFrom !== undefined && count >= input.succeedFrom ? success.id : input.scenarioId;
        const completion = await chat(scenarioId);
        return completion.choices[0]?.message.content ?? '';
      }),
    // The same call, waiting for a spent quota's reset up to a minute.
    completeWaitingForReset: async (ctx: Context, input: CallInput): Promise<string> =>
      faultlineRun(
        ctx,
        'chat',
        async () => {
          const count = attempt(input.runId);
          const scenarioId =
            input.succeedFrom !== undefined && count >= input.succeedFrom ? success.id : input.scenarioId;
          const completion = await chat(scenarioId);
          return completion.choices[0]?.message.content ?? '';
        },
        { maxWaitMs: 60_000 },
      ),
    // A bug of our own inside the run: classified local_bug, terminal.
    bug: async (ctx: Context, input: CallInput): Promise<string> =>
      faultlineRun(ctx, 'bug', async () => {
        attempt(input.runId);
        const missing = undefined as unknown as { field: string };
        return missing.field;
      }),
    // The floor: a FaultlineError thrown by the handler itself, outside any ctx.run.
    unwrapped: async (_ctx: Context, input: CallInput): Promise<string> => {
      attempt(input.runId);
      const completion = await chat(input.scenarioId);
      return completion.choices[0]?.message.content ?? '';
    },
  },
  options: { asTerminalError: faultlineAsTerminalError },
});

beforeAll(async () => {
  loopback = await startLoopbackServer();
  try {
    restate = await startRestateServer();
    await restate.register([llm]);
  } catch (error) {
    startError = error;
    if (!inCi) console.warn(`@faultline/restate: skipping the Restate tests: ${String(error)}`);
  }
}, 120_000);

afterAll(async () => {
  await restate?.close();
  await loopback?.close();
});

function server(skip: () => void): RestateServer {
  if (restate === undefined) {
    if (inCi) throw startError;
    skip();
  }
  return restate!;
}

async function invoke(
  restateServer: RestateServer,
  handler: 'complete' | 'completeWaitingForReset' | 'bug' | 'unwrapped',
  input: CallInput,
) {
  const ingress = connect({ url: restateServer.ingressUrl });
  const client = ingress.serviceClient<typeof llm>({ name: 'faultline_llm' });
  return client[handler](input).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** What the real SDK threw for the scenario, classified at the source, in this process. */
async function nearSide(scenarioId: string): Promise<FaultlineError> {
  const error = await chat(scenarioId).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(FaultlineError.isInstance(error), scenarioId).toBe(true);
  return error as FaultlineError;
}

describe('Restate on a real restate-server', () => {
  it('recovers on the client the report raised in the handler, for every permanent openai scenario, after one attempt', async ({
    skip,
  }) => {
    const restateServer = server(skip);
    expect(permanent.length).toBeGreaterThan(10);
    for (const scenario of permanent) {
      const runId = `permanent-${scenario.id}`;
      const outcome = await invoke(restateServer, 'complete', { runId, scenarioId: scenario.id });
      expect(outcome.ok, scenario.id).toBe(false);
      const error = (outcome as { error: unknown }).error;
      expect(error, scenario.id).toBeInstanceOf(HttpCallError);
      const near = (await nearSide(scenario.id)).toErrorReport();
      // Two failures (the handler's and this one), each with its own time: retryableAt is normalised.
      expect(stableReport(recoverErrorReport(error)), scenario.id).toEqual(stableReport(toDict(near)));
      expect((error as HttpCallError).status, scenario.id).toBe(near.httpStatus);
      expect(attempts.get(runId), scenario.id).toHaveLength(1);
    }
  }, 120_000);

  it('retries a transient failure no sooner than its Retry-After, then completes', async ({ skip }) => {
    const restateServer = server(skip);
    const near = await nearSide(shortWait.id);
    expect(near.classification.retryAfterSeconds).toBe(shortWait.expected.retryAfterSeconds);
    const waitMs = near.classification.retryAfterSeconds! * 1000;
    const runId = 'transient';
    const outcome = await invoke(restateServer, 'complete', {
      runId,
      scenarioId: shortWait.id,
      succeedFrom: 3,
    });
    expect(outcome).toEqual({ ok: true, value: 'Hello' });
    const times = attempts.get(runId)!;
    expect(times).toHaveLength(3);
    for (let index = 1; index < times.length; index++) {
      expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(waitMs);
    }
  }, 60_000);

  it("with maxWaitMs, waits for a spent quota's reset and completes; without it, fails after one attempt with the wait in the report", async ({
    skip,
  }) => {
    const restateServer = server(skip);
    const near = (await nearSide(dailyCap.id)).toErrorReport();
    expect(near).toMatchObject({ reason: 'quota', waitKind: 'quota_reset', retryAfterSeconds: 1 });
    const waited = await invoke(restateServer, 'completeWaitingForReset', {
      runId: 'quota-waited',
      scenarioId: dailyCap.id,
      succeedFrom: 2,
    });
    expect(waited).toEqual({ ok: true, value: 'Hello' });
    const times = attempts.get('quota-waited')!;
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000);
    const failed = await invoke(restateServer, 'complete', {
      runId: 'quota-final',
      scenarioId: dailyCap.id,
      succeedFrom: 2,
    });
    expect(failed.ok).toBe(false);
    expect(recoverErrorReport((failed as { error: unknown }).error)).toMatchObject({
      reason: 'quota',
      retryAfterSeconds: 1,
      retryableAt: expect.any(String),
    });
    expect(attempts.get('quota-final')).toHaveLength(1);
  }, 60_000);

  it('ends the invocation at once on a bug of our own (local_bug), with its report', async ({ skip }) => {
    const restateServer = server(skip);
    const runId = 'bug';
    const outcome = await invoke(restateServer, 'bug', { runId, scenarioId: success.id });
    expect(outcome.ok).toBe(false);
    const report = recoverErrorReport((outcome as { error: unknown }).error);
    expect(report.reason).toBe('local_bug');
    expect(report.retryable).toBe(false);
    expect(attempts.get(runId)).toHaveLength(1);
  });

  it('the floor (asTerminalError): a permanent FaultlineError thrown outside ctx.run is not retried either', async ({
    skip,
  }) => {
    const restateServer = server(skip);
    const scenario = permanent[0]!;
    const runId = 'floor';
    const outcome = await invoke(restateServer, 'unwrapped', { runId, scenarioId: scenario.id });
    expect(outcome.ok).toBe(false);
    const near = (await nearSide(scenario.id)).toErrorReport();
    expect(stableReport(recoverErrorReport((outcome as { error: unknown }).error))).toEqual(
      stableReport(toDict(near)),
    );
    expect(attempts.get(runId)).toHaveLength(1);
  });

  it('gives an UnrecoverableInvocationFailure report for a failure that carries none', () => {
    const report = recoverErrorReport(
      new HttpCallError(500, JSON.stringify({ code: 500, message: 'boom', source: 'invocation' }), 'boom'),
    );
    expect(report.errorType).toBe(UNRECOVERABLE_INVOCATION_FAILURE);
    expect(report.retryable).toBe(false);
    expect(report.message).toContain('boom');
    const tampered = recoverErrorReport(
      new HttpCallError(
        500,
        JSON.stringify({ message: 'x', metadata: { faultlineReport: '{"reason":"nope"}' } }),
        'x',
      ),
    );
    expect(tampered.errorType).toBe(UNRECOVERABLE_INVOCATION_FAILURE);
    expect(tampered.message).toContain('failed the schema');
  });
});

describe('total, no server needed', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('get');
      },
    },
  );

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'boom'],
    ['a Proxy whose getters throw', hostile],
  ])('classifies %s as terminal, and recovers an UnrecoverableInvocationFailure from it', (_name, value) => {
    const converted = toRestateError(value);
    expect(converted).toBeInstanceOf(TerminalError);
    expect(recoverErrorReport(converted).retryable).toBe(false);
    expect(faultlineAsTerminalError(value)).toBeUndefined();
    expect(recoverErrorReport(value).errorType).toBe(UNRECOVERABLE_INVOCATION_FAILURE);
  });

  it("passes Restate's own errors through untouched", () => {
    const terminal = new TerminalError('mine', { errorCode: 409 });
    expect(toRestateError(terminal)).toBe(terminal);
  });
});
