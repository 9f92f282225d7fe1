import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackedPackage {
  readonly name: string;
  readonly packedBytes: number;
  readonly unpackedBytes: number;
}

export interface FootprintResult {
  readonly packed: PackedPackage[];
  /** What `npm install @faultline/extract-openai` gives a user (its tarballs, dependencies from the registry). */
  readonly extractOpenai: { packages: string[]; bytes: number };
  /** The same measure for the openai SDK alone, as a baseline. */
  readonly openaiSdk: { packages: string[]; bytes: number };
}

const root = fileURLToPath(new URL('../..', import.meta.url));

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

function installInto(directory: string, specs: string[]): { packages: string[]; bytes: number } {
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name: 'footprint', private: true }));
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...specs],
    {
      cwd: directory,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const parseable = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: directory }).toString();
  const packages = parseable
    .trim()
    .split('\n')
    .slice(1)
    .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();
  return { packages, bytes: directoryBytes(join(directory, 'node_modules')) };
}

/** Packed sizes of the publishable packages, and what a user installs with `extract-openai` alone. */
export function benchFootprint(packageDirectories: string[]): FootprintResult {
  const work = mkdtempSync(join(tmpdir(), 'faultline-footprint-'));
  try {
    const tarballs = new Map<string, string>();
    const packed: PackedPackage[] = [];
    for (const directory of packageDirectories) {
      // pnpm pack rewrites `workspace:^` to the real version, as publishing would.
      const output = execFileSync('pnpm', ['pack', '--pack-destination', work, '--json'], {
        cwd: join(root, directory),
      }).toString();
      const info = JSON.parse(output) as { name: string; filename: string; files?: Array<{ path: string }> };
      const tarball = info.filename.startsWith('/') ? info.filename : join(work, info.filename);
      tarballs.set(info.name, tarball);
      const unpacked = execFileSync('npm', ['pack', '--dry-run', '--json'], {
        cwd: join(root, directory),
      }).toString();
      const [dryRun] = JSON.parse(unpacked) as Array<{ size: number; unpackedSize: number }>;
      packed.push({
        name: info.name,
        packedBytes: statSync(tarball).size,
        unpackedBytes: dryRun?.unpackedSize ?? 0,
      });
    }
    const userDirectory = mkdtempSync(join(work, 'user-'));
    const extractOpenai = installInto(
      userDirectory,
      // extract-openai's own workspace dependencies, packed too (none is published yet).
      ['@faultline/classify', '@faultline/render', '@faultline/stainless', '@faultline/extract-openai'].map(
        (name) => tarballs.get(name)!,
      ),
    );
    const sdkDirectory = mkdtempSync(join(work, 'sdk-'));
    const openaiSdk = installInto(sdkDirectory, ['openai@7.57.0']);
    return { packed, extractOpenai, openaiSdk };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
