import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (test-fixtures' parent). */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface DocExample {
  /** The example's path from the repository root, as the page names it. */
  readonly file: string;
  /** The fenced code block the page shows. */
  readonly shown: string;
  /** The file's text, what a test runs. */
  readonly actual: string;
}

/**
 * The examples a docs page shows from files: each fenced code block right after a
 * `<!-- example: <path from the repository root> -->` line. A test checks `shown` equals `actual`
 * and runs the file, so a page's example cannot drift from code CI runs.
 */
export function docExamples(page: string): DocExample[] {
  const text = readFileSync(resolve(repoRoot, page), 'utf8');
  const examples: DocExample[] = [];
  const marker = /<!-- example: (\S+) -->\r?\n```[a-z]*\r?\n([\s\S]*?)```/g;
  for (const match of text.matchAll(marker)) {
    const file = match[1]!;
    examples.push({ file, shown: match[2]!, actual: readFileSync(resolve(repoRoot, file), 'utf8') });
  }
  return examples;
}
