import { expectedFor, loadScenarios, type Scenario } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRIVEN_PROVIDERS,
  driveAll,
  driveScenario,
  loadProvider,
  ScenarioDidNotSettle,
  type ScenarioServers,
  startScenarioServers,
} from './index.ts';

// The driver is what the demo, the bench and the bridge tests stand on: every scenario, through
// each provider's latest SDK and bound withClassifiedErrors, must give its expected classification.
const scenarios: Scenario[] = loadScenarios();
let servers: ScenarioServers;

beforeAll(async () => {
  servers = await startScenarioServers();
});
afterAll(async () => {
  await servers?.close();
});

describe('driveScenario', () => {
  it('bounds every call: a client still waiting at the hard bound rejects naming its scenario', async () => {
    // The server never answers and the bound (300 ms) comes before the client's timeout and
    // faultline's deadline: what a client that ignores its abort would look like to the caller.
    const never = {
      id: 'openai/bound-check',
      provider: 'openai',
      response: { kind: 'socket' as const, behaviour: 'never-answer' as const },
    };
    const options = { timeoutMs: 10_000, deadlineMs: 10_000, boundMs: 300 };
    const rejection = await driveScenario(never, servers, options).catch((error: unknown) => error);
    expect(rejection).toBeInstanceOf(ScenarioDidNotSettle);
    expect((rejection as Error).message).toContain(
      'openai/bound-check (openai) did not settle within 300 ms',
    );
    // driveAll passes the bound on, so a batch rejects instead of hanging.
    await expect(driveAll([never], servers, options)).rejects.toThrow(/openai\/bound-check/);
  });

  it("drives the SDK versions this package pins, not the CLI's", async () => {
    const provider = await loadProvider('openai');
    expect(provider.sdk).toBe(await import('openai'));
  });

  it('knows every provider that has scenarios', () => {
    const providers = new Set(scenarios.map((scenario) => scenario.provider));
    expect(
      [...providers].filter((provider) => !(DRIVEN_PROVIDERS as readonly string[]).includes(provider)),
    ).toEqual([]);
  });

  for (const provider of DRIVEN_PROVIDERS) {
    it(`drives every ${provider} scenario to its expected classification`, async () => {
      const mine = scenarios.filter((scenario) => scenario.provider === provider);
      expect(mine.length).toBeGreaterThan(10);
      const mismatches: string[] = [];
      const outcomes = await driveAll(mine, servers);
      outcomes.forEach((outcome, index) => {
        const scenario = mine[index]!;
        const expected = expectedFor(scenario);
        if (expected.skip !== undefined) return;
        if (outcome.kind !== 'error') {
          mismatches.push(`${scenario.id}: succeeded`);
          return;
        }
        const report = outcome.error.toErrorReport();
        for (const key of ['category', 'reason', 'retryable', 'httpStatus'] as const) {
          if (report[key] !== expected[key])
            mismatches.push(`${scenario.id}: ${key} ${report[key]} != ${expected[key]}`);
        }
      });
      expect(mismatches).toEqual([]);
    }, 120_000);
  }
});
