/**
 * `pnpm --filter @faultline/packed-install run prepare <dir>`: installs the runtimes and the
 * third-party packages of the packed-install step into `<dir>` (installs.ts). .ci/run starts it in
 * the background right after the workspace install and hands `<dir>` to the step as
 * FAULTLINE_PACKED_PREPARED; the step reports a failed prepare install as its own check failing.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { prepare } from './installs.ts';

const [dir] = process.argv.slice(2);
if (dir === undefined) {
  console.error('usage: prepare <dir>');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const started = performance.now();
const prepared = await prepare(resolve(dir));
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `prepare: npm install of the runtimes exited ${prepared.runtimes.code}, of the third-party packages ${prepared.app.code}, of the Node 22 app ${prepared.node22App.code} (${seconds} s)`,
);
