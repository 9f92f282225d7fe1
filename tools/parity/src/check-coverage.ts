import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FailureReason } from '@faultline/classify';
import { loadProviderCoverage, loadScenarios, type Scenario } from '@faultline/test-fixtures';
import { about, type ProviderEntry, scenarioPathFor } from './provider-list.ts';

/**
 * Reasons no provider scenario has to cover: `local_bug` is thrown by the caller's own code
 * (a TypeError, a ReferenceError), never by a provider or its SDK, and render's built-in
 * `localBugExtractor` classifies it; what parity demands instead is that every extractor
 * leaves such errors alone (see conformance). `unknown` is NOT exempt: a provider whose SDK can
 * throw something no row fits must record it, and one that cannot must say why.
 */
// local_bug comes from our own code, cancelled from the caller's own signal: neither from a provider
// response, so no scenario can show them (the option matrix covers the caller's abort per provider).
export const EXEMPT_REASONS: readonly FailureReason[] = ['local_bug', 'cancelled'];

const TRIVIAL_WORDS =
  /^(n\/?a|none|no|todo|tbd|fixme|x+|-+|\.+|cannot happen|can't happen|never|not applicable|impossible|untested)$/i;

/** A `cannotHappen` explanation a reader can check: at least five words and 24 characters, not a placeholder. */
export function isNonTrivialExplanation(text: string): boolean {
  const trimmed = text.trim();
  if (TRIVIAL_WORDS.test(trimmed)) return false;
  if (/\b(todo|tbd|fixme)\b/i.test(trimmed)) return false;
  return trimmed.length >= 24 && trimmed.split(/\s+/).length >= 5;
}

/**
 * Every FailureReason is either the `expected.reason` of one of the provider's scenarios or
 * listed in `_coverage.json` `cannotHappen` with a non-trivial explanation (exempt: `local_bug`, `cancelled`).
 * A reason both covered and listed as impossible is a contradiction, reported too.
 */
export function checkScenarioCoverage(repositoryRoot: string, provider: ProviderEntry): string[] {
  const prefix = about(provider.name);
  const folder = scenarioPathFor(provider.name);
  const directory = join(repositoryRoot, 'packages', 'llm-mock', 'scenarios');
  if (!existsSync(join(directory, provider.name))) {
    return [`${prefix} has no fixture folder ${folder} (its scenarios and _coverage.json)`];
  }
  let scenarios: Scenario[];
  try {
    scenarios = loadScenarios(provider.name, { directory });
  } catch (error) {
    return [`${prefix} a scenario in ${folder} is invalid: ${(error as Error).message}`];
  }
  let cannotHappen: Partial<Record<FailureReason, string>> = {};
  const problems: string[] = [];
  try {
    const coverage = loadProviderCoverage(provider.name, { directory });
    if (coverage === undefined) problems.push(`${prefix} ${folder}/_coverage.json is missing`);
    else cannotHappen = coverage.cannotHappen;
  } catch (error) {
    problems.push(`${prefix} ${folder}/_coverage.json is invalid: ${(error as Error).message}`);
  }
  if (scenarios.length === 0) problems.push(`${prefix} ${folder} has no scenarios`);

  const covered = new Map<string, string>();
  for (const scenario of scenarios) {
    if (!covered.has(scenario.expected.reason)) covered.set(scenario.expected.reason, scenario.id);
  }
  for (const reason of FailureReason.options) {
    const explanation = cannotHappen[reason];
    const scenario = covered.get(reason);
    if (scenario !== undefined) {
      if (explanation !== undefined) {
        problems.push(
          `${prefix} ${folder}/_coverage.json says '${reason}' cannot happen, but scenario ${scenario} expects it`,
        );
      }
      continue;
    }
    if (EXEMPT_REASONS.includes(reason)) continue;
    if (explanation === undefined) {
      problems.push(
        `${prefix} has no fixture scenario for reason '${reason}' in ${folder} (add one, or list it in ${folder}/_coverage.json cannotHappen with the reason it cannot happen)`,
      );
    } else if (!isNonTrivialExplanation(explanation)) {
      problems.push(
        `${prefix} ${folder}/_coverage.json gives a trivial explanation for '${reason}': ${JSON.stringify(explanation)} (say why this provider cannot produce it)`,
      );
    }
  }
  return problems;
}
