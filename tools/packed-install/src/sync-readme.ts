/**
 * Writes each examples/ file into the ```ts block of its document's section (the first block there).
 * `pnpm --filter @faultline/packed-install run sync-readme` after editing an example.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { README_EXAMPLES, readExample, repoRoot } from './readme-examples.ts';

for (const example of README_EXAMPLES) {
  const path = join(repoRoot, example.document);
  let readme = readFileSync(path, 'utf8');
  const heading = readme.indexOf(`\n## ${example.section}\n`);
  if (heading < 0) throw new Error(`${example.document} has no "## ${example.section}" section`);
  const open = readme.indexOf('\n```ts\n', heading);
  const next = readme.indexOf('\n## ', heading + 1);
  if (open < 0 || (next >= 0 && open > next)) throw new Error(`"## ${example.section}" has no ts block`);
  const close = readme.indexOf('\n```\n', open + 6);
  readme = `${readme.slice(0, open + 7)}${readExample(example.file)}${readme.slice(close + 1)}`;
  writeFileSync(path, readme);
}
