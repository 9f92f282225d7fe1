import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT, readProviderList } from './provider-list.ts';

// Importing an adapter loads faultline's own modules and valibot (the one validator of classify's
// schemas, render's reports and the adapter's vendor shapes), nothing else: no SDK, no formatter's colours. This is a behaviour test, not a
// timing: a fresh Node process imports the adapter with a resolve hook that writes down every URL
// the ESM loader resolves.

/** A resolve hook (off-thread in Node 20): appends each resolved URL to the file named by IMPORT_LOG. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.IMPORT_LOG, result.url + '\\n');
  return result;
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

const parityDirectory = fileURLToPath(new URL('..', import.meta.url));

/** The URLs a fresh process resolves while importing `specifier` (with `flags` before the script). */
function resolvedWhileImporting(specifier: string, flags: string[]): string[] {
  const directory = mkdtempSync(join(tmpdir(), 'faultline-import-graph-'));
  const log = join(directory, 'resolved.txt');
  try {
    execFileSync(
      process.execPath,
      [
        ...flags,
        '--import',
        `data:text/javascript,${encodeURIComponent(REGISTER)}`,
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(specifier)});`,
      ],
      { cwd: parityDirectory, env: { ...process.env, NODE_OPTIONS: '', IMPORT_LOG: log }, stdio: 'pipe' },
    );
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Who a resolved URL belongs to: the installed package (the last node_modules segment), a workspace package, or the URL. */
function ownerOf(url: string): string {
  if (url.startsWith('node:') || url.startsWith('data:')) return url.slice(0, 5);
  const path = url.startsWith('file:') ? fileURLToPath(url).replaceAll('\\', '/') : url;
  const installed = path.split('/node_modules/').slice(1).at(-1);
  if (installed !== undefined) {
    const parts = installed.split('/');
    return installed.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
  }
  const workspace = /\/packages\/([^/]+)\//.exec(path);
  return workspace === null ? path : `@faultline/${workspace[1]}`;
}

/**
 * What an adapter may load: itself, classify, render, stainless for the Stainless-generated SDKs,
 * and leven, classify's edit distance for the nearest valid name in an unknown-option TypeError (one
 * module with no imports of its own, so it adds nothing measurable to an adapter's import).
 */
function allowedOwners(provider: string): Set<string> {
  return new Set([
    'node:',
    'data:',
    `@faultline/extract-${provider}`,
    '@faultline/classify',
    '@faultline/render',
    '@faultline/stainless',
    'leven',
    'valibot',
  ]);
}

const tsx = join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

describe('importing an adapter loads nothing outside faultline and valibot', () => {
  // `FAULTLINE_PARITY_ONLY=acme` narrows it, as for parity.test.ts (tools/create-extractor/ci-check.sh).
  const only = process.env.FAULTLINE_PARITY_ONLY?.split(',').filter((name) => name.length > 0);
  const providers = readProviderList(REPOSITORY_ROOT).providers.filter(
    (entry) => only === undefined || only.includes(entry.name),
  );
  for (const { name } of providers) {
    const specifier = `@faultline/extract-${name}`;
    // Loaded by path, as the other parity checks do: a scaffolded provider is no dependency of parity.
    const directory = join(REPOSITORY_ROOT, 'packages', `extract-${name}`);
    const source = pathToFileURL(join(directory, 'src', 'index.ts')).href;
    const dist = join(directory, 'dist', 'index.js');

    it(`${specifier} (sources): only faultline's own modules and valibot`, () => {
      // tsx's own modules are the test's tooling (it reads the sources), not the adapter's graph.
      const urls = resolvedWhileImporting(source, ['--conditions=@faultline/source', '--import', tsx]).filter(
        (url) => !['tsx', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps'].includes(ownerOf(url)),
      );
      expect(urls.some((url) => url.includes('/packages/classify/src/classify.ts'))).toBe(true);
      expect([...new Set(urls.map(ownerOf))].filter((owner) => !allowedOwners(name).has(owner))).toEqual([]);
      // The application entry and its formatters (picocolors) stay off the path.
      const heavy = ['render/src/index.ts', 'render/src/format.ts'];
      expect(urls.filter((url) => heavy.some((file) => url.endsWith(`/packages/${file}`)))).toEqual([]);
    });

    // The built files, as a user gets them: tsup's code splitting must not put the render main
    // entry's picocolors into a chunk the adapter loads. CI builds before testing (a
    // copy without builds, as the scaffolder's check makes, has only the sources to check).
    it.runIf(existsSync(dist))(`${specifier} (dist): no picocolors`, () => {
      const urls = resolvedWhileImporting(pathToFileURL(dist).href, []);
      expect(urls.some((url) => url.endsWith(`/extract-${name}/dist/index.js`))).toBe(true);
      expect([...new Set(urls.map(ownerOf))].filter((owner) => !allowedOwners(name).has(owner))).toEqual([]);
      expect(urls.filter((url) => /\/render\/dist\/index\.js$/.test(url))).toEqual([]);
      // Every schema is valibot's, and no copy of zod comes with them.
      expect(urls.some((url) => ownerOf(url) === 'valibot')).toBe(true);
    });
  }
});
