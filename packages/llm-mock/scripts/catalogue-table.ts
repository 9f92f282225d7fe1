// Regenerates the catalogue table of README.md from the scenario files: `pnpm catalogue`.
// test/catalogue.test.ts fails when the README and the files disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { catalogueTable, withCatalogue } from '../src/catalogue.ts';

const readmePath = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmePath, 'utf8');
const updated = withCatalogue(readme, catalogueTable());
if (process.argv.includes('--write')) {
  writeFileSync(readmePath, updated);
  console.log(updated === readme ? 'README.md catalogue is up to date' : 'README.md catalogue rewritten');
} else if (updated !== readme) {
  console.error('README.md catalogue is out of date: run `pnpm --filter @faultline/llm-mock catalogue`');
  process.exitCode = 1;
}
