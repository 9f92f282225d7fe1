import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './statistics.ts';

export interface ImportCostRow {
  readonly specifier: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Against the cold import of zod, measured in the same run. */
  readonly ratioToZod: number;
}

const benchDirectory = fileURLToPath(new URL('..', import.meta.url));
// zod is not a dependency of the bench itself: import it from where faultline gets it.
const classifyDirectory = fileURLToPath(new URL('../../packages/classify', import.meta.url));

/** The bare process's row: the same script importing nothing. */
export const BARE_NODE = '(bare node)';

function coldImportMs(specifier: string): number {
  const load = specifier === BARE_NODE ? '' : `await import(${JSON.stringify(specifier)});`;
  const script = `const t = performance.now(); ${load} process.stdout.write(String(performance.now() - t));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: specifier === 'zod' ? classifyDirectory : benchDirectory,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return Number(output.toString());
}

/**
 * Cold `import` time of each package in a fresh Node process (built `dist`, as a user gets it).
 * Interleaved: each round measures every specifier once, so a burst of load on a shared machine
 * touches every row alike instead of one row's runs.
 */
export function benchImportCost(specifiers: string[], runs = 9): ImportCostRow[] {
  const all = [BARE_NODE, 'zod', ...specifiers];
  const samples = new Map(all.map((specifier) => [specifier, [] as number[]]));
  for (let round = 0; round < runs; round++)
    for (const specifier of all) samples.get(specifier)?.push(coldImportMs(specifier));
  const rows = all.map((specifier) => {
    const taken = samples.get(specifier) ?? [];
    return { specifier, medianMs: median(taken), minMs: Math.min(...taken), maxMs: Math.max(...taken) };
  });
  const zod = rows[1] as (typeof rows)[number];
  return rows.map((row) => ({ ...row, ratioToZod: row.medianMs / zod.medianMs }));
}
