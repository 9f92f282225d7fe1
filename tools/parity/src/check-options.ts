import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testFilesUnder } from './check-streams.ts';
import { about, type ProviderEntry, packagePathFor } from './provider-list.ts';

/** The harness every provider's options are tested through (test-fixtures/src/option-matrix.ts). */
export const OPTION_MATRIX_MODULE = '@faultline/test-fixtures/option-matrix';

/**
 * A provider with an SDK runs the option matrix: one of its test files calls `optionMatrix(…)` from
 * the harness with its bound `withClassifiedErrors` (and its stream guard, when providers.json names
 * one), so every documented option (`deadlineMs`, `signal`, `retry`, `idempotent`, `inspectResult`,
 * `detectBlockedAnswer`, the guard's `idleTimeoutMs` and `signal`) is checked through every installed SDK major. A
 * fetch-based provider (`sdk: null`) has no SDK majors to run it on: not checked here.
 */
export function checkOptions(repositoryRoot: string, provider: ProviderEntry): string[] {
  if (provider.sdk === null) return [];
  const packageDirectory = join(repositoryRoot, packagePathFor(provider.name));
  const guard = provider.streamGuard;
  const runsMatrix = testFilesUnder(packageDirectory).some((file) => {
    const text = readFileSync(file, 'utf8');
    return (
      text.includes(OPTION_MATRIX_MODULE) &&
      /\boptionMatrix\s*\(/.test(text) &&
      /\bwithClassifiedErrors\b/.test(text) &&
      (guard === undefined || text.includes(guard))
    );
  });
  if (runsMatrix) return [];
  return [
    `${about(provider.name)} package ${packagePathFor(provider.name)} has no test running withClassifiedErrors${guard === undefined ? '' : ` and ${guard}`} through the option matrix (optionMatrix from ${OPTION_MATRIX_MODULE})`,
  ];
}
