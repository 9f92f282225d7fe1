import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testFilesUnder } from './check-streams.ts';
import { about, type ProviderEntry, packagePathFor } from './provider-list.ts';

/** The harness every provider's scenarios are read through (test-fixtures/src/scenario-suite.ts). */
export const SCENARIO_SUITE_MODULE = '@faultline/test-fixtures/scenario-suite';

/**
 * A provider runs its scenario folder through the scenario suite: one of its test files calls
 * `scenarioSuite(…)` from the harness (or `adapterScenarioSuite(…)`, which runs it with the checks
 * every adapter read through the whole pipeline shares), so every recorded scenario is played
 * through its real client (every SDK major) and checked against the scenario's expectation, written once.
 */
export function checkScenarioSuite(repositoryRoot: string, provider: ProviderEntry): string[] {
  const packageDirectory = join(repositoryRoot, packagePathFor(provider.name));
  const runsSuite = testFilesUnder(packageDirectory).some((file) => {
    const text = readFileSync(file, 'utf8');
    return text.includes(SCENARIO_SUITE_MODULE) && /\b(?:scenarioSuite|adapterScenarioSuite)\s*\(/.test(text);
  });
  if (runsSuite) return [];
  return [
    `${about(provider.name)} package ${packagePathFor(provider.name)} has no test running its scenarios through the scenario suite (scenarioSuite from ${SCENARIO_SUITE_MODULE})`,
  ];
}
