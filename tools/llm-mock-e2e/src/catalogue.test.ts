import {
  expectedFor,
  loadScenarios,
  type MockProvider,
  PROVIDERS,
  type ProviderKey,
  type Scenario,
  startMockProvider,
} from '@faultline/llm-mock';
import { driveScenario, type ScenarioTargets } from '@faultline/scenario-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Every failure of the catalogue, scripted through the public API (`mock.script(provider,
// [{ kind: 'scenario', id }])`, or `unreachableUrl` for the failures that happen before a
// connection), played to the provider's real SDK, classified by its extractor: the
// classification must be the scenario's `expected`.
const mocks = new Map<ProviderKey, MockProvider>();

beforeAll(async () => {
  for (const provider of PROVIDERS) mocks.set(provider, await startMockProvider({ providers: [provider] }));
});
afterAll(async () => {
  await Promise.all([...mocks.values()].map((mock) => mock.close()));
});

function scripted(mock: MockProvider, provider: ProviderKey): ScenarioTargets {
  const target = {
    baseUrlFor(scenario: Pick<Scenario, 'response'>) {
      const response = scenario.response;
      if (response.kind === 'dns-failure') return mock.unreachableUrl('dns');
      if (response.kind === 'socket' && response.behaviour === 'refuse')
        return mock.unreachableUrl('refused');
      mock.script(provider, [{ kind: 'scenario', id: (scenario as Scenario).id }]);
      return mock.url(provider);
    },
  };
  // The mock speaks every provider's protocol on its own URL.
  return { forProtocol: () => target };
}

describe('every catalogue failure, scripted on the mock, through each real SDK', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: each scenario gives its expected classification`, async () => {
      const mock = mocks.get(provider)!;
      const scenarios = loadScenarios(provider);
      expect(scenarios.length).toBeGreaterThan(10);
      const mismatches: string[] = [];
      for (const scenario of scenarios) {
        mock.reset();
        const expected = expectedFor(scenario);
        const outcome = await driveScenario(scenario, scripted(mock, provider));
        const connected =
          !['dns-failure'].includes(scenario.response.kind) &&
          !(scenario.response.kind === 'socket' && scenario.response.behaviour === 'refuse');
        if (connected) {
          const answered = mock.requests(provider).map((request) => request.answer.scenarioId);
          if (answered[0] !== scenario.id)
            mismatches.push(`${scenario.id}: the mock answered ${answered.join(', ') || 'nothing'}`);
          if (mock.pending(provider) !== 0) mismatches.push(`${scenario.id}: the step was not consumed`);
        }
        if (expected.skip !== undefined) continue;
        if (outcome.kind !== 'error') {
          mismatches.push(`${scenario.id}: succeeded`);
          continue;
        }
        const report = outcome.error.toErrorReport();
        for (const key of ['category', 'reason', 'retryable', 'httpStatus'] as const) {
          if (report[key] !== expected[key])
            mismatches.push(`${scenario.id}: ${key} ${report[key]} != ${expected[key]}`);
        }
      }
      expect(mismatches).toEqual([]);
    }, 180_000);
  }
});
