import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeBlocks,
  documentExamples,
  exampleDocuments,
  FRAGMENT,
  README_EXAMPLES,
  readExample,
  repoRoot,
} from './readme-examples.ts';

const typescriptBlocksOf = (document: string) =>
  codeBlocks(readFileSync(join(repoRoot, document), 'utf8')).filter((block) => block.language === 'ts');

describe('the examples shown are the files the packed-install step runs', () => {
  for (const example of README_EXAMPLES) {
    it(`${example.document} "${example.section}" shows examples/${example.file} as it is`, () => {
      const shown = typescriptBlocksOf(example.document).filter((block) => block.section === example.section);
      expect(shown.map((block) => block.code)).toEqual([readExample(example.file)]);
    });
  }

  it('README shows no TypeScript block that is not an example file', () => {
    const files = new Set(README_EXAMPLES.map((example) => readExample(example.file)));
    const loose = typescriptBlocksOf('README.md')
      .filter((block) => !files.has(block.code))
      .map((block) => block.section);
    expect(loose).toEqual([]);
  });

  it('every file under examples/ is shown in a document', () => {
    const listed = README_EXAMPLES.map((example) => example.file).sort();
    expect(readdirSync(join(repoRoot, 'examples')).sort()).toEqual(listed);
  });

  it('every TypeScript block of the documents is a whole program, an examples/ file, or marked a fragment', () => {
    const examples = new Set(README_EXAMPLES.map((example) => readExample(example.file)));
    const unmarked = exampleDocuments().flatMap((document) =>
      typescriptBlocksOf(document)
        // A program imports what it uses: a block that starts anywhere but at its imports is a
        // fragment, and says so (```ts fragment), or the packed-install step fails on it.
        .filter((block) => !block.meta.split(/\s+/).includes(FRAGMENT) && !examples.has(block.code))
        .filter((block) => !/^import /.test(block.code))
        .map((block) => `${document} "${block.section}": ${block.code.split('\n')[0]}`),
    );
    expect(unmarked).toEqual([]);
  });

  it('the blocks are type-checked under distinct file names, the fallback examples among them', () => {
    const examples = documentExamples();
    const files = examples.map((example) => example.file);
    expect(new Set(files).size).toBe(files.length);
    // run.ts runs the first block of these sections after the type check, against the loopback server.
    for (const [prefix, section] of [
      ['ai-sdk-', 'Fallback across models and providers'],
      ['langchain-', "Agents: langchain 1's `createAgent`"],
    ] as const)
      expect(
        examples.filter((example) => example.file.startsWith(prefix) && example.section === section),
      ).not.toEqual([]);
  });

  it('codeBlocks reads fences and the heading above them', () => {
    const blocks = codeBlocks('## One\n\n```ts\nconst a = 1;\n```\n\n## Two\n```bash\nls\n```\n');
    expect(blocks).toEqual([
      { language: 'ts', meta: '', code: 'const a = 1;\n', section: 'One' },
      { language: 'bash', meta: '', code: 'ls\n', section: 'Two' },
    ]);
    const marked = codeBlocks(
      '<!-- example: packages/x/examples/a.ts -->\n```ts\nimport a;\n```\n\n```ts fragment\nb();\n```\n',
    );
    expect(marked).toEqual([
      { language: 'ts', meta: '', code: 'import a;\n', section: '', example: 'packages/x/examples/a.ts' },
      { language: 'ts', meta: 'fragment', code: 'b();\n', section: '' },
    ]);
  });
});

describe('every publishable package ships a README and the root LICENSE', () => {
  const license = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
  const packages = readdirSync(join(repoRoot, 'packages')).filter(
    (name) =>
      JSON.parse(readFileSync(join(repoRoot, 'packages', name, 'package.json'), 'utf8')).private !== true,
  );
  it('the root LICENSE is MIT, as every package.json says', () => {
    expect(license.startsWith('MIT License\n')).toBe(true);
  });
  for (const name of packages) {
    it(`packages/${name}`, () => {
      const manifest = JSON.parse(readFileSync(join(repoRoot, 'packages', name, 'package.json'), 'utf8'));
      expect(manifest.license).toBe('MIT');
      expect(readFileSync(join(repoRoot, 'packages', name, 'LICENSE'), 'utf8')).toBe(license);
      expect(readFileSync(join(repoRoot, 'packages', name, 'README.md'), 'utf8')).toMatch(/^# @faultline\//);
      expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).toContain(`| \`${manifest.name}\` |`);
    });
  }
});
