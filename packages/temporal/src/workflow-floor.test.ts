import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import {
  bundleWorkflowCode,
  DefaultLogger,
  type LogEntry,
  makeTelemetryFilterString,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { faultlineWorkerOptions } from './index.ts';

// Core's logs are the evidence: without a floor, a workflow that throws a non-Temporal error
// fails its workflow task ("Failing workflow task") and Temporal retries that task forever.
const logs: LogEntry[] = [];
Runtime.install({
  logger: new DefaultLogger('WARN', (entry) => {
    logs.push(entry);
  }),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
});

/** A hand-written history: the workflow started and its first task was handed to a worker. */
// Built with protobufjs's own `fromObject` (int64 fields become Long values): `historyFromJSON`
// goes through a second protobufjs copy and yields timestamps that Temporal's time helpers reject.
function startedHistory(workflowType: string) {
  const eventTime = { seconds: 1_763_683_200, nanos: 0 };
  return temporal.api.history.v1.History.fromObject({
    events: [
      {
        eventId: 1,
        eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
        workflowExecutionStartedEventAttributes: {
          workflowType: { name: workflowType },
          taskQueue: { name: 'faultline-replay' },
          workflowTaskTimeout: { seconds: 10 },
          originalExecutionRunId: 'run-1',
          firstExecutionRunId: 'run-1',
          attempt: 1,
          identity: 'replay-test',
        },
      },
      {
        eventId: 2,
        eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
        workflowTaskScheduledEventAttributes: {
          taskQueue: { name: 'faultline-replay' },
          startToCloseTimeout: { seconds: 10 },
          attempt: 1,
        },
      },
      {
        eventId: 3,
        eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_TASK_STARTED',
        workflowTaskStartedEventAttributes: {
          scheduledEventId: 2,
          identity: 'replay-test',
          requestId: 'request-1',
        },
      },
    ],
  });
}

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./test-workflows/floor-workflows.ts', import.meta.url)),
    // Read workspace packages from `src` (no build needed), as every test here does.
    webpackConfigHook: (config) => {
      config.resolve = {
        ...config.resolve,
        conditionNames: ['@faultline/source', 'import', 'module', 'default'],
        extensionAlias: { '.js': ['.ts', '.js'] },
      };
      return config;
    },
    logger: new DefaultLogger('ERROR'),
  });
}, 120_000);

/**
 * The recorded history of a workflow that FAILED on its first task: started, task scheduled,
 * started, completed with a FailWorkflowExecution command, execution failed. Replay checks that the
 * workflow code makes the same decision: it accepts the history only if the code fails the
 * workflow, and rejects it if the code fails the workflow task instead (the retry-forever path).
 */
function failedHistory(workflowType: string) {
  const history = startedHistory(workflowType);
  const eventTime = { seconds: 1_763_683_200, nanos: 0 };
  const more = temporal.api.history.v1.History.fromObject({
    events: [
      {
        eventId: 4,
        eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
        workflowTaskCompletedEventAttributes: {
          scheduledEventId: 2,
          startedEventId: 3,
          identity: 'replay-test',
        },
      },
      {
        eventId: 5,
        eventTime,
        eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED',
        workflowExecutionFailedEventAttributes: {
          failure: { message: "This model's maximum context length is 8192 tokens." },
          workflowTaskCompletedEventId: 4,
        },
      },
    ],
  });
  history.events.push(...more.events);
  return history;
}

async function replay(workflowType: string, options: Record<string, unknown>): Promise<unknown> {
  try {
    await Worker.runReplayHistory(
      { workflowBundle, ...options },
      failedHistory(workflowType),
      `wf-${workflowType}`,
    );
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('workflow side: the floor, proven by replaying a recorded history', () => {
  it('without the floor, a FaultlineError fails the workflow task instead (the retry-forever path)', async () => {
    const error = await replay('throwsFaultlineError', {});
    expect(error).toBeDefined();
    expect(String(error)).toMatch(/workflow task failure/i);
    expect(String(error)).toContain('maximum context length');
  }, 60_000);

  it('with faultlineWorkerOptions(), the same error fails the workflow, as recorded', async () => {
    expect(await replay('throwsFaultlineError', faultlineWorkerOptions())).toBeUndefined();
  }, 60_000);

  it('with withFaultlineWorkflow(), the workflow fails with no worker option needed', async () => {
    expect(await replay('wrappedThrowsFaultlineError', {})).toBeUndefined();
  }, 60_000);

  it('keeps options the user already had', () => {
    expect(faultlineWorkerOptions({ '*': ['MyError'], flow: ['Other'] })).toEqual({
      workflowFailureErrorTypes: { '*': ['MyError', 'FaultlineError'], flow: ['Other'] },
    });
  });
});
