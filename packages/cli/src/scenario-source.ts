import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Scenario, scenariosDir } from '@faultline/llm-mock';
import * as v from 'valibot';
import { CommandFailure } from './terminal.ts';

/**
 * Where the scenario files are: the catalogue @faultline/llm-mock ships (`scenariosDir`), or
 * `FAULTLINE_SCENARIOS_DIR` when set.
 */
export function findScenariosDirectory(environment: NodeJS.ProcessEnv = process.env): string {
  const override = environment.FAULTLINE_SCENARIOS_DIR;
  if (override !== undefined && override !== '') return override;
  return scenariosDir;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Provider folders (not starting with `_`), sorted. */
export function scenarioProviders(directory: string): string[] {
  if (!existsSync(directory)) {
    throw new CommandFailure(`scenario folder ${directory} does not exist`, 1);
  }
  return readdirSync(directory)
    .filter((name) => !name.startsWith('_') && isDirectory(join(directory, name)))
    .sort();
}

/**
 * The scenarios of one provider folder (only those with a `demo` label when `demoOnly`); an
 * unreadable or invalid file breaks the demo and is named.
 */
export function readProviderScenarios(directory: string, provider: string, demoOnly = false): Scenario[] {
  const folder = join(directory, provider);
  const scenarios: Scenario[] = [];
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith('.json') || file.startsWith('_')) continue;
    const path = join(folder, file);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new CommandFailure(`scenario file ${path} is not valid JSON: ${(error as Error).message}`, 1);
    }
    if (demoOnly && (typeof data !== 'object' || data === null || !('demo' in data))) continue;
    const parsed = v.safeParse(Scenario, data);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      throw new CommandFailure(
        `scenario file ${path} is invalid: ${v.getDotPath(issue) ?? ''} ${issue.message}`.trim(),
        1,
      );
    }
    scenarios.push(parsed.output);
  }
  return scenarios.sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
}

/** The scenarios with a `demo` label, per provider folder. */
export function loadDemoScenarios(directory: string): Map<string, Scenario[]> {
  const byProvider = new Map<string, Scenario[]>();
  for (const provider of scenarioProviders(directory)) {
    const labelled = readProviderScenarios(directory, provider, true).filter(
      (scenario) => scenario.demo !== undefined,
    );
    if (labelled.length > 0) byProvider.set(provider, labelled);
  }
  return byProvider;
}
