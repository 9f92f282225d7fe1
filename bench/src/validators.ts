// Which validator faultline's schemas should be written in, by what a user pays: the same schemas
// (bench/validators/*.js: the ones an app wrapping one openai call parses with) in zod/mini, in
// valibot and in none, each bundled as a user's bundler would (esbuild, minified ESM, gzipped) and
// imported in fresh processes, alternating, with the CPU time of the import and of the first parses
// (a failure's and a success's shapes). `tsx src/validators.ts [processes]`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { median } from './statistics.ts';

const FLAVOURS = ['none', 'zod-mini', 'valibot'] as const;
const directory = fileURLToPath(new URL('../validators/', import.meta.url));
const processes = Number(process.argv[2] ?? 15);

const out = mkdtempSync(join(tmpdir(), 'faultline-validators-'));
try {
  const gzipBytes: Record<string, number> = {};
  for (const flavour of FLAVOURS) {
    const result = await build({
      entryPoints: [join(directory, `${flavour}.js`)],
      bundle: true,
      write: false,
      minify: true,
      format: 'esm',
      platform: 'node',
      target: 'es2022',
      logLevel: 'error',
    });
    const code = result.outputFiles[0]!.contents;
    writeFileSync(join(out, `${flavour}.mjs`), code);
    gzipBytes[flavour] = gzipSync(code).length;
  }
  const cold = Object.fromEntries(
    FLAVOURS.map((flavour) => [flavour, { imported: [] as number[], first: [] as number[] }]),
  );
  for (let index = 0; index < processes; index += 1)
    for (const flavour of index % 2 === 0 ? FLAVOURS : [...FLAVOURS].reverse()) {
      const probe = JSON.parse(
        execFileSync(process.execPath, [join(directory, 'probe.mjs'), join(out, `${flavour}.mjs`)], {
          env: { ...process.env, NODE_OPTIONS: '' },
        }).toString(),
      ) as { imp: number; first: number; ok: number };
      if (probe.ok !== 5) throw new Error(`validators: ${flavour} refused a valid value (${probe.ok} of 5)`);
      cold[flavour]!.imported.push(probe.imp);
      cold[flavour]!.first.push(probe.first);
    }
  console.log(
    `| validator | bundle, gzipped | over none | import, CPU ms (median of ${processes}) | first parses, CPU ms |`,
  );
  console.log('|---|---|---|---|---|');
  for (const flavour of FLAVOURS)
    console.log(
      `| ${flavour} | ${(gzipBytes[flavour]! / 1024).toFixed(2)} KB | +${((gzipBytes[flavour]! - gzipBytes.none!) / 1024).toFixed(2)} KB | ${median(cold[flavour]!.imported).toFixed(2)} | ${median(cold[flavour]!.first).toFixed(2)} |`,
    );
} finally {
  rmSync(out, { recursive: true, force: true });
}
