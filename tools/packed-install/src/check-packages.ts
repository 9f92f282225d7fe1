/**
 * The package checks, on the tarballs a user would install: publint (strict) and
 * are-the-types-wrong (the `esm-only` profile: the packages ship ESM only, so the node10 and
 * node16-from-CommonJS resolutions are not required) for every publishable package, in one process.
 * Both tools' libraries take a tarball, so each package is packed once (pack.ts) and TypeScript,
 * which are-the-types-wrong runs, is loaded once rather than once per package.
 *
 * Usage: `pnpm --filter @faultline/packed-install run check-packages` after `pnpm build`
 * (set FAULTLINE_TARBALLS to a folder `pack.ts` filled to reuse its tarballs).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { problemKindInfo } from '@arethetypeswrong/core/problems';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packedTarballs } from './pack.ts';

/** The resolutions are-the-types-wrong's `esm-only` profile leaves out. */
const IGNORED_RESOLUTIONS: readonly string[] = ['node10', 'node16-cjs'];

const scratch = mkdtempSync(join(tmpdir(), 'faultline-package-checks-'));
try {
  const { dir, packages } = await packedTarballs(scratch);
  const failures: string[] = [];
  for (const pkg of packages) {
    const tarball = readFileSync(join(dir, pkg.tarball));
    const data = new Uint8Array(tarball.buffer, tarball.byteOffset, tarball.byteLength);
    const manifest = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
    const lint = await publint({ pack: { tarball: data.slice().buffer }, strict: true });
    // Strict mode makes every warning an error; suggestions stay advice, as in publint's CLI.
    const lintErrors = lint.messages.filter((message) => message.type !== 'suggestion');
    for (const message of lintErrors) {
      failures.push(`${pkg.name}: publint: ${formatMessage(message, manifest) ?? message.code}`);
    }
    const analysis = await checkPackage(createPackageFromTarballData(data));
    // A package with no types (a bin) has nothing for are-the-types-wrong to check, as in its CLI.
    const typeProblems = analysis.types
      ? analysis.problems.filter(
          (problem) =>
            !('resolutionKind' in problem) || !IGNORED_RESOLUTIONS.includes(problem.resolutionKind),
        )
      : [];
    for (const problem of typeProblems) {
      const where = 'entrypoint' in problem ? ` (${problem.entrypoint}, ${problem.resolutionKind})` : '';
      failures.push(`${pkg.name}: are-the-types-wrong: ${problemKindInfo[problem.kind].title}${where}`);
    }
    const types = analysis.types ? `types ok (${analysis.types.kind})` : 'no types (nothing for attw)';
    console.log(
      `${lintErrors.length + typeProblems.length === 0 ? 'ok  ' : 'FAIL'} ${pkg.name}: publint ${lint.messages.length} message(s), ${types}`,
    );
  }
  if (failures.length > 0) {
    console.error(`\n${failures.join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(`\n${packages.length} packages: publint --strict and are-the-types-wrong (esm-only) clean`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
