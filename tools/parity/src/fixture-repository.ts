import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type FailureReason, TAXONOMY } from '@faultline/classify';
import { REPOSITORY_ROOT } from './provider-list.ts';

/**
 * Links the workspace packages a provider package imports (`@faultline/classify`, `render`,
 * `stainless`, and `valibot`, `fast-check`, `vitest`) into `<root>/node_modules`, so that TypeScript files in a
 * temporary copy resolve them the way they do in the repository. `test-fixtures` and
 * `@faultline/llm-mock` are copied (their `src`; llm-mock's installed node_modules linked), so
 * that `loadScenarios()` reads the copy's `packages/llm-mock/scenarios`.
 */
export function linkWorkspaceModules(root: string, repositoryRoot: string = REPOSITORY_ROOT): void {
  const fixtures = join(root, 'test-fixtures');
  cpSync(join(repositoryRoot, 'test-fixtures', 'src'), join(fixtures, 'src'), { recursive: true });
  cpSync(join(repositoryRoot, 'test-fixtures', 'package.json'), join(fixtures, 'package.json'));
  const mock = join(root, 'packages', 'llm-mock');
  cpSync(join(repositoryRoot, 'packages', 'llm-mock', 'src'), join(mock, 'src'), {
    recursive: true,
    filter: (source) => !source.endsWith('.test.ts'),
  });
  cpSync(join(repositoryRoot, 'packages', 'llm-mock', 'package.json'), join(mock, 'package.json'));
  mkdirSync(join(mock, 'scenarios'), { recursive: true });
  symlinkSync(
    realpathSync(join(repositoryRoot, 'packages', 'llm-mock', 'node_modules')),
    join(mock, 'node_modules'),
    'dir',
  );
  const links: Record<string, string> = {
    '@faultline/classify': join(repositoryRoot, 'packages', 'classify'),
    '@faultline/render': join(repositoryRoot, 'packages', 'render'),
    '@faultline/stainless': join(repositoryRoot, 'packages', 'stainless'),
    '@faultline/test-fixtures': fixtures,
    '@faultline/llm-mock': mock,
    valibot: join(repositoryRoot, 'packages', 'classify', 'node_modules', 'valibot'),
    'fast-check': join(repositoryRoot, 'tools', 'parity', 'node_modules', 'fast-check'),
    vitest: join(repositoryRoot, 'node_modules', 'vitest'),
    // The export-list tests (vitest.exports.ts) ask the TypeScript checker for type-only names.
    typescript: join(repositoryRoot, 'node_modules', 'typescript'),
  };
  for (const [name, target] of Object.entries(links)) {
    const link = join(root, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(target), link, 'dir');
  }
}

/** A fresh temporary directory; remove it with `removeDirectory`. */
export function temporaryDirectory(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDirectory(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function writeJson(path: string, data: unknown): void {
  writeFile(path, `${JSON.stringify(data, null, 2)}\n`);
}

/** A scenario that expects `reason` (its body does not matter to the static checks). */
export function scenarioFor(provider: string, reason: FailureReason): Record<string, unknown> {
  const row = TAXONOMY[reason];
  return {
    id: `${provider}/${reason.replaceAll('_', '-')}`,
    provider,
    description: `fixture scenario for ${reason}`,
    source: 'tools/parity fixture',
    response: { kind: 'http', status: row.httpStatus, body: '' },
    expected: {
      category: row.category,
      reason,
      retryable: row.retryable,
      userAction: row.userAction,
      httpStatus: row.httpStatus,
    },
  };
}
