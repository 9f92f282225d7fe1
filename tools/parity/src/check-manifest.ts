import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { about, type ProviderEntry, packagePathFor } from './provider-list.ts';

/**
 * The export condition that points at `src` (tests and type checks read source, no build):
 * the first of tsconfig.base.json's `customConditions`, so that parity and the scaffolder follow
 * the workspace when it is renamed.
 */
export function sourceCondition(repositoryRoot: string): string {
  try {
    const tsconfig = JSON.parse(readFileSync(join(repositoryRoot, 'tsconfig.base.json'), 'utf8'));
    const condition = tsconfig?.compilerOptions?.customConditions?.[0];
    if (typeof condition === 'string' && condition.length > 0) return condition;
  } catch {
    // no readable tsconfig.base.json (a fixture repository): the default below
  }
  return 'source';
}

/** The fields of a package.json that parity reads. */
export interface PackageManifest {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly sideEffects?: unknown;
  readonly engines?: { readonly node?: unknown };
  readonly exports?: unknown;
  readonly files?: unknown;
  readonly scripts?: Record<string, unknown>;
  readonly dependencies?: Record<string, unknown>;
  readonly peerDependencies?: Record<string, unknown>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: unknown } | undefined>;
  readonly devDependencies?: Record<string, unknown>;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `packages/extract-<name>` exists and has a package.json. */
export function checkPackagePresent(repositoryRoot: string, provider: ProviderEntry): string[] {
  const relative = packagePathFor(provider.name);
  const directory = join(repositoryRoot, relative);
  if (!isDirectory(directory)) return [`${about(provider.name)} package ${relative} is missing`];
  if (!existsSync(join(directory, 'package.json'))) {
    return [`${about(provider.name)} package ${relative} has no package.json`];
  }
  return [];
}

/** The package's manifest, or undefined when it is missing or unreadable (checkPackagePresent says so). */
export function readManifest(repositoryRoot: string, provider: ProviderEntry): PackageManifest | undefined {
  try {
    const text = readFileSync(join(repositoryRoot, packagePathFor(provider.name), 'package.json'), 'utf8');
    const data: unknown = JSON.parse(text);
    return data !== null && typeof data === 'object' ? (data as PackageManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The version a devDependency specifier installs: `1.2.3`, `^1.2.3` (its minimum), `npm:pkg@1.2.3`. */
export function installedVersionOf(specifier: string): string | undefined {
  const range = specifier.startsWith('npm:') ? specifier.slice(specifier.lastIndexOf('@') + 1) : specifier;
  if (semver.valid(range)) return semver.valid(range) ?? undefined;
  try {
    return semver.minVersion(range)?.version;
  } catch {
    return undefined;
  }
}

/** The devDependency keys that install `sdk`: the plain name and every `npm:<sdk>@...` alias. */
export function sdkDevDependencies(
  manifest: PackageManifest,
  sdk: string,
): Array<[alias: string, specifier: string]> {
  const found: Array<[string, string]> = [];
  for (const [alias, specifier] of Object.entries(manifest.devDependencies ?? {})) {
    if (typeof specifier !== 'string') continue;
    if (alias === sdk && !specifier.startsWith('npm:')) found.push([alias, specifier]);
    else if (specifier.startsWith(`npm:${sdk}@`)) found.push([alias, specifier]);
  }
  return found;
}

function sourceFilesOf(directory: string): string[] {
  const files: string[] = [];
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return files;
  }
  for (const name of names) {
    const path = join(directory, name);
    if (isDirectory(path)) files.push(...sourceFilesOf(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.startsWith('test-'))
      files.push(path);
  }
  return files;
}

/**
 * The house template (STYLE.md): ESM, side-effect free, an exports map with `source`/`types`/
 * `default` and `./package.json`, `files`, engines, the build/test/typecheck scripts, internal
 * deps on classify and render (a shared family package such as `@faultline/stainless` too, never
 * another extractor), and the SDK as an optional peer
 * whose range includes every devDependency version of it (npm aliases included), never a
 * runtime dependency and never imported from `src`.
 */
export function checkManifest(repositoryRoot: string, provider: ProviderEntry): string[] {
  const manifest = readManifest(repositoryRoot, provider);
  if (manifest === undefined) return [];
  const where = `package ${packagePathFor(provider.name)}`;
  const prefix = `${about(provider.name)} ${where}`;
  const problems: string[] = [];
  const expectedName = `@faultline/extract-${provider.name}`;
  if (manifest.name !== expectedName)
    problems.push(`${prefix} is named ${JSON.stringify(manifest.name)}, expected "${expectedName}"`);
  if (manifest.type !== 'module') problems.push(`${prefix} package.json lacks "type": "module"`);
  if (manifest.sideEffects !== false) problems.push(`${prefix} package.json lacks "sideEffects": false`);
  if (typeof manifest.engines?.node !== 'string') problems.push(`${prefix} package.json lacks engines.node`);
  if (!Array.isArray(manifest.files) || manifest.files.length === 0)
    problems.push(`${prefix} package.json lacks a "files" list`);
  const root = (manifest.exports as Record<string, unknown> | undefined)?.['.'] as
    | Record<string, unknown>
    | undefined;
  if (root === undefined || typeof root !== 'object') {
    problems.push(`${prefix} package.json has no exports["."]`);
  } else {
    for (const condition of [sourceCondition(repositoryRoot), 'types', 'default']) {
      if (typeof root[condition] !== 'string')
        problems.push(`${prefix} package.json exports["."] lacks the "${condition}" condition`);
    }
  }
  if ((manifest.exports as Record<string, unknown> | undefined)?.['./package.json'] === undefined) {
    problems.push(`${prefix} package.json exports lacks "./package.json"`);
  }
  for (const script of ['build', 'test', 'typecheck']) {
    if (typeof manifest.scripts?.[script] !== 'string')
      problems.push(`${prefix} package.json lacks the "${script}" script`);
  }
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (dependency.startsWith('@faultline/extract-')) {
      problems.push(`${prefix} depends on ${dependency}: no extract package depends on another`);
    }
  }
  for (const needed of ['@faultline/classify', '@faultline/render']) {
    if (manifest.dependencies?.[needed] === undefined)
      problems.push(`${prefix} does not depend on ${needed}`);
  }

  const sdk = provider.sdk;
  if (sdk === null) {
    // A fetch-based provider: nothing to peer on.
    return problems;
  }
  if (manifest.dependencies?.[sdk] !== undefined) {
    problems.push(
      `${prefix} lists its SDK ${sdk} in dependencies: it must be an optional peer, never a runtime dependency`,
    );
  }
  const range = manifest.peerDependencies?.[sdk];
  if (typeof range !== 'string') {
    problems.push(`${prefix} does not declare its SDK ${sdk} as a peer dependency`);
  } else if (semver.validRange(range) === null) {
    problems.push(`${prefix} declares the peer ${sdk} with an invalid range ${JSON.stringify(range)}`);
  }
  if (manifest.peerDependenciesMeta?.[sdk]?.optional !== true) {
    problems.push(
      `${prefix} does not mark its SDK peer ${sdk} optional (peerDependenciesMeta["${sdk}"].optional)`,
    );
  }
  const installs = sdkDevDependencies(manifest, sdk);
  if (installs.length === 0) {
    problems.push(`${prefix} has no devDependency on its SDK ${sdk} (the tests must run the real SDK)`);
  }
  if (typeof range === 'string' && semver.validRange(range) !== null) {
    for (const [alias, specifier] of installs) {
      const version = installedVersionOf(specifier);
      if (version === undefined) {
        problems.push(
          `${prefix} devDependency ${alias} has an unreadable version ${JSON.stringify(specifier)}`,
        );
      } else if (!semver.satisfies(version, range, { includePrerelease: true })) {
        problems.push(
          `${prefix} peer range ${sdk}@"${range}" does not include its devDependency ${alias} (${version})`,
        );
      }
    }
  }
  const importPattern = new RegExp(
    `(?:from\\s+|import\\s*\\(\\s*|require\\s*\\(\\s*)['"]${sdk.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:/[^'"]*)?['"]`,
  );
  for (const file of sourceFilesOf(join(repositoryRoot, packagePathFor(provider.name), 'src'))) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (importPattern.test(text)) {
      const relative = file.slice(repositoryRoot.length + 1);
      problems.push(
        `${prefix} imports its optional SDK ${sdk} at run time in ${relative} (duck-type it instead)`,
      );
    }
  }
  return problems;
}
