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
