import { type ErrorReport, type FaultlineError, toDict } from '@faultline/render';
import {
  driveAll,
  driveScenario,
  type ScenarioServers,
  startScenarioServers,
} from '@faultline/scenario-driver';
import { loadScenarios, type Scenario } from '@faultline/test-fixtures';
import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FaultlineProcessorOptions,
  faultlineBackoffStrategy,
  faultlineJobOptions,
  recoverErrorReport,
  UNRECOVERABLE_JOB_FAILURE,
  withFaultlineProcessor,
} from './index.ts';

// A real Redis: `.ci/run` starts one and sets REDIS_URL. In CI its absence fails the suite
// (the first test throws); outside CI the suite is skipped with a message.
const redisUrl = process.env.REDIS_URL;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (redisUrl === undefined && !inCi) {
  console.warn('@faultline/bullmq: REDIS_URL is not set; skipping the BullMQ integration tests.');
}

describe.runIf(redisUrl !== undefined || inCi)('BullMQ on a real Redis', () => {
  let connection: Redis;
  let servers: ScenarioServers;
  const nearSide = new Map<string, FaultlineError>();
  const scenarios: Scenario[] = loadScenarios();
  const prefix = `faultline-test-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    if (redisUrl === undefined) throw new Error('REDIS_URL must be set in CI: .ci/run starts redis-server');
    connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    await connection.ping();
    servers = await startScenarioServers();
    // The near side: what each provider's real SDK threw, classified at the source.
    const outcomes = await driveAll(scenarios, servers);
    outcomes.forEach((outcome, index) => {
      if (outcome.kind === 'error') nearSide.set(scenarios[index]!.id, outcome.error);
    });
  }, 120_000);

  afterAll(async () => {
    await servers?.close();
    await connection?.quit();
  });

  interface FinishedJob {
    data: unknown;
    state: string;
    attemptsMade: number;
    failedReason: string;
    finishedOn: number | undefined;
  }

  async function runQueue(
    name: string,
    processor: (job: Job) => Promise<unknown>,
    jobs: Array<{ name: string; data: unknown; attempts?: number; delay?: number }>,
    processorOptions: FaultlineProcessorOptions = {},
  ): Promise<FinishedJob[]> {
    const queueName = `${prefix}-${name}`;
    const queue = new Queue(queueName, { connection, prefix });
    const events = new QueueEvents(queueName, { connection, prefix });
    await events.waitUntilReady();
    const worker = new Worker(queueName, withFaultlineProcessor(processor, processorOptions), {
      connection,
      prefix,
      concurrency: 8,
      settings: { backoffStrategy: faultlineBackoffStrategy({ baseDelayMs: 50 }) },
    });
    try {
      const added = await queue.addBulk(
        jobs.map((job) => ({
          name: job.name,
          data: job.data,
          opts: faultlineJobOptions(job.attempts ?? 1, job.delay ?? 50),
        })),
      );
      await Promise.all(added.map((job) => job.waitUntilFinished(events, 60_000).catch(() => undefined)));
      // Read each job's final state before the queue is cleaned up.
      return Promise.all(
        added.map(async (added) => {
          const job = (await queue.getJob(added.id!))!;
          return {
            data: job.data,
            state: await job.getState(),
            attemptsMade: job.attemptsMade,
            failedReason: job.failedReason,
            finishedOn: job.finishedOn,
          };
        }),
      );
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }

  it('drove every fixture scenario to a classified failure on the near side', () => {
    expect(scenarios.length).toBeGreaterThan(50);
    const missing = scenarios.filter((scenario) => !nearSide.has(scenario.id)).map((scenario) => scenario.id);
    expect(missing).toEqual([]);
  });

  it('recovers, on the far side of the queue, the report raised on the near side, for every scenario', async () => {
    const ids = [...nearSide.keys()];
    const jobs = await runQueue(
      'roundtrip',
      async (job) => {
        throw nearSide.get((job.data as { id: string }).id)!;
      },
      ids.map((id) => ({ name: id, data: { id } })),
    );
    for (const job of jobs) {
      const id = (job.data as { id: string }).id;
      const near: ErrorReport = nearSide.get(id)!.toErrorReport();
      expect(job.finishedOn, id).toBeTypeOf('number');
      expect(recoverErrorReport(job), id).toEqual(toDict(near));
    }
  });

  it('attempts a permanent failure exactly once, whatever attempts the job allows', async () => {
    const permanent = [...nearSide.entries()].filter(([, error]) => !error.classification.retryable);
    expect(permanent.length).toBeGreaterThan(10);
    const calls = new Map<string, number>();
    const jobs = await runQueue(
      'permanent',
      async (job) => {
        const id = (job.data as { id: string }).id;
        calls.set(id, (calls.get(id) ?? 0) + 1);
        throw nearSide.get(id)!;
      },
      permanent.map(([id]) => ({ name: id, data: { id }, attempts: 5 })),
    );
    for (const job of jobs) {
      const id = (job.data as { id: string }).id;
      expect(job.state, id).toBe('failed');
      expect(job.attemptsMade, id).toBe(1);
      expect(calls.get(id), id).toBe(1);
    }
  });

  it('retries a transient failure no sooner than its Retry-After, then completes', async () => {
    // A real openai SDK error for a 429 whose Retry-After (1 s) is short enough to wait for here.
    const shortWait = {
      id: 'openai/short-retry-after',
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
      },
    } as Scenario;
    const outcome = await driveScenario(shortWait, servers);
    expect(outcome.kind).toBe('error');
    const error = (outcome as { error: FaultlineError }).error;
    const id = shortWait.id;
    expect(error.classification.retryAfterSeconds).toBe(1);
    const waitMs = error.classification.retryAfterSeconds! * 1000;
    const startedAt: number[] = [];
    const [job] = await runQueue('transient', async () => {
      startedAt.push(Date.now());
      if (startedAt.length < 3) throw error;
      return 'done';
    }, [{ name: id, data: { id }, attempts: 5, delay: 10 }]);
    expect(job!.state).toBe('completed');
    expect(startedAt).toHaveLength(3);
    for (let attempt = 1; attempt < startedAt.length; attempt += 1) {
      expect(startedAt[attempt]! - startedAt[attempt - 1]!).toBeGreaterThanOrEqual(waitMs);
    }
  }, 30_000);

  it("with maxWaitMs, waits for a spent quota's reset (one attempt) instead of failing; without it, or past it, fails at once", async () => {
    // A real openai SDK error for a per-day cap whose reset (Retry-After 1 s) is short enough to wait for here.
    const dailyCap = {
      id: 'openai/daily-cap-resets-soon',
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
      },
    } as Scenario;
    const outcome = await driveScenario(dailyCap, servers);
    expect(outcome.kind).toBe('error');
    const error = (outcome as { error: FaultlineError }).error;
    expect(error.toErrorReport()).toMatchObject({
      reason: 'quota',
      waitKind: 'quota_reset',
      retryAfterSeconds: 1,
    });
    const play = async (name: string, options: FaultlineProcessorOptions) => {
      const startedAt: number[] = [];
      const [job] = await runQueue(
        name,
        async () => {
          startedAt.push(Date.now());
          if (startedAt.length < 2) throw error;
          return 'done';
        },
        [{ name, data: { id: dailyCap.id }, attempts: 3, delay: 10 }],
        options,
      );
      return { job: job!, startedAt };
    };
    const waited = await play('quota-waited', { maxWaitMs: 60_000 });
    expect(waited.job.state).toBe('completed');
    expect(waited.startedAt).toHaveLength(2);
    expect(waited.startedAt[1]! - waited.startedAt[0]!).toBeGreaterThanOrEqual(1000);
    for (const [name, options] of [
      ['quota-default', {}],
      ['quota-past-cap', { maxWaitMs: 999 }],
    ] as const) {
      const failed = await play(name, options);
      expect(failed.job.state, name).toBe('failed');
      expect(failed.job.attemptsMade, name).toBe(1);
      expect(failed.startedAt, name).toHaveLength(1);
      expect(recoverErrorReport(failed.job)).toMatchObject({
        reason: 'quota',
        retryAfterSeconds: 1,
        retryableAt: expect.any(String),
      });
    }
  }, 30_000);

  it('classifies a failure that is not yet a FaultlineError (a local bug ends the job at once)', async () => {
    const [job] = await runQueue(
      'local-bug',
      async (job) => {
        // A real programming error: reading a property of undefined.
        return (job.data as { missing: { deeper: string } }).missing.deeper;
      },
      [{ name: 'bug', data: {}, attempts: 4 }],
    );
    expect(job!.attemptsMade).toBe(1);
    const report = recoverErrorReport(job);
    expect(report.reason).toBe('local_bug');
    expect(report.retryable).toBe(false);
  });

  it('synthesises a never-retryable report when a failed job carries none, or a broken one', () => {
    const none = recoverErrorReport({ failedReason: 'worker crashed' });
    expect(none.errorType).toBe(UNRECOVERABLE_JOB_FAILURE);
    expect(none.retryable).toBe(false);
    expect(none.message).toContain('worker crashed');

    const broken = recoverErrorReport({ failedReason: 'oops\nfaultline-report: {"schemaVersion":1}' });
    expect(broken.errorType).toBe(UNRECOVERABLE_JOB_FAILURE);
    expect(broken.message).toContain('failed the schema');

    for (const hostile of [null, undefined, 42, 'text', {}, { failedReason: 7 }]) {
      expect(recoverErrorReport(hostile).errorType).toBe(UNRECOVERABLE_JOB_FAILURE);
    }
  });
});
