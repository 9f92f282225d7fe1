import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
  readonly code: string;
  /** The `## ` heading the block sits under. */
  readonly section: string;
}

/** The fenced code blocks of a Markdown text (``` fences, as the documents write them). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let section = '';
  let open: { language: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.trimEnd() === '```') {
        blocks.push({ language: open.language, code: `${open.lines.join('\n')}\n`, section });
        open = undefined;
      } else open.lines.push(line);
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) open = { language: fence[1] ?? '', lines: [] };
    else if (line.startsWith('## ')) section = line.slice(3).trim();
  }
  return blocks;
}

export function readExample(file: string): string {
  return readFileSync(join(repoRoot, 'examples', file), 'utf8');
}

/**
 * Package READMEs whose TypeScript blocks are whole programs a user could paste: the packed-install
 * step type-checks each block (`package-examples/<package>-<n>.ts`) against the real SDK and
 * framework types it installs beside the tarballs.
 */
export const PACKAGE_README_EXAMPLES: readonly string[] = [
  'packages/ai-sdk/README.md',
  'packages/extract-huggingface/README.md',
  'packages/extract-ollama/README.md',
  'packages/langchain/README.md',
  'packages/openai-agents/README.md',
];

/** Every TypeScript block of {@link PACKAGE_README_EXAMPLES}, named for the file it is written to. */
export function packageExamples(): Array<{
  readonly file: string;
  readonly code: string;
  readonly section: string;
}> {
  return PACKAGE_README_EXAMPLES.flatMap((readme) => {
    const name = readme.split('/')[1] ?? readme;
    return codeBlocks(readFileSync(join(repoRoot, readme), 'utf8'))
      .filter((block) => block.language === 'ts')
      .map((block, index) => ({ file: `${name}-${index + 1}.ts`, code: block.code, section: block.section }));
  });
}
