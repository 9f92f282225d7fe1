import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './statistics.ts';

export interface ImportCostRow {
  readonly specifier: string;
  /**
   * Whether the process ran with `--enable-source-maps` (what many TypeScript applications run
   * with): Node then reads and parses the source map of every file it loads.
   */
  readonly sourceMaps: boolean;
  /**
   * Whether the process had loaded an application's own mapped module (APPLICATION_CHARACTERS of
   * JavaScript with a source map) before the timed `import`, with or without `sourceMaps`.
   */
  readonly afterApplication: boolean;
  /** How many fresh processes imported it. */
  readonly rounds: number;
  /** Wall-clock time of the `import`, median over the rounds. */
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /**
   * CPU time (user + system, every thread of the process) the `import` took, median over the
   * rounds: what the import itself costs, which waiting for a core on a loaded machine does not add to.
   */
  readonly cpuMedianMs: number;
  /** Against the cold import of zod, measured in the same run (wall-clock medians). */
  readonly ratioToZod: number;
}

/**
 * Rounds for the rows the goal is judged on (bare, faultline's adapter entries). With 9, the
 * wall-clock medians of one adapter moved by 2–3 ms between two runs minutes apart on the shared
 * 2-core machine, more than the margins the goal is judged on.
 */
export const IMPORT_ROUNDS = 25;
/**
 * Rounds for the reference rows (zod, the SDKs, the zod-loading application entries): far from
 * any margin, and the SDKs take 0.1–1.5 s an import, so 25 rounds of them would take minutes.
 */
export const REFERENCE_ROUNDS = 9;

const benchDirectory = fileURLToPath(new URL('..', import.meta.url));
// zod is not a dependency of the bench itself: import it from where faultline gets it.
const classifyDirectory = fileURLToPath(new URL('../../packages/classify', import.meta.url));

/** The bare process's row: the same script importing nothing. */
export const BARE_NODE = '(bare node)';

/** One thing to import cold, with or without `--enable-source-maps`. */
export interface ImportProbe {
  readonly specifier: string;
  readonly sourceMaps: boolean;
  readonly afterApplication: boolean;
}

/**
 * Size of the application module the `afterApplication` rows load first. Under
 * `--enable-source-maps`, Node 20 measures the lines of every file that names a map with a
 * JavaScript loop (`lineLengths` in its source_map_cache); once about 5,000 characters have gone
 * through it, V8 compiles that loop with TurboFan, the process's first optimising compile (2–5 ms
 * of CPU on a compiler thread, `node --trace-opt`). A process that imports nothing mapped pays it
 * inside the first mapped import, whoever's; an application run with the flag has mapped code of
 * its own, so these rows show what the adapter adds to such a process.
 */
export const APPLICATION_CHARACTERS = 20_000;

let application: string | undefined;

/**
 * Writes the application module once: exported functions, one a line, and a map from each line to
 * the same line of `application.ts` (a real map; its contents do not change the cost, its file's
 * length does).
 */
function applicationModule(): string {
  if (application !== undefined) return application;
  const directory = mkdtempSync(join(tmpdir(), 'faultline-import-application-'));
  const lines: string[] = [];
  for (let size = 0, index = 0; size < APPLICATION_CHARACTERS; index++) {
    const line = `export function total${index}(items, rate) { return items.reduce((sum, item) => sum + item.price * rate, ${index}); }`;
    lines.push(line);
    size += line.length + 1;
  }
  const map = {
    version: 3,
    file: 'application.js',
    sources: ['application.ts'],
    names: [],
    mappings: ['AAAA', ...lines.slice(1).map(() => 'AACA')].join(';'),
  };
  writeFileSync(join(directory, 'application.ts'), `${lines.join('\n')}\n`);
  writeFileSync(join(directory, 'application.js.map'), JSON.stringify(map));
  writeFileSync(
    join(directory, 'application.js'),
    `${lines.join('\n')}\n//# sourceMappingURL=application.js.map\n`,
  );
  application = pathToFileURL(join(directory, 'application.js')).href;
  return application;
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function coldImport({ specifier, sourceMaps, afterApplication }: ImportProbe): Sample {
  const load = specifier === BARE_NODE ? '' : `await import(${JSON.stringify(specifier)});`;
  // The application's module loads before both clocks start.
  const before = afterApplication ? `await import(${JSON.stringify(applicationModule())});` : '';
  // Both clocks stop before `process.stdout` is touched: its first read builds the stream (about
  // 2.5 ms), which is no part of the import.
  const script = `${before} const t = performance.now(); const c = process.cpuUsage(); ${load} const d = process.cpuUsage(c); const w = performance.now() - t; process.stdout.write(JSON.stringify([w, (d.user + d.system) / 1000]));`;
  const flags = sourceMaps ? ['--enable-source-maps'] : [];
  const output = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    cwd: specifier === 'zod' ? classifyDirectory : benchDirectory,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const [wallMs, cpuMs] = JSON.parse(output.toString()) as [number, number];
  return { wallMs, cpuMs };
}

/**
 * Cold `import` time of each package in a fresh Node process (built `dist`, as a user gets it).
 * Interleaved: each round measures every specifier once (the references in the first
 * REFERENCE_ROUNDS rounds only), so a burst of load on a shared machine touches every row alike
 * instead of one row's runs. The `mapped` specifiers are measured once more in each round with
 * `--enable-source-maps`, beside a bare process run with that flag too, and twice more, with and
 * without the flag, after the application's own mapped module (`afterApplication`), beside a
 * process that loads only that module.
 */
export function benchImportCost(
  specifiers: string[],
  references: string[],
  mapped: string[] = [],
): ImportCostRow[] {
  const all: ImportProbe[] = [
    ...[BARE_NODE, 'zod', ...specifiers, ...references].map((specifier) => ({
      specifier,
      sourceMaps: false,
      afterApplication: false,
    })),
    ...(mapped.length === 0 ? [] : [BARE_NODE, ...mapped]).map((specifier) => ({
      specifier,
      sourceMaps: true,
      afterApplication: false,
    })),
    ...[false, true].flatMap((sourceMaps) =>
      (mapped.length === 0 ? [] : [BARE_NODE, ...mapped]).map((specifier) => ({
        specifier,
        sourceMaps,
        afterApplication: true,
      })),
    ),
  ];
  const referenced = new Set(['zod', ...references]);
  const samples = all.map(() => [] as Sample[]);
  for (let round = 0; round < IMPORT_ROUNDS; round++)
    all.forEach((probe, index) => {
      if (round < REFERENCE_ROUNDS || !referenced.has(probe.specifier))
        samples[index]?.push(coldImport(probe));
    });
  const rows = all.map((probe, index) => {
    const taken = samples[index] ?? [];
    const wall = taken.map((sample) => sample.wallMs);
    return {
      ...probe,
      rounds: taken.length,
      medianMs: median(wall),
      minMs: Math.min(...wall),
      maxMs: Math.max(...wall),
      cpuMedianMs: median(taken.map((sample) => sample.cpuMs)),
    };
  });
  const zod = rows[1] as (typeof rows)[number];
  return rows.map((row) => ({ ...row, ratioToZod: row.medianMs / zod.medianMs }));
}
