/**
 * Lays out the docs site's sources in `.stage/` (VitePress builds from there, `.vitepress/config.ts`):
 * `docs/` as it is (its README as the home page), every publishable package's README under
 * `packages/`, an index of the per-reason pages, and the API reference that TypeDoc writes from the
 * packages' built declarations (`dist/*.d.ts`, what users compile against). Nothing here is
 * committed: the reference is generated at build time, from the build.
 *
 * It also writes `.stage/.site.json`, the sidebar and the map from each staged page back to its file
 * in the repository, which the config's link rewriting reads.
 *
 * Usage: `pnpm docs:build` (after `pnpm build`).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application } from 'typedoc';

const toolDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(toolDir, '../..');
export const stageDir = join(toolDir, '.stage');

export interface SidebarItem {
  readonly text: string;
  readonly link?: string;
  readonly items?: readonly SidebarItem[];
  readonly collapsed?: boolean;
}

export interface SiteManifest {
  /** Staged page (relative to `.stage/`) → the repository file it was copied from. */
  readonly sources: Record<string, string>;
  readonly sidebar: readonly SidebarItem[];
}

interface PublishedPackage {
  readonly dir: string;
  readonly folder: string;
  readonly name: string;
  readonly description: string;
  readonly entryPoints: ReadonlyArray<{ specifier: string; declarations: string }>;
}

type ExportTarget = string | { readonly types?: string };

function publishedPackages(): PublishedPackage[] {
  return readdirSync(join(repoRoot, 'packages'))
    .sort()
    .filter((folder) => existsSync(join(repoRoot, 'packages', folder, 'package.json')))
    .flatMap((folder) => {
      const dir = join(repoRoot, 'packages', folder);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        description?: string;
        private?: boolean;
        exports?: Record<string, ExportTarget>;
      };
      if (manifest.private === true) return [];
      const entryPoints = Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
        const types = typeof target === 'object' ? target.types : undefined;
        return types === undefined
          ? []
          : [{ specifier: join(manifest.name, subpath), declarations: join(dir, types) }];
      });
      return [{ dir, folder, name: manifest.name, description: manifest.description ?? '', entryPoints }];
    });
}

/** A page's title: its first `# ` heading, without Markdown code marks. */
function titleOf(file: string): string {
  const heading = /^# (.+)$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? file;
  return heading.replaceAll('`', '');
}

function markdownFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return markdownFiles(path, base);
      return entry.name.endsWith('.md') ? [relative(base, path)] : [];
    });
}

/** `docs/` as it is, `README.md` as each folder's index. */
function stageDocs(sources: Record<string, string>): string[] {
  const docsDir = join(repoRoot, 'docs');
  const pages: string[] = [];
  for (const file of markdownFiles(docsDir)) {
    const staged = file.replace(/(^|\/)README\.md$/, '$1index.md');
    mkdirSync(dirname(join(stageDir, staged)), { recursive: true });
    cpSync(join(docsDir, file), join(stageDir, staged));
    sources[staged] = `docs/${file}`;
    pages.push(staged);
  }
  return pages;
}

/** The per-reason pages have no index of their own in `docs/` (a folder link on GitHub lists them). */
function stageReasonsIndex(sources: Record<string, string>): void {
  const folder = join(repoRoot, 'docs/reasons');
  const lines = ['# Reasons', '', 'A page per reason a failure can be classified as:', ''];
  for (const file of markdownFiles(folder)) {
    const summary = readFileSync(join(folder, file), 'utf8').split('\n\n')[1]?.split('\n')[0] ?? '';
    lines.push(`- [\`${file.replace(/\.md$/, '')}\`](./${file}): ${summary}`);
  }
  writeFileSync(join(stageDir, 'reasons/index.md'), `${lines.join('\n')}\n`);
  sources['reasons/index.md'] = 'docs/reasons';
}

function stagePackages(packages: readonly PublishedPackage[], sources: Record<string, string>): void {
  mkdirSync(join(stageDir, 'packages'), { recursive: true });
  for (const pkg of packages) {
    cpSync(join(pkg.dir, 'README.md'), join(stageDir, 'packages', `${pkg.folder}.md`));
    sources[`packages/${pkg.folder}.md`] = `packages/${pkg.folder}/README.md`;
  }
}

/**
 * One module per entry point, named as a user imports it: TypeDoc reads a small declaration file per
 * entry point that re-exports the built one under a `@module` name (the built files are all
 * `dist/index.d.ts`, which TypeDoc would name by their folders).
 */
async function stageApiReference(packages: readonly PublishedPackage[]): Promise<SidebarItem[]> {
  const entriesDir = join(toolDir, '.api-entries');
  rmSync(entriesDir, { recursive: true, force: true });
  mkdirSync(entriesDir, { recursive: true });
  const entryPoints: string[] = [];
  for (const pkg of packages) {
    for (const entry of pkg.entryPoints) {
      if (!existsSync(entry.declarations))
        throw new Error(`${entry.specifier}: no ${entry.declarations}; run \`pnpm build\` first`);
      const file = join(
        entriesDir,
        `${entry.specifier.replace('@faultline/', '').replaceAll('/', '-')}.d.ts`,
      );
      const target = relative(entriesDir, entry.declarations).replace(/\.d\.ts$/, '.js');
      writeFileSync(
        file,
        `/**\n * ${pkg.description}\n *\n * The package: [${pkg.name}](/packages/${pkg.folder}.md).\n *\n * @module ${entry.specifier}\n */\nexport * from '${target}';\n`,
      );
      entryPoints.push(file);
    }
  }
  // A program of the entry points alone, with a user's options (not the tool's own tsconfig).
  const tsconfig = join(entriesDir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        skipLibCheck: true,
        strict: true,
        noEmit: true,
      },
      files: entryPoints,
    }),
  );
  const out = join(stageDir, 'api');
  const app = await Application.bootstrapWithPlugins({
    entryPoints,
    entryPointStrategy: 'resolve',
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out,
    // Options of typedoc-plugin-markdown and typedoc-vitepress-theme, which TypeDoc's own option
    // type does not declare.
    ...({
      docsRoot: stageDir,
      outputFileStrategy: 'modules',
      entryFileName: 'index',
      hidePageHeader: true,
      // Explicit anchors with TypeDoc's own ids: its links to a computed key (`[MARKER]`) or to the
      // second of two same-named declarations do not match the ids VitePress derives from headings.
      useHTMLAnchors: true,
      parametersFormat: 'table',
      interfacePropertiesFormat: 'table',
      classPropertiesFormat: 'table',
      sidebar: { autoConfiguration: true, format: 'vitepress', pretty: true, collapsed: true },
    } as Record<string, unknown>),
    readme: 'none',
    name: 'API reference',
    excludePrivate: true,
    excludeInternal: true,
    disableSources: true,
    skipErrorChecking: true,
    tsconfig,
    logLevel: 'Warn',
    validation: { notExported: false, invalidLink: true, notDocumented: false },
  });
  const project = await app.convert();
  if (project === undefined) throw new Error('TypeDoc could not read the declarations');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc reported errors (above)');
  rmSync(entriesDir, { recursive: true, force: true });
  return JSON.parse(readFileSync(join(out, 'typedoc-sidebar.json'), 'utf8')) as SidebarItem[];
}

const link = (page: string) => `/${page.replace(/(^|\/)index\.md$/, '$1').replace(/\.md$/, '')}`;

function sidebarOf(pages: readonly string[], packages: readonly PublishedPackage[], api: SidebarItem[]) {
  const item = (page: string): SidebarItem => ({ text: titleOf(join(stageDir, page)), link: link(page) });
  const inFolder = (folder: string) =>
    pages.filter((page) => page.startsWith(`${folder}/`) && !page.endsWith('/index.md')).map(item);
  const guides = pages.filter((page) => !page.includes('/') && page !== 'index.md').map(item);
  return [
    { text: 'Guides', items: [item('index.md'), ...guides] },
    { text: 'Adapters', items: inFolder('adapters') },
    { text: 'Integrations', items: inFolder('integrations') },
    {
      text: 'Reasons',
      collapsed: true,
      items: [{ text: 'All reasons', link: '/reasons/' }, ...inFolder('reasons')],
    },
    {
      text: 'Packages',
      collapsed: true,
      items: packages.map((pkg) => ({ text: pkg.name, link: `/packages/${pkg.folder}` })),
    },
    { text: 'API reference', collapsed: true, items: [{ text: 'Every entry point', link: '/api/' }, ...api] },
    { text: 'Contributing', collapsed: true, items: inFolder('contributing') },
  ] satisfies SidebarItem[];
}

export async function stage(): Promise<SiteManifest> {
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(stageDir, { recursive: true });
  const sources: Record<string, string> = {};
  const packages = publishedPackages();
  const pages = stageDocs(sources);
  stageReasonsIndex(sources);
  stagePackages(packages, sources);
  const api = await stageApiReference(packages.filter((pkg) => pkg.entryPoints.length > 0));
  const manifest: SiteManifest = { sources, sidebar: sidebarOf(pages, packages, api) };
  writeFileSync(join(stageDir, '.site.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const manifest = await stage();
  console.log(
    `staged ${Object.keys(manifest.sources).length} pages and the API reference in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
