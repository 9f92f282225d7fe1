/** Rewrites the generated tables of docs/ (see docs-tables.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED, withGenerated } from './docs-tables.ts';
import { repoRoot } from './readme-examples.ts';

for (const generated of GENERATED) {
  const path = join(repoRoot, generated.file);
  writeFileSync(path, withGenerated(readFileSync(path, 'utf8'), generated.marker, generated.render()));
  console.log(`wrote ${generated.file}`);
}
