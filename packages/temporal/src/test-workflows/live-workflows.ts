// Workflows for the live test (a real Temporal server, TEMPORAL_ADDRESS): one activity call whose
// failure faultline classified at the source.
import { proxyActivities } from '@temporalio/workflow';

const { callModel } = proxyActivities<{ callModel(scenarioId: string): Promise<string> }>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '100 milliseconds' },
});

export async function callModelWorkflow(scenarioId: string): Promise<string> {
  return callModel(scenarioId);
}
