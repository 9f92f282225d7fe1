/** Rewrites the generated tables of docs/ (see docs-tables.ts). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GENERATED, GENERATED_PAGES, withGenerated } from './docs-tables.ts';
import { repoRoot } from './readme-examples.ts';

for (const generated of GENERATED) {
  const path = join(repoRoot, generated.file);
  writeFileSync(path, withGenerated(readFileSync(path, 'utf8'), generated.marker, generated.render()));
  console.log(`wrote ${generated.file}`);
}
for (const page of GENERATED_PAGES) {
  const path = join(repoRoot, page.file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, page.render());
  console.log(`wrote ${page.file}`);
}
