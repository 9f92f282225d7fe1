import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './provider-list.ts';

// A published package is read on its npm page, away from the repository: its manifest must lead
// back (repository with its directory, homepage, issues), say what it is (description, keywords),
// publish with provenance, and its README must work there: absolute links only (a relative link is
// dead on npm), at least one example, and a way to the docs. The repository's address is written
// once, in the root package.json, and every package must agree with it.

interface Manifest {
  readonly name?: string;
  readonly private?: boolean;
  readonly description?: unknown;
  readonly license?: unknown;
  readonly repository?: { readonly type?: unknown; readonly url?: unknown; readonly directory?: unknown };
  readonly homepage?: unknown;
  readonly bugs?: { readonly url?: unknown };
  readonly keywords?: unknown;
  readonly publishConfig?: { readonly access?: unknown; readonly provenance?: unknown };
}

const readManifest = (path: string): Manifest => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

const root = readManifest(join(REPOSITORY_ROOT, 'package.json'));
const repositoryUrl = String(root.repository?.url ?? '');
/** https://github.com/<owner>/<name>, from the root's git+https://….git. */
const repositoryHome = repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '');

const published = readdirSync(join(REPOSITORY_ROOT, 'packages'))
  .map((directory) => `packages/${directory}`)
  .filter((directory) => existsSync(join(REPOSITORY_ROOT, directory, 'package.json')))
  .map((directory) => ({
    directory,
    manifest: readManifest(join(REPOSITORY_ROOT, directory, 'package.json')),
  }))
  .filter(({ manifest }) => manifest.private !== true);

/** Markdown link targets: `[text](target)` and `<a href="target">`. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    targets.push(match[1] ?? '');
  for (const match of markdown.matchAll(/href="([^"]+)"/g)) targets.push(match[1] ?? '');
  return targets;
}

describe('the root manifest', () => {
  it('names the repository once, for every package to follow', () => {
    expect(repositoryUrl).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(root.homepage).toBe(`${repositoryHome}#readme`);
    expect(root.bugs?.url).toBe(`${repositoryHome}/issues`);
  });
});

// The repository's README is a user's first page: short, an install from npm before anything else,
// every package in its table, and the benchmark tables left to docs/benchmarks.md.
describe('the root README', () => {
  const readme = readFileSync(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
  it('is under 12 KB and starts with an npm install', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(12 * 1024);
    const firstCommand = /```(?:bash|sh)\n([^\n]*)/.exec(readme)?.[1];
    expect(firstCommand).toMatch(/^npm install /);
  });
  it('lists every published package, and holds no benchmark table', () => {
    const listed = [...readme.matchAll(/^\| `(@faultline\/[\w-]+)` \|/gm)].map((match) => match[1]);
    expect(listed.sort()).toEqual(published.map(({ manifest }) => manifest.name).sort());
    const benchmarks = readFileSync(join(REPOSITORY_ROOT, 'docs', 'benchmarks.md'), 'utf8');
    const sections = [...benchmarks.matchAll(/<!-- ([\w-]+):start -->/g)].map((match) => match[0]);
    expect(sections.length).toBeGreaterThan(0);
    for (const section of sections) expect(readme).not.toContain(section);
    expect(readme).toContain('docs/benchmarks.md');
  });
});

describe.each(published)('$manifest.name', ({ directory, manifest }) => {
  it('leads back to the repository from its npm page', () => {
    expect(manifest.repository).toEqual({ type: 'git', url: repositoryUrl, directory });
    expect(manifest.homepage).toBe(`${repositoryHome}/tree/main/${directory}#readme`);
    expect(manifest.bugs).toEqual({ url: `${repositoryHome}/issues` });
  });

  it('says what it is, and publishes with provenance', () => {
    expect(typeof manifest.description === 'string' && manifest.description.length > 20).toBe(true);
    expect(manifest.license).toBe('MIT');
    expect(Array.isArray(manifest.keywords) && manifest.keywords.length >= 3).toBe(true);
    expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
  });

  it('has a README that works on npm: absolute links, an example, the docs', () => {
    const readmePath = join(REPOSITORY_ROOT, directory, 'README.md');
    expect(existsSync(readmePath)).toBe(true);
    const readme = readFileSync(readmePath, 'utf8');
    const relative = linkTargets(readme).filter((target) => !/^(https?:\/\/|#|mailto:)/.test(target));
    expect(relative).toEqual([]);
    expect(readme).toMatch(/^```[a-z]+$/m);
    expect(readme).toContain(`${repositoryHome}/`);
  });
});
