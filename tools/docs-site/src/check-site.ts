/**
 * Checks the built docs site (`dist/`, from `pnpm docs:build`) as a reader gets it: served on
 * 127.0.0.1, then
 *
 * 1. every link and anchor within the site resolves (linkinator, crawling from the home page, with
 *    fragment checks; links that leave the site are listed, never fetched);
 * 2. every page opens in headless Chromium (Debian's `chromium`: FAULTLINE_CHROMIUM, else the one
 *    on PATH) without a console error, an uncaught exception, a failed or off-site request, or a
 *    missing article (a page the client router could not load shows VitePress's "not found").
 *
 * Usage: `pnpm docs:check` (after `pnpm docs:build`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LinkChecker, LinkState } from 'linkinator';
import { type BrowserContext, chromium } from 'playwright-core';
import sirv from 'sirv';

const toolDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = join(toolDir, 'dist');

/** Tabs open at once: page loads wait mostly on rendering, which two cores share. */
const TABS = 4;
/** How long one page may take to load and hydrate. */
const PAGE_TIMEOUT_MS = 30_000;

function htmlPages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : htmlPages(path);
    return entry.name.endsWith('.html') && entry.name !== '404.html' ? [relative(siteDir, path)] : [];
  });
}

async function serve(): Promise<{ server: Server; origin: string }> {
  // VitePress's own 404 page answers a missing file, with status 404, as a static host would.
  const files = sirv(siteDir, { dev: false, etag: false });
  const server = createServer((request, response) =>
    files(request, response, () => {
      response.statusCode = 404;
      response.end();
    }),
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

/** Every link within the site, anchors included; what leaves it is skipped and counted. */
async function checkLinks(
  origin: string,
): Promise<{ problems: string[]; checked: number; external: number }> {
  const external = new Set<string>();
  const checker = new LinkChecker();
  const result = await checker.check({
    path: `${origin}/`,
    recurse: true,
    checkFragments: true,
    concurrency: 8,
    linksToSkip: async (link) => {
      const skip = !link.startsWith(`${origin}/`);
      if (skip) external.add(link);
      return skip;
    },
  });
  const problems = result.links
    .filter((link) => link.state === LinkState.BROKEN)
    .map((link) => `${link.url} (${link.status ?? 'no answer'}) on ${link.parent ?? 'the start page'}`);
  const checked = result.links.filter((link) => link.state === LinkState.OK).length;
  return { problems, checked, external: external.size };
}

function chromiumPath(): string {
  const given = process.env.FAULTLINE_CHROMIUM;
  if (given !== undefined && given !== '') return given;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('no chromium on PATH and no FAULTLINE_CHROMIUM (apt-get install chromium)');
  }
}

/**
 * A tab that opens pages one after another and says what went wrong on each: the listeners stay,
 * the list they fill is the current page's.
 */
async function openTab(
  context: BrowserContext,
  origin: string,
): Promise<(page: string) => Promise<string[]>> {
  const tab = await context.newPage();
  let problems: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  tab.on('requestfailed', (request) => {
    // The theme prefetches the pages a page links to; moving on to the next page aborts what is still
    // in flight (net::ERR_ABORTED), which is no fault of the site. A missing file answers 404, below.
    const reason = request.failure()?.errorText;
    if (request.url().startsWith(origin) && reason !== 'net::ERR_ABORTED')
      problems.push(`${request.url()} failed: ${reason}`);
  });
  tab.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.url()} answered ${response.status()}`);
  });
  return async (page) => {
    problems = [];
    const seen = problems;
    try {
      const response = await tab.goto(`${origin}/${page}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
      // Vue marks the container once it has hydrated the server-rendered page (a long page takes a
      // while); a page whose scripts failed never gets the mark.
      await tab
        .waitForFunction(() => '__vue_app__' in (document.querySelector('#app') ?? {}), undefined, {
          timeout: PAGE_TIMEOUT_MS,
        })
        .catch(() => {});
      if (response?.status() !== 200) seen.push(`answered ${response?.status()}`);
      const article = await tab.evaluate(() => ({
        heading: document.querySelector('.vp-doc h1')?.textContent?.trim() ?? '',
        text: document.querySelector('.vp-doc')?.textContent?.trim().length ?? 0,
        notFound: document.querySelector('.NotFound') !== null,
        hydrated: '__vue_app__' in (document.querySelector('#app') ?? {}),
      }));
      if (article.notFound) seen.push('shows "page not found"');
      if (article.heading === '') seen.push('has no heading');
      if (article.text < 40) seen.push(`has ${article.text} characters of content`);
      if (!article.hydrated) seen.push('was not hydrated (the client app did not start)');
    } catch (error) {
      seen.push(error instanceof Error ? error.message : String(error));
    }
    return seen;
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(siteDir, 'index.html')))
    throw new Error(`no site in ${siteDir}: run \`pnpm docs:build\``);
  const started = performance.now();
  const pages = htmlPages(siteDir).sort();
  const { server, origin } = await serve();
  let failed = false;
  try {
    const links = await checkLinks(origin);
    for (const problem of links.problems) console.error(`broken link: ${problem}`);
    failed ||= links.problems.length > 0;
    const linksDone = performance.now();
    console.log(
      `links: ${links.checked} within the site resolve (anchors included), ${links.problems.length} broken; ${links.external} leaving the site not fetched (${((linksDone - started) / 1000).toFixed(1)} s)`,
    );

    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    try {
      const context = await browser.newContext();
      // The site works offline: a request that leaves it is a problem, and is never sent.
      const offSite: string[] = [];
      await context.route(
        (url) => url.origin !== origin,
        async (route) => {
          offSite.push(route.request().url());
          await route.abort();
        },
      );
      const queue = [...pages];
      const broken: string[] = [];
      const worker = async () => {
        const open = await openTab(context, origin);
        for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
          const problems = await open(page);
          if (problems.length > 0) broken.push(`${page}:\n  ${[...new Set(problems)].join('\n  ')}`);
        }
      };
      await Promise.all(Array.from({ length: TABS }, worker));
      for (const url of new Set(offSite)) broken.push(`a page requested ${url}, off the site`);
      for (const page of broken.sort()) console.error(`broken page: ${page}`);
      failed ||= broken.length > 0;
      console.log(
        `pages: ${pages.length - broken.length} of ${pages.length} open cleanly in Chromium ${browser.version()} (${((performance.now() - linksDone) / 1000).toFixed(1)} s)`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    server.close();
  }
  console.log(`docs site checked in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (failed) process.exitCode = 1;
}

await main();
