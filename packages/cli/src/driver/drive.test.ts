import { expectedFor, loadScenarios } from '@faultline/llm-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  driveAll,
  driveScenario,
  loadProvider,
  PROVIDER_NAMES,
  type ScenarioServers,
  startScenarioServers,
} from './index.ts';

// The one scenario driver as the CLI ships it, on real SDKs (the CLI's own versions) against the
// loopback server. The whole catalogue is driven by tools/scenario-driver's test.
let servers: ScenarioServers;
beforeAll(async () => {
  servers = await startScenarioServers();
});
afterAll(async () => {
  await servers?.close();
});

describe('@faultline/cli/driver', () => {
  it('imports an SDK only when its provider is driven, and once', async () => {
    const imported: string[] = [];
    const importSdk = (specifier: string) => {
      imported.push(specifier);
      return import(specifier);
    };
    const openai = loadScenarios('openai').filter((scenario) => scenario.response.kind === 'http');
    const bedrock = loadScenarios('bedrock').filter((scenario) => scenario.response.kind === 'http');
    const outcomes = await driveAll(openai.slice(0, 3), servers, { importSdk });
    expect(imported).toEqual(['openai']);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['error', 'error', 'error']);
    await driveScenario(bedrock[0]!, servers, { importSdk });
    await driveScenario(openai[3]!, servers, { importSdk });
    expect(imported).toEqual(['openai', '@aws-sdk/client-bedrock-runtime']);
  });

  it("classifies a scenario as expected for the CLI's SDK, naming the driver's model and the SDK method", async () => {
    const scenario = loadScenarios('anthropic').find((candidate) => candidate.demo === 'rate limit')!;
    const outcome = await driveScenario(scenario, servers);
    if (outcome.kind !== 'error') throw new Error(`${scenario.id} succeeded`);
    const report = outcome.error.toErrorReport();
    expect(report.reason).toBe(expectedFor(scenario, '@anthropic-ai/sdk').reason);
    const { driver } = await loadProvider('anthropic');
    expect(report.model).toBe(driver.model);
    expect(report.operation).toBe(driver.operation(scenario.api, scenario.stream));
  });

  it('names a provider providers.json does not list', async () => {
    await expect(loadProvider('nope')).rejects.toThrow(
      `scenario driver: unknown provider "nope"; providers.json lists ${PROVIDER_NAMES.join(', ')}`,
    );
  });
});
