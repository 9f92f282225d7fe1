import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeBlocks,
  DOCS_PAGE_EXAMPLES,
  docsPageExamples,
  PACKAGE_README_EXAMPLES,
  packageExamples,
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

  it('the ai-sdk and langchain READMEs show whole programs (the packed-install step type-checks each)', () => {
    const examples = packageExamples();
    for (const readme of PACKAGE_README_EXAMPLES) {
      const name = readme.split('/')[1]!;
      expect(
        examples.filter((example) => example.file.startsWith(`${name}-`)).length,
        readme,
      ).toBeGreaterThan(0);
    }
    // A program imports what it uses: a block that starts anywhere but at its imports is a fragment.
    for (const example of examples)
      expect(example.code, `${example.file} (${example.section})`).toMatch(/^import /);
  });

  it('the docs pages with example files show a main.ts (what the packed-install step runs)', () => {
    const files = docsPageExamples().map((example) => example.file);
    expect(files.filter((file) => file.endsWith('/main.ts'))).toHaveLength(DOCS_PAGE_EXAMPLES.length);
  });

  it('codeBlocks reads fences and the heading above them', () => {
    const blocks = codeBlocks('## One\n\n```ts\nconst a = 1;\n```\n\n## Two\n```bash\nls\n```\n');
    expect(blocks).toEqual([
      { language: 'ts', code: 'const a = 1;\n', section: 'One' },
      { language: 'bash', code: 'ls\n', section: 'Two' },
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
