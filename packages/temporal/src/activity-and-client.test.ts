import { type ErrorReport, type FaultlineError, toDict } from '@faultline/render';
import { driveAll, type ScenarioServers, startScenarioServers } from '@faultline/scenario-driver';
import { loadScenarios, type Scenario } from '@faultline/test-fixtures';
import { WorkflowFailedError } from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  DefaultFailureConverter,
  defaultPayloadConverter,
  RetryState,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAULTLINE_FAILURE_TYPE,
  type FaultlineActivityOptions,
  recoverErrorReport,
  UNRECOVERABLE_WORKFLOW_FAILURE,
  withFaultlineActivity,
} from './index.ts';

const converter = new DefaultFailureConverter();
const scenarios: Scenario[] = loadScenarios();
const nearSide = new Map<string, FaultlineError>();
let servers: ScenarioServers;

beforeAll(async () => {
  servers = await startScenarioServers();
  const outcomes = await driveAll(scenarios, servers);
  outcomes.forEach((outcome, index) => {
    if (outcome.kind === 'error') nearSide.set(scenarios[index]!.id, outcome.error);
  });
}, 120_000);

afterAll(async () => {
  await servers?.close();
});

/** Runs a wrapped activity that fails with `error` in Temporal's own mock activity environment. */
async function failInActivity(
  error: unknown,
  options: FaultlineActivityOptions = {},
): Promise<ApplicationFailure> {
  const activity = withFaultlineActivity(async () => {
    throw error;
  }, options);
  try {
    await new MockActivityEnvironment().run(activity);
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    return thrown as ApplicationFailure;
  }
  throw new Error('the activity did not fail');
}

/** What the Temporal client throws for a workflow whose activity failed: through the real converter and the wire. */
function acrossTheWire(failure: ApplicationFailure, viaChild: boolean): WorkflowFailedError {
  let error: Error = new ActivityFailure(
    'Activity task failed',
    'callModel',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'worker@host',
    failure,
  );
  if (viaChild) {
    error = new ChildWorkflowFailure(
      'default',
      { workflowId: 'child', runId: 'run' },
      'childWorkflow',
      RetryState.NON_RETRYABLE_FAILURE,
      error,
    );
  }
  const proto = converter.errorToFailure(error, defaultPayloadConverter);
  const bytes = temporal.api.failure.v1.Failure.encode(proto).finish();
  const decoded = temporal.api.failure.v1.Failure.decode(bytes);
  const cause = converter.failureToError(decoded, defaultPayloadConverter);
  return new WorkflowFailedError('Workflow execution failed', cause, RetryState.NON_RETRYABLE_FAILURE);
}

describe('activity side: withFaultlineActivity in MockActivityEnvironment', () => {
  it('drove every fixture scenario to a classified failure', () => {
    expect(scenarios.length).toBeGreaterThan(50);
    expect(scenarios.filter((scenario) => !nearSide.has(scenario.id)).map((s) => s.id)).toEqual([]);
  });

  it('raises an ApplicationFailure whose retry policy inputs come from the classification, for every scenario', async () => {
    for (const [id, error] of nearSide) {
      const report = error.toErrorReport();
      const failure = await failInActivity(error);
      expect(failure.type, id).toBe(FAULTLINE_FAILURE_TYPE);
      expect(failure.nonRetryable, id).toBe(!report.retryable);
      expect(failure.details?.[0], id).toEqual(toDict(report));
      if (report.retryable && report.retryAfterSeconds !== undefined) {
        expect(failure.nextRetryDelay, id).toBe(`${Math.ceil(report.retryAfterSeconds * 1000)}ms`);
      } else {
        expect(failure.nextRetryDelay ?? undefined, id).toBeUndefined();
      }
    }
  });

  it('with maxWaitMs, a spent quota whose reset is within it is retried once it resets; a longer wait, or none, stays final', async () => {
    const maxWaitMs = 24 * 3_600_000;
    let waited = 0;
    for (const [id, error] of nearSide) {
      const report = error.toErrorReport();
      const failure = await failInActivity(error, { maxWaitMs });
      expect(failure.details?.[0], id).toEqual(toDict(report));
      const resetMs =
        report.waitKind === 'quota_reset' && report.retryAfterSeconds !== undefined
          ? Math.ceil(report.retryAfterSeconds * 1000)
          : undefined;
      if (!report.retryable && resetMs !== undefined && resetMs <= maxWaitMs) {
        waited += 1;
        expect(failure.nonRetryable, id).toBe(false);
        expect(failure.nextRetryDelay, id).toBe(`${resetMs}ms`);
      } else {
        expect(failure.nonRetryable, id).toBe(!report.retryable);
      }
    }
    // The recorded answers hold spent quotas that reset within a day (a per-day cap's "try again in 14h").
    expect(waited).toBeGreaterThan(0);
  });

  it('classifies a failure that is not yet a FaultlineError: a real programming error is never retryable', async () => {
    const failure = await failInActivity(
      (() => {
        try {
          (undefined as unknown as { field: string }).field.toString();
        } catch (error) {
          return error;
        }
      })(),
    );
    expect(failure.nonRetryable).toBe(true);
    expect((failure.details?.[0] as ErrorReport | undefined)?.reason).toBe('local_bug');
  });

  it("leaves Temporal's own failures alone", async () => {
    const own = ApplicationFailure.retryable('my own failure', 'MyType');
    const failure = await failInActivity(own);
    expect(failure).toBe(own);
  });
});

describe('client side: recoverErrorReport across the real failure converter and protobuf', () => {
  it('recovers the near-side report for every scenario, directly and through a child workflow', async () => {
    for (const [id, error] of nearSide) {
      const near = toDict(error.toErrorReport());
      const failure = await failInActivity(error);
      expect(recoverErrorReport(acrossTheWire(failure, false)), id).toEqual(near);
      expect(recoverErrorReport(acrossTheWire(failure, true)), `${id} via child`).toEqual(near);
    }
  });

  it('synthesises an unrecoverable report, keeping the message, when the chain holds no report', () => {
    const plain = acrossTheWire(
      ApplicationFailure.nonRetryable('plain failure from elsewhere', 'Other'),
      false,
    );
    const report = recoverErrorReport(plain);
    expect(report.errorType).toBe(UNRECOVERABLE_WORKFLOW_FAILURE);
    expect(report.retryable).toBe(false);
    expect(report.message).toContain('plain failure from elsewhere');
  });

  it('marks a report that fails the schema, and still returns a usable report', () => {
    const tampered = ApplicationFailure.create({
      message: 'tampered',
      type: FAULTLINE_FAILURE_TYPE,
      nonRetryable: true,
      details: [{ schemaVersion: 1, reason: 'not-a-reason' }],
    });
    const report = recoverErrorReport(acrossTheWire(tampered, false));
    expect(report.errorType).toBe(UNRECOVERABLE_WORKFLOW_FAILURE);
    expect(report.message).toMatch(/failed the schema/);
    expect(report.message).toContain('tampered');
  });

  it('is total on hostile values', () => {
    const cyclic: { cause?: unknown; message: string } = { message: 'loop' };
    cyclic.cause = cyclic;
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    for (const value of [null, undefined, 0, 'text', Symbol('s'), cyclic, throwing]) {
      expect(recoverErrorReport(value).errorType).toBe(UNRECOVERABLE_WORKFLOW_FAILURE);
    }
  });
});
