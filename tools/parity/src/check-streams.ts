import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderModule } from './check-exports.ts';
import { about, type ProviderEntry, packagePathFor } from './provider-list.ts';

/** The harness every stream guard is tested through (test-fixtures/src/stream-matrix.ts). */
const MATRIX_MODULE = '@faultline/test-fixtures/stream-matrix';

export function testFilesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...testFilesUnder(path));
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/**
 * A provider that declares `streamGuard` in providers.json exports that function, and one of its
 * test files runs it through the stream matrix (`streamMatrix(…)` from the harness, naming the
 * guard): every behaviour × every installed SDK major × every streaming surface.
 */
export function checkStreams(
  repositoryRoot: string,
  provider: ProviderEntry,
  module: ProviderModule | undefined,
): string[] {
  const guard = provider.streamGuard;
  if (guard === undefined || module === undefined) return [];
  const prefix = `${about(provider.name)} package ${packagePathFor(provider.name)}`;
  const problems: string[] = [];
  if (typeof module[guard] !== 'function') {
    problems.push(`${prefix} does not export its stream guard ${guard} (providers.json names it)`);
  }
  const packageDirectory = join(repositoryRoot, packagePathFor(provider.name));
  const runsMatrix = testFilesUnder(packageDirectory).some((file) => {
    const text = readFileSync(file, 'utf8');
    return text.includes(MATRIX_MODULE) && /\bstreamMatrix\s*\(/.test(text) && text.includes(guard);
  });
  if (!runsMatrix) {
    problems.push(
      `${prefix} has no test running ${guard} through the stream matrix (streamMatrix from ${MATRIX_MODULE})`,
    );
  }
  return problems;
}
