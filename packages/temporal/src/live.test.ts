import { fileURLToPath } from 'node:url';
import { toDict } from '@faultline/render';
import { driveScenario, type ScenarioServers, startScenarioServers } from '@faultline/scenario-driver';
import { loadScenario } from '@faultline/test-fixtures';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverErrorReport, withFaultlineActivity } from './index.ts';

// Runs only against a real Temporal server: `TEMPORAL_ADDRESS=127.0.0.1:7233 pnpm --filter
// @faultline/temporal test` (e.g. `temporal server start-dev`). No server can be started on the
// CI machines (its binaries download from outside the npm registry), so CI skips this file; the
// offline seams (MockActivityEnvironment, the failure converter, replay) are tested elsewhere.
const address = process.env.TEMPORAL_ADDRESS;

describe.runIf(address !== undefined && address !== '')('live Temporal server', () => {
  let servers: ScenarioServers;
  let worker: Worker;
  let client: Client;
  let running: Promise<void>;
  const calls = new Map<string, number>();
  const taskQueue = `faultline-live-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    servers = await startScenarioServers();
    const connection = await NativeConnection.connect({ address: address! });
    worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./test-workflows/live-workflows.ts', import.meta.url)),
      bundlerOptions: {
        webpackConfigHook: (config) => {
          config.resolve = {
            ...config.resolve,
            conditionNames: ['@faultline/source', 'import', 'module', 'default'],
          };
          return config;
        },
      },
      activities: {
        // The real SDK call, classified at the source by the provider's bound wrapper.
        callModel: withFaultlineActivity(async (scenarioId: string) => {
          calls.set(scenarioId, (calls.get(scenarioId) ?? 0) + 1);
          const scenario = loadScenario(scenarioId);
          const outcome = await driveScenario(scenario, servers);
          if (outcome.kind === 'error') throw outcome.error;
          return 'ok';
        }),
      },
    });
    running = worker.run();
    client = new Client({ connection: await Connection.connect({ address: address! }) });
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await servers?.close();
  });

  async function failedWorkflow(scenarioId: string): Promise<WorkflowFailedError> {
    try {
      await client.workflow.execute('callModelWorkflow', {
        taskQueue,
        workflowId: `${scenarioId.replace('/', '-')}-${Date.now()}`,
        args: [scenarioId],
      });
    } catch (error) {
      expect(error).toBeInstanceOf(WorkflowFailedError);
      return error as WorkflowFailedError;
    }
    throw new Error(`${scenarioId}: the workflow did not fail`);
  }

  it('a permanent failure is attempted once and its report crosses the server intact', async () => {
    const id = 'openai/invalid-api-key';
    const near = await driveScenario(loadScenario(id), servers);
    const error = await failedWorkflow(id);
    expect(calls.get(id)).toBe(1);
    expect(near.kind).toBe('error');
    if (near.kind === 'error') expect(recoverErrorReport(error)).toEqual(toDict(near.error.toErrorReport()));
  }, 60_000);

  it('a transient failure is retried by the server up to the retry policy', async () => {
    const id = 'openai/overloaded-503';
    const error = await failedWorkflow(id);
    expect(calls.get(id)).toBe(3);
    expect(recoverErrorReport(error).reason).toBe('overloaded');
  }, 60_000);
});
