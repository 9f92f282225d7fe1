import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import type { SiteManifest } from '../src/stage.ts';

const toolDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(toolDir, '../..');
const REPOSITORY = 'https://github.com/faultline-dev/faultline';
const manifest = JSON.parse(readFileSync(join(toolDir, '.stage/.site.json'), 'utf8')) as SiteManifest;

/**
 * Where a link written for GitHub goes on the site. The pages are written to be read on GitHub and
 * npm: relative links between repository files, and absolute GitHub links in package READMEs. A
 * link to a page the site has (a docs page, a package README) becomes a link within the site, where
 * the build's dead-link check and the link check see it; a link to any other file (an example, a
 * source file) goes to that file on GitHub.
 */
function siteHref(href: string, page: string): string {
  const source = manifest.sources[page];
  let target: string;
  if (href.startsWith(`${REPOSITORY}/blob/main/`) || href.startsWith(`${REPOSITORY}/tree/main/`)) {
    target = href.slice(`${REPOSITORY}/blob/main/`.length);
  } else if (source !== undefined && !/^[a-z][a-z0-9+.-]*:|^[#/]/i.test(href)) {
    const base = source.endsWith('.md') ? posix.dirname(source) : source;
    target = posix.normalize(posix.join(base, href));
  } else return href;
  const hash = target.indexOf('#');
  const path = (hash === -1 ? target : target.slice(0, hash)).replace(/\/$/, '');
  const anchor = hash === -1 ? '' : target.slice(hash);
  if (path === 'docs' || path === 'docs/README.md') return `/${anchor}`;
  if (path.startsWith('docs/') && path.endsWith('.md'))
    return `/${path.slice('docs/'.length).replace(/(^|\/)README\.md$/, '$1index.md')}${anchor}`;
  if (path.startsWith('docs/') && existsSync(join(repoRoot, path, 'index.md')))
    return `/${path.slice(5)}/${anchor}`;
  if (path === 'docs/reasons') return `/reasons/${anchor}`;
  const readme = /^packages\/([^/]+)(\/README\.md)?$/.exec(path);
  if (readme !== null && manifest.sources[`packages/${readme[1]}.md`] !== undefined)
    return `/packages/${readme[1]}.md${anchor === '#readme' ? '' : anchor}`;
  const kind =
    existsSync(join(repoRoot, path)) && statSync(join(repoRoot, path)).isDirectory() ? 'tree' : 'blob';
  return `${REPOSITORY}/${kind}/main/${path}${anchor}`;
}

export default defineConfig({
  title: 'faultline',
  description: 'LLM failures, classified once, at the source.',
  lang: 'en-US',
  srcDir: '.stage',
  outDir: 'dist',
  cleanUrls: false,
  lastUpdated: false,
  themeConfig: {
    sidebar: manifest.sidebar as never,
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Reasons', link: '/reasons/' },
      { text: 'API', link: '/api/' },
    ],
    outline: [2, 3],
    search: { provider: 'local' },
    socialLinks: [{ icon: 'github', link: REPOSITORY }],
  },
  markdown: {
    config(md) {
      md.core.ruler.push('faultline-site-links', (state) => {
        const page = (state.env as { relativePath?: string }).relativePath ?? '';
        const visit = (tokens: typeof state.tokens) => {
          for (const token of tokens) {
            if (token.type === 'link_open') {
              const href = token.attrGet('href');
              if (href !== null) token.attrSet('href', siteHref(href, page));
            }
            if (token.children) visit(token.children);
          }
        };
        visit(state.tokens);
      });
    },
  },
});
