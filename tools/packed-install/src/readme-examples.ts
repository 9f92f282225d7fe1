import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Every file under examples/ (the packed-install step type-checks and runs each), the document
 * that shows it, and the `## ` section it sits in there.
 */
export const README_EXAMPLES: ReadonlyArray<{
  readonly file: string;
  readonly document: string;
  readonly section: string;
}> = [
  { file: 'first-example.ts', document: 'README.md', section: 'A first example' },
  { file: 'streams.ts', document: 'docs/streams.md', section: 'A complete example' },
  { file: 'http.ts', document: 'docs/http.md', section: 'A complete example' },
];

export interface CodeBlock {
  readonly language: string;
  /** What follows the language on the fence line (`ts fragment` → `fragment`). */
  readonly meta: string;
  readonly code: string;
  /** The `## ` heading the block sits under. */
  readonly section: string;
  /** The file an `<!-- example: path -->` line right above the fence says the block shows. */
  readonly example?: string;
}

/** The fenced code blocks of a Markdown text (``` fences, as the documents write them). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let section = '';
  let example: string | undefined;
  let open: { language: string; meta: string; lines: string[]; example?: string } | undefined;
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.trimEnd() === '```') {
        const { language, meta, lines } = open;
        const code = `${lines.join('\n')}\n`;
        blocks.push(
          open.example === undefined
            ? { language, meta, code, section }
            : { language, meta, code, section, example: open.example },
        );
        open = undefined;
      } else open.lines.push(line);
      continue;
    }
    const fence = /^```(\S*)[ \t]*(.*?)\s*$/.exec(line);
    if (fence) {
      open = { language: fence[1] ?? '', meta: fence[2] ?? '', lines: [] };
      if (example !== undefined) open.example = example;
    } else if (line.startsWith('## ')) section = line.slice(3).trim();
    if (line.trim() !== '') example = /^<!-- example: (\S+) -->$/.exec(line.trim())?.[1];
  }
  return blocks;
}

export function readExample(file: string): string {
  return readFileSync(join(repoRoot, 'examples', file), 'utf8');
}

/**
 * The mark of a TypeScript block that is not a whole program (a call inside a handler shown
 * without the handler, an option object): ```` ```ts fragment ````. Such a block is not
 * type-checked; every other `ts` block of the documents is, as a file of a user's app.
 */
export const FRAGMENT = 'fragment';

/**
 * Every document whose TypeScript blocks are type-checked: the README, everything under docs/, and
 * every package's README.
 */
export function exampleDocuments(root = repoRoot): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) return walk(path);
        return entry.name.endsWith('.md') ? [path] : [];
      });
  const packages = readdirSync(join(root, 'packages'))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((readme) => existsSync(join(root, readme)));
  return ['README.md', ...walk('docs'), ...packages];
}

export interface DocumentExample {
  /**
   * Its file in the user's app, relative to the examples folder: `<document>-<n>.ts` (the n-th `ts`
   * block of the document, `ai-sdk-2.ts` for packages/ai-sdk/README.md), or, for a block that shows
   * a file (`<!-- example: path -->`), `<document>/<that file's name>`, so that the blocks of one
   * document import one another as the files they show do.
   */
  readonly file: string;
  readonly document: string;
  readonly code: string;
  readonly section: string;
}

function documentName(document: string): string {
  if (document === 'README.md') return 'readme';
  const packageReadme = /^packages\/([^/]+)\/README\.md$/.exec(document)?.[1];
  if (packageReadme !== undefined) return packageReadme;
  return document.replace(/\.md$/, '').replaceAll('/', '-');
}

/**
 * Every whole-program TypeScript block of {@link exampleDocuments}: what the packed-install step
 * type-checks with `tsc --strict` against the installed tarballs. A block that shows a file under
 * examples/ as it is (the README's examples) is left to that file, which the step builds and runs.
 */
export function documentExamples(root = repoRoot): DocumentExample[] {
  const shown = new Set(
    readdirSync(join(root, 'examples')).map((file) => readFileSync(join(root, 'examples', file), 'utf8')),
  );
  return exampleDocuments(root).flatMap((document) => {
    const name = documentName(document);
    return codeBlocks(readFileSync(join(root, document), 'utf8'))
      .filter((block) => block.language === 'ts')
      .flatMap((block, index) => {
        if (block.meta.split(/\s+/).includes(FRAGMENT) || shown.has(block.code)) return [];
        const file =
          block.example === undefined ? `${name}-${index + 1}.ts` : `${name}/${basename(block.example)}`;
        return [{ file, document, code: block.code, section: block.section }];
      });
  });
}
