/**
 * Packs every publishable package once, as `pnpm publish` would (`workspace:^` becomes the version),
 * into one folder. The package checks (check-packages.ts) and the packed-install step (run.ts) both
 * read these tarballs, so CI packs each package once instead of once per tool.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where CI keeps the tarballs between steps (ignored by git). */
export const DEFAULT_PACK_DIR = join(repoRoot, '.packed');

export interface WorkspacePackage {
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly files: readonly string[] | undefined;
  /** Its `engines.node` range: the Node versions a user installs it on. */
  readonly node: string | undefined;
  /** The tarball's file name, as npm and pnpm name it (`@faultline/x` → `faultline-x-<version>.tgz`). */
  readonly tarball: string;
}

/** Every package under `packages/` that is not private. */
export function publishablePackages(root = repoRoot): WorkspacePackage[] {
  return readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        private?: boolean;
        dependencies?: Record<string, string>;
        files?: string[];
        engines?: { node?: string };
      };
      if (manifest.private === true) return [];
      return [
        {
          dir,
          name: manifest.name,
          version: manifest.version,
          dependencies: manifest.dependencies ?? {},
          files: manifest.files,
          node: manifest.engines?.node,
          tarball: `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`,
        },
      ];
    });
}

function pnpmPack(dir: string, destination: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('pnpm', ['pack', '--pack-destination', destination], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`pnpm pack in ${dir} exited ${code}:\n${stderr}`)),
    );
  });
}

/**
 * Packs every publishable package into `destination` (emptied first), two at a time: `pnpm pack` is
 * mostly process start-up and file reads, so two overlap well on a 2-core runner.
 */
export async function packAll(destination = DEFAULT_PACK_DIR): Promise<WorkspacePackage[]> {
  const packages = publishablePackages();
  for (const pkg of packages) {
    // A package that ships a build (not @faultline/demo, a bin over its dependencies) needs it built.
    if ((pkg.files ?? []).includes('dist') && !existsSync(join(pkg.dir, 'dist'))) {
      throw new Error(`${pkg.name} has no dist: run \`pnpm build\` first`);
    }
  }
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  const queue = [...packages];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift())
      await pnpmPack(pkg.dir, destination);
  };
  await Promise.all([worker(), worker()]);
  for (const pkg of packages) {
    if (!existsSync(join(destination, pkg.tarball))) throw new Error(`pnpm pack wrote no ${pkg.tarball}`);
  }
  return packages;
}

/**
 * The tarballs CI packed into `FAULTLINE_TARBALLS` (the `pack` step), or, without it, fresh ones
 * packed into `fallback`: a local run never reads tarballs left over from an older build.
 */
export async function packedTarballs(
  fallback: string,
): Promise<{ dir: string; packages: WorkspacePackage[] }> {
  const given = process.env.FAULTLINE_TARBALLS;
  if (given === undefined || given === '') return { dir: fallback, packages: await packAll(fallback) };
  const dir = resolve(given);
  const packages = publishablePackages();
  const missing = packages.filter((pkg) => !existsSync(join(dir, pkg.tarball)));
  if (missing.length > 0) {
    throw new Error(`FAULTLINE_TARBALLS=${dir} lacks ${missing.map((pkg) => pkg.tarball).join(', ')}`);
  }
  return { dir, packages };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const destination = resolve(process.argv[2] ?? DEFAULT_PACK_DIR);
  const packages = await packAll(destination);
  console.log(`packed ${packages.length} packages into ${destination}`);
}
