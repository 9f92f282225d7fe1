import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cannotHappenTemplate, scenarioTemplates } from './scenario-templates.ts';

/** The repository this scaffolder lives in (tools/create-extractor/src → the root). */
export const REPOSITORY_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The template files (`*.tmpl`), rendered with the provider's names. */
export const TEMPLATE_DIRECTORY: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'template');

export interface ScaffoldOptions {
  /** The repository to scaffold into (default: this one). */
  readonly repositoryRoot?: string;
  /** The provider key, kebab-case: `acme`, `google-genai`. */
  readonly name: string;
  /** The npm name of the SDK the extractor reads; none scaffolds a fetch-based provider with its own client. */
  readonly sdk?: string | undefined;
  /** The SDK version to test against (the devDependency); required with `sdk`. */
  readonly sdkVersion?: string | undefined;
  /** The provider's name for people (default: from the key, `Google Genai`). */
  readonly title?: string | undefined;
  /**
   * With `sdk`: a driver module (default-exporting `defineDriver({ … })` from
   * packages/cli/src/driver/define.ts) that calls the SDK against a loopback URL. It is copied to
   * packages/cli/src/driver/providers/<name>.ts, where the demo, the bench, the corpus and the new
   * package's own tests call the SDK through it. Not needed when that module is already there.
   */
  readonly driver?: string | undefined;
  /** Run Biome over the new package (default true; skipped when Biome is not installed). */
  readonly format?: boolean;
}

export interface ScaffoldResult {
  readonly packageDirectory: string;
  readonly scenarioDirectory: string;
  /** Every file written, relative to the repository root. */
  readonly files: string[];
  /** Integration entries whose place was not found (`file: what`): to add by hand. */
  readonly unplaced: string[];
}

/** The spellings of one provider key. */
export interface ProviderNames {
  readonly name: string;
  readonly camel: string;
  readonly pascal: string;
  readonly upper: string;
  readonly title: string;
}

const PROVIDER_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
const VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;

/**
 * The spellings of a provider key. A title that spells the key with its own capitals (`OpenRouter`
 * for `openrouter`, `Hugging Face` for `huggingface`) gives the code names those capitals
 * (`readOpenRouterHttpFailure`, `guardHuggingFaceStream`), as people write the name; otherwise the
 * key's words are capitalised (`google-genai`: `GoogleGenai`).
 */
export function providerNames(name: string, title?: string): ProviderNames {
  const compact = title?.replace(/[\s_-]+/g, '');
  const fromTitle =
    compact !== undefined &&
    /^[A-Za-z][A-Za-z0-9]*$/.test(compact) &&
    compact.toLowerCase() === name.replaceAll('-', '')
      ? compact.charAt(0).toUpperCase() + compact.slice(1)
      : undefined;
  const camel =
    fromTitle === undefined
      ? name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())
      : fromTitle.charAt(0).toLowerCase() + fromTitle.slice(1);
  return {
    name,
    camel,
    pascal: camel.charAt(0).toUpperCase() + camel.slice(1),
    upper: name.replaceAll('-', '_').toUpperCase(),
    title:
      title ??
      name
        .split('-')
        .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
        .join(' '),
  };
}

/** A wide, open peer range from the version tested: `>=3.0.0`, or `>=0.12.0` for 0.x. */
export function peerRangeFor(version: string): string {
  const match = VERSION.exec(version);
  if (match === null) throw new Error(`--sdk-version must be an exact version like 1.2.3, got "${version}"`);
  return match[1] === '0' ? `>=0.${match[2]}.0` : `>=${match[1]}.0.0`;
}

/** The condition that points at `src` (the first of tsconfig.base.json's customConditions). */
export function sourceConditionOf(repositoryRoot: string): string {
  try {
    const tsconfig = JSON.parse(readFileSync(join(repositoryRoot, 'tsconfig.base.json'), 'utf8'));
    const condition = tsconfig?.compilerOptions?.customConditions?.[0];
    if (typeof condition === 'string' && condition.length > 0) return condition;
  } catch {
    // no tsconfig.base.json: the default below
  }
  return 'source';
}

/** The workspace's repository address, written once in the root package.json (each package's links derive from it). */
function repositoryUrlOf(repositoryRoot: string): string | undefined {
  try {
    const url = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8'))?.repository?.url;
    return typeof url === 'string' && url.length > 0 ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The repository's web page, for the README's links (npm shows a README away from the repository). */
function repositoryHomeOf(repositoryRoot: string): string {
  const url = repositoryUrlOf(repositoryRoot);
  return url === undefined
    ? 'https://www.npmjs.com/org/faultline'
    : url.replace(/^git\+/, '').replace(/\.git$/, '');
}

/** package.json per the house template (STYLE.md; the same shape as the living extract packages). */
export function packageManifest(
  names: ProviderNames,
  sourceCondition: string,
  sdk?: { name: string; version: string },
  repositoryUrl?: string,
): Record<string, unknown> {
  const directory = `packages/extract-${names.name}`;
  const home = repositoryUrl?.replace(/^git\+/, '').replace(/\.git$/, '');
  const manifest: Record<string, unknown> = {
    name: `@faultline/extract-${names.name}`,
    version: '0.1.0',
    description:
      sdk === undefined
        ? `Classify errors of the ${names.title} HTTP API (fetch-based) with faultline`
        : `Classify errors thrown by the ${sdk.name} SDK with faultline`,
    license: 'MIT',
    ...(repositoryUrl === undefined || home === undefined
      ? {}
      : {
          repository: { type: 'git', url: repositoryUrl, directory },
          homepage: `${home}/tree/main/${directory}#readme`,
          bugs: { url: `${home}/issues` },
        }),
    keywords: ['llm', 'errors', 'faultline', names.name],
    publishConfig: { access: 'public', provenance: true },
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20.19' },
    exports: {
      '.': { [sourceCondition]: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    main: './dist/index.js',
    types: './dist/index.d.ts',
    // The source maps carry no sourcesContent (tsup.shared.ts): the sources they name ship instead.
    files: ['dist', 'src', '!src/**/*.test.ts', '!src/**/__snapshots__', '!src/test-support.ts'],
    scripts: {
      build: 'tsup',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      'lint:package': 'publint --strict && attw --pack . --profile esm-only',
    },
    dependencies: {
      '@faultline/classify': 'workspace:^',
      '@faultline/render': 'workspace:^',
      valibot: '^1.5.0',
    },
  };
  const devDependencies: Record<string, string> = {
    '@faultline/test-fixtures': 'workspace:*',
    'fast-check': '^4.10.2',
  };
  if (sdk !== undefined) {
    manifest.peerDependencies = { [sdk.name]: peerRangeFor(sdk.version) };
    manifest.peerDependenciesMeta = { [sdk.name]: { optional: true } };
    devDependencies[sdk.name] = sdk.version;
  }
  manifest.devDependencies = Object.fromEntries(
    Object.entries(devDependencies).sort(([left], [right]) => (left < right ? -1 : 1)),
  );
  return manifest;
}

function render(text: string, tokens: Record<string, string>): string {
  let rendered = text;
  for (const [token, value] of Object.entries(tokens)) rendered = rendered.replaceAll(token, value);
  return rendered;
}

function template(file: string): string {
  return readFileSync(join(TEMPLATE_DIRECTORY, file), 'utf8');
}

const FIXED_FILES: Record<string, string> = {
  'tsconfig.json': '{\n  "extends": "../../tsconfig.base.json",\n  "include": ["src", "test"]\n}\n',
  'tsup.config.ts': `import { defineConfig } from 'tsup';
import { importPathOptions } from '../../tsup.shared.ts';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  ...importPathOptions,
});
`,
  'vitest.config.ts': "export { default } from '../../vitest.shared.ts';\n",
};

function readmeTokens(names: ProviderNames, sdk: string | undefined): Record<string, string> {
  if (sdk === undefined) {
    return {
      __WHAT__: `(its HTTP API, called through this package's \`fetch${names.pascal}\`)`,
      __INSTALL_SDK__: '',
      __USAGE__: `import { fetch${names.pascal}, withClassifiedErrors } from '@faultline/extract-${names.name}';
import { FaultlineError, formatPanel } from '@faultline/render';

try {
  const response = await withClassifiedErrors(
    ({ signal }) =>
      fetch${names.pascal}('https://api.${names.name}.example/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: \`Bearer \${process.env.${names.upper}_API_KEY}\` },
        body: JSON.stringify({ model: '${names.name}-model', messages: [{ role: 'user', content: 'Hello' }] }),
        signal,
        timeoutMs: 60_000,
      }),
    { model: '${names.name}-model', retry: { maxAttempts: 3 } },
  );
  console.log(await response.json());
} catch (error) {
  if (FaultlineError.isInstance(error)) console.error(formatPanel(error.toErrorReport()));
  throw error;
}`,
      __TODO_SDK__: `Point \`fetch${names.pascal}\`'s callers at the real API; keep the client's errors (\`${names.pascal}ApiError\`, \`${names.pascal}ConnectionError\`) as they are.`,
    };
  }
  return {
    __WHAT__: `(the \`${sdk}\` SDK, an optional peer: install your own version)`,
    __INSTALL_SDK__: ` ${sdk}`,
    __USAGE__: `import { withClassifiedErrors } from '@faultline/extract-${names.name}';
import { FaultlineError, formatPanel } from '@faultline/render';

// Turn the SDK's own retries off (maxRetries: 0): faultline owns retries.
try {
  const answer = await withClassifiedErrors(({ signal }) => client.someCall({ ... }, { signal }), {
    model: '${names.name}-model',
    retry: { maxAttempts: 3 },
  });
} catch (error) {
  if (FaultlineError.isInstance(error)) console.error(formatPanel(error.toErrorReport()));
  throw error;
}`,
    __TODO_SDK__: `The tests call the real \`${sdk}\` through its driver module (\`packages/cli/src/driver/providers/${names.name}.ts\`): teach \`src/extract-${names.name}.ts\` the SDK's error classes (duck-typed) until \`src/extract-${names.name}.test.ts\` and \`src/option-matrix.test.ts\` pass, add each older major you support to \`SDKS\` in \`src/test-support.ts\` (an npm alias devDependency), and give the option matrix a healthy answer of ${sdk}'s API.`,
  };
}

/** Where the one scenario driver finds a provider's driver module. */
export function driverModulePath(repositoryRoot: string, name: string): string {
  return join(repositoryRoot, 'packages', 'cli', 'src', 'driver', 'providers', `${name}.ts`);
}

/**
 * The driver module to copy for an SDK provider (`--driver`), or `undefined` when the module is
 * already in place. How to call an SDK is the SDK's own, so the scaffolder cannot write it: it asks
 * for it and refuses, before writing anything, until it is given, so that the new package's tests
 * drive the real SDK from the first run.
 */
function sdkDriverOf(
  repositoryRoot: string,
  name: string,
  sdk: string,
  driver: string | undefined,
): string | undefined {
  const target = driverModulePath(repositoryRoot, name);
  const where = relative(repositoryRoot, target);
  if (driver === undefined) {
    if (existsSync(target)) return undefined;
    throw new Error(`create-extractor: an SDK provider needs its driver module: how to call ${sdk} against a loopback URL.
Write it (export default defineDriver<typeof import('${sdk}')>({ model, credentials, operation, call }),
see packages/cli/src/driver/define.ts; packages/cli/src/driver/providers/ollama.ts is a model, and
stainless-chat.ts serves a Stainless-generated SDK), then either save it as ${where}
or pass it with --driver <file>. The new package's scenario suite and option matrix call ${sdk}
through it; nothing was written.`);
  }
  if (existsSync(target)) {
    throw new Error(`create-extractor: ${where} already exists; drop --driver to use it as it is`);
  }
  const path = resolve(driver);
  if (!existsSync(path)) throw new Error(`create-extractor: --driver ${driver}: no such file`);
  const text = readFileSync(path, 'utf8');
  if (!/export\s+default\b/.test(text)) {
    throw new Error(
      `create-extractor: --driver ${driver} has no default export (export default defineDriver({ … }))`,
    );
  }
  return text;
}

/** Reads providers.json; throws when it is missing or has no providers array. */
function readProviderList(repositoryRoot: string): {
  path: string;
  data: Record<string, unknown> & {
    providers: Array<{ name: string; sdk: string | null; lacks?: Record<string, string> }>;
  };
} {
  const path = join(repositoryRoot, 'providers.json');
  if (!existsSync(path)) throw new Error(`create-extractor: ${path} does not exist (the one provider list)`);
  const data = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(data?.providers)) throw new Error(`create-extractor: ${path} has no "providers" array`);
  return { path, data };
}

function sortedRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
  );
}

/** Adds the SDK to the named dependency fields of a manifest (a peer gets a range and `optional`). */
function addSdk(
  path: string,
  sdk: { name: string; version: string },
  fields: ReadonlyArray<'dependencies' | 'peerDependencies' | 'devDependencies'>,
): void {
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<
    string,
    Record<string, unknown> | undefined
  >;
  for (const field of fields) {
    const value = field === 'peerDependencies' ? peerRangeFor(sdk.version) : sdk.version;
    manifest[field] = sortedRecord({ ...(manifest[field] ?? {}), [sdk.name]: value });
    if (field === 'peerDependencies') {
      manifest.peerDependenciesMeta = sortedRecord({
        ...(manifest.peerDependenciesMeta ?? {}),
        [sdk.name]: { optional: true },
      });
    }
  }
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Adds `dependency: workspace:^` to a workspace package's dependencies, kept sorted. */
function addWorkspaceDependency(packageDirectory: string, dependency: string): void {
  const path = join(packageDirectory, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { dependencies?: Record<string, string> };
  const dependencies = { ...(manifest.dependencies ?? {}), [dependency]: 'workspace:^' };
  manifest.dependencies = Object.fromEntries(
    Object.entries(dependencies).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
  );
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Adds the package's row to the root README's package table, after the last `@faultline/extract-*`
 * row (packed-install checks every published package has one). False when the README has no such
 * table.
 */
function addReadmeRow(repositoryRoot: string, names: ProviderNames, sdk: string | undefined): boolean {
  const path = join(repositoryRoot, 'README.md');
  if (!existsSync(path)) return false;
  const lines = readFileSync(path, 'utf8').split('\n');
  let last = -1;
  lines.forEach((line, index) => {
    if (line.startsWith('| `@faultline/extract-')) last = index;
  });
  if (last === -1) return false;
  const what = sdk === undefined ? `the ${names.title} HTTP API (fetch-based)` : sdk;
  lines.splice(last + 1, 0, `| \`@faultline/extract-${names.name}\` | ${what} |`);
  writeFileSync(path, lines.join('\n'));
  return true;
}

/** One edit of a source file: the pattern whose match is kept, and what goes after it. */
interface Insertion {
  readonly what: string;
  readonly after: RegExp;
  readonly text: string;
}

/** The files an integration reads every provider of providers.json in, and what a provider needs there. */
export function integrationInsertions(
  names: ProviderNames,
): Array<{ file: string; insertions: Insertion[] }> {
  const key = /^[a-z][a-z0-9]*$/.test(names.name) ? names.name : `'${names.name}'`;
  const module = `@faultline/extract-${names.name}`;
  return [
    {
      // @faultline/ai-sdk reads an APICallError's body with the provider's reader, by provider id.
      file: 'packages/ai-sdk/src/provider-of.ts',
      insertions: [
        {
          what: 'the reader import',
          after: /^import \{ readHttpFailure as read\w+HttpFailure \} from '@faultline\/extract-[^']+';$/gm,
          text: `\nimport { readHttpFailure as read${names.pascal}HttpFailure } from '${module}';`,
        },
        {
          what: 'the AiSdkProvider member',
          after: /export type AiSdkProvider =[^;]*/g,
          text: `\n  | '${names.name}'`,
        },
        {
          what: 'the HTTP_FAILURE_READERS entry',
          after: /export const HTTP_FAILURE_READERS[^=]*= \{[^}]*,/g,
          text: `\n  ${key}: read${names.pascal}HttpFailure,`,
        },
      ],
    },
    {
      // @faultline/langchain tries each provider's extractor on what a chat model threw.
      file: 'packages/langchain/src/classify-langchain-error.ts',
      insertions: [
        {
          what: 'the extractor import',
          after: /^(?:import \{[^}]*\}|\}) from '@faultline\/extract-[^']+';$/gm,
          text: `\nimport { extractor as ${names.camel}Extractor } from '${module}';`,
        },
        {
          what: 'the LangChainProvider member',
          after: /export type LangChainProvider =[^;]*/g,
          text: `\n  | '${names.name}'`,
        },
        {
          what: 'the PROVIDER_EXTRACTORS entry',
          after: /export const PROVIDER_EXTRACTORS[^=]*= \{[\s\S]*?\],(?=\n\};)/g,
          text: `\n  ${key}: [${names.camel}Extractor],`,
        },
        {
          what: 'the ORDER entry',
          after: /const ORDER: readonly LangChainProvider\[\] = \[[^\]]*?,(?=\n\];)/g,
          text: `\n  '${names.name}',`,
        },
        {
          what: 'the blocked-answer detector (none until the adapter has one)',
          after: /const detectors: Record<LangChainProvider,[\s\S]*?,(?=\n {4}\};)/g,
          text: `\n      ${key}: () => undefined,`,
        },
      ],
    },
  ];
}

/**
 * Teaches the integrations that read every provider of providers.json (the AI SDK's and LangChain's
 * provider maps, whose tests fail on a provider they lack) the new provider: its reader and
 * extractor imported, its entries added (each after the last match of its anchor), the package a
 * dependency of theirs. An integration absent from the repository is skipped. Returns the files
 * written and what could not be placed (an anchor not found: the contributor adds it by hand).
 */
export function addIntegrationEntries(
  repositoryRoot: string,
  names: ProviderNames,
): { written: string[]; missed: string[] } {
  const written: string[] = [];
  const missed: string[] = [];
  for (const { file, insertions } of integrationInsertions(names)) {
    const path = join(repositoryRoot, file);
    if (!existsSync(path)) continue;
    let text = readFileSync(path, 'utf8');
    for (const insertion of insertions) {
      let end = -1;
      for (const match of text.matchAll(insertion.after)) end = match.index + match[0].length;
      if (end === -1) {
        missed.push(`${file}: ${insertion.what}`);
        continue;
      }
      text = `${text.slice(0, end)}${insertion.text}${text.slice(end)}`;
    }
    writeFileSync(path, text);
    written.push(file);
    const manifest = join(repositoryRoot, file.split('/src/')[0]!, 'package.json');
    if (existsSync(manifest)) {
      addWorkspaceDependency(dirname(manifest), `@faultline/extract-${names.name}`);
      written.push(relative(repositoryRoot, manifest));
    }
  }
  return { written, missed };
}

/** Why a scaffolded adapter has no `detectBlockedAnswer`, `inspectResult` or `readRateLimit` yet, for providers.json. */
export function lacksTemplate(title: string): Record<string, string> {
  const why = `scaffolded: no way for ${title} to withhold an answer in a 200 is known yet; export detectBlockedAnswer and inspectResult when its API has one, and delete this entry`;
  return {
    detectBlockedAnswer: why,
    inspectResult: why,
    readRateLimit: `scaffolded: no rate-limit headers of ${title} are known yet; export readRateLimit (readRateLimitBudget under its header names) when it sends some, and delete this entry`,
  };
}

/** Writes providers.json in its house layout: one provider per line. */
export function formatProviderList(
  data: Record<string, unknown> & { providers: Array<{ name: string; sdk: string | null }> },
): string {
  const lines = ['{'];
  const keys = Object.keys(data).filter((key) => key !== 'providers');
  for (const key of keys) lines.push(`  ${JSON.stringify(key)}: ${JSON.stringify(data[key])},`);
  lines.push('  "providers": [');
  data.providers.forEach((entry, index) => {
    const comma = index < data.providers.length - 1 ? ',' : '';
    // Every key of the entry is kept (`streamGuard` …), name and sdk first.
    const { name, sdk, ...rest } = entry as { name: string; sdk: string | null } & Record<string, unknown>;
    const fields = Object.entries({ name, sdk, ...rest })
      .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join(', ');
    lines.push(`    { ${fields} }${comma}`);
  });
  lines.push('  ]', '}');
  return `${lines.join('\n')}\n`;
}

function write(repositoryRoot: string, path: string, text: string, written: string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  written.push(relative(repositoryRoot, path));
}

/** The target's Biome, else this checkout's (a fresh copy has no node_modules yet); none without a biome.json. */
function biomeBinary(repositoryRoot: string): string | undefined {
  if (!existsSync(join(repositoryRoot, 'biome.json'))) return undefined;
  for (const root of [repositoryRoot, REPOSITORY_ROOT]) {
    const binary = join(root, 'node_modules', '.bin', 'biome');
    if (existsSync(binary)) return binary;
  }
  return undefined;
}

/**
 * Scaffolds `packages/extract-<name>` (package.json, tsconfig, tsup and vitest configs, the
 * extractor, the error shape, the index with a bound `withClassifiedErrors`, a fetch client when
 * there is no SDK, tests wired to the loopback server, README), one scenario per reason the
 * template can produce plus `_coverage.json` in `packages/llm-mock/scenarios/<name>`, and appends the
 * provider to providers.json. Refuses to overwrite anything.
 */
export function scaffoldProvider(options: ScaffoldOptions): ScaffoldResult {
  const repositoryRoot = resolve(options.repositoryRoot ?? REPOSITORY_ROOT);
  const { name } = options;
  if (!PROVIDER_NAME.test(name)) {
    throw new Error(
      `create-extractor: the provider name must be kebab-case (acme, google-genai), got "${name}"`,
    );
  }
  if (options.sdk !== undefined && !NPM_NAME.test(options.sdk)) {
    throw new Error(`create-extractor: --sdk must be an npm package name, got "${options.sdk}"`);
  }
  if (options.sdk !== undefined && options.sdkVersion === undefined) {
    throw new Error('create-extractor: --sdk needs --sdk-version <the exact version to test against>');
  }
  if (options.sdk === undefined && options.sdkVersion !== undefined) {
    throw new Error('create-extractor: --sdk-version needs --sdk <npm name>');
  }
  const sdk = options.sdk === undefined ? undefined : { name: options.sdk, version: options.sdkVersion! };
  if (sdk !== undefined) peerRangeFor(sdk.version);
  const driverText =
    sdk === undefined ? undefined : sdkDriverOf(repositoryRoot, name, sdk.name, options.driver);
  if (sdk === undefined && options.driver !== undefined) {
    throw new Error(
      'create-extractor: --driver is for an SDK provider (with --sdk); a fetch-based provider gets its driver module written',
    );
  }
  const list = readProviderList(repositoryRoot);
  if (list.data.providers.some((entry) => entry.name === name)) {
    throw new Error(`create-extractor: provider '${name}' is already in providers.json`);
  }
  const packageDirectory = join(repositoryRoot, 'packages', `extract-${name}`);
  const scenarioDirectory = join(repositoryRoot, 'packages', 'llm-mock', 'scenarios', name);
  for (const directory of [packageDirectory, scenarioDirectory]) {
    if (existsSync(directory))
      throw new Error(`create-extractor: ${relative(repositoryRoot, directory)} already exists`);
  }

  const names = providerNames(name, options.title);
  const tokens: Record<string, string> = {
    ...readmeTokens(names, sdk?.name),
    __name__: names.name,
    __camel__: names.camel,
    __Pascal__: names.pascal,
    __UPPER__: names.upper,
    __Title__: names.title,
    __SDK__: sdk?.name ?? '',
    __HOME__: repositoryHomeOf(repositoryRoot),
  };
  const written: string[] = [];
  const manifest = packageManifest(
    names,
    sourceConditionOf(repositoryRoot),
    sdk,
    repositoryUrlOf(repositoryRoot),
  );
  write(
    repositoryRoot,
    join(packageDirectory, 'package.json'),
    `${JSON.stringify(manifest, null, 2)}\n`,
    written,
  );
  for (const [file, text] of Object.entries(FIXED_FILES))
    write(repositoryRoot, join(packageDirectory, file), text, written);
  // Every published package ships the root LICENSE (packed-install checks the copy is the same).
  const license = join(repositoryRoot, 'LICENSE');
  if (existsSync(license))
    write(repositoryRoot, join(packageDirectory, 'LICENSE'), readFileSync(license, 'utf8'), written);
  const variant = sdk === undefined ? 'fetch' : 'sdk';
  const sources: Array<[templateFile: string, target: string]> = [
    ['README.md.tmpl', 'README.md'],
    ['src/__name__-error-shape.ts.tmpl', `src/${name}-error-shape.ts`],
    ['src/extract-__name__.ts.tmpl', `src/extract-${name}.ts`],
    [`src/index.${variant}.ts.tmpl`, 'src/index.ts'],
    ['src/conformance.test.ts.tmpl', 'src/conformance.test.ts'],
    [`src/exports.${variant}.test.ts.tmpl`, 'src/exports.test.ts'],
    ['src/read-http-failure.test.ts.tmpl', 'src/read-http-failure.test.ts'],
    ['src/option-keys.test.ts.tmpl', 'src/option-keys.test.ts'],
    [`src/extract-__name__.${variant}.test.ts.tmpl`, `src/extract-${name}.test.ts`],
  ];
  if (sdk === undefined) sources.push(['src/__name__-client.ts.tmpl', `src/${name}-client.ts`]);
  else {
    // The real SDK through the driver module, for the scenario suite and the option matrix (parity
    // requires a provider with an SDK to run its options through the matrix).
    sources.push(['src/test-support.sdk.ts.tmpl', 'src/test-support.ts']);
    sources.push(['src/option-matrix.sdk.test.ts.tmpl', 'src/option-matrix.test.ts']);
  }
  for (const [templateFile, target] of sources) {
    write(repositoryRoot, join(packageDirectory, target), render(template(templateFile), tokens), written);
  }

  for (const scenario of scenarioTemplates(names.title, name)) {
    const data = {
      id: `${name}/${scenario.file}`,
      provider: name,
      description: scenario.description,
      source:
        'tools/create-extractor template: a generic JSON error body ({ "error": { "message", "type", "code" } }); replace it with a response recorded from the provider (curl -i, keys scrubbed) and name its documentation here',
      ...(sdk === undefined ? {} : { api: 'chat' }),
      response: scenario.response,
      expected: scenario.expected,
      ...(scenario.demo === undefined ? {} : { demo: scenario.demo }),
    };
    write(
      repositoryRoot,
      join(scenarioDirectory, `${scenario.file}.json`),
      `${JSON.stringify(data, null, 2)}\n`,
      written,
    );
  }
  const coverage = { provider: name, cannotHappen: cannotHappenTemplate(names.title) };
  write(
    repositoryRoot,
    join(scenarioDirectory, '_coverage.json'),
    `${JSON.stringify(coverage, null, 2)}\n`,
    written,
  );

  // A new adapter starts without blocked-answer detection: providers.json says so (parity reads it)
  // rather than the template inventing a detector for an API it knows nothing about.
  list.data.providers.push({ name, sdk: sdk?.name ?? null, lacks: lacksTemplate(names.title) });
  writeFileSync(list.path, formatProviderList(list.data));
  written.push('providers.json');

  // The one scenario driver (shipped in the CLI) calls the provider through a module of its own,
  // found by the provider's name; the CLI depends on the package so that the module can import it.
  // With that, the demo, the bench, the reliability suite and the driver's tests take the provider
  // in with no other edit. A fetch-based provider's call is written here; an SDK provider's is the
  // module the contributor gave (`--driver`), which the new package's tests call the SDK through.
  const cliDirectory = join(repositoryRoot, 'packages', 'cli');
  if (driverText !== undefined)
    write(repositoryRoot, driverModulePath(repositoryRoot, name), driverText, written);
  if (existsSync(join(cliDirectory, 'package.json'))) {
    addWorkspaceDependency(cliDirectory, `@faultline/extract-${name}`);
    written.push(relative(repositoryRoot, join(cliDirectory, 'package.json')));
    if (sdk === undefined) {
      write(
        repositoryRoot,
        driverModulePath(repositoryRoot, name),
        render(template('driver.fetch.ts.tmpl'), tokens),
        written,
      );
    } else {
      // The CLI imports the SDK only to drive it (an optional peer; its tests pin it), and
      // @faultline/demo is the package that installs it for `npx @faultline/demo`.
      addSdk(join(cliDirectory, 'package.json'), sdk, ['peerDependencies', 'devDependencies']);
      const demoManifest = join(repositoryRoot, 'packages', 'demo', 'package.json');
      if (existsSync(demoManifest)) {
        addSdk(demoManifest, sdk, ['dependencies']);
        written.push(relative(repositoryRoot, demoManifest));
      }
    }
  }
  // The scenario driver imports the SDK from its own folder (the corpus and the driver's tests play
  // cases through it), so it depends on the SDK at the version the tests pin.
  const driverManifest = join(repositoryRoot, 'tools', 'scenario-driver', 'package.json');
  if (sdk !== undefined && existsSync(driverManifest)) {
    addSdk(driverManifest, sdk, ['dependencies']);
    written.push(relative(repositoryRoot, driverManifest));
  }
  if (addReadmeRow(repositoryRoot, names, sdk?.name)) written.push('README.md');
  const integrations = addIntegrationEntries(repositoryRoot, names);
  written.push(...integrations.written);

  const biome = options.format === false ? undefined : biomeBinary(repositoryRoot);
  if (biome !== undefined) {
    const driverModule = join('packages', 'cli', 'src', 'driver', 'providers', `${name}.ts`);
    // providers.json too: its one-line entries are wrapped as Biome wraps the file.
    const formatted = [relative(repositoryRoot, packageDirectory), 'providers.json'];
    // The integrations' sources too: an import added is sorted where Biome sorts it.
    formatted.push(...integrations.written.filter((file) => file.endsWith('.ts')));
    if (existsSync(join(repositoryRoot, driverModule))) formatted.push(driverModule);
    spawnSync(biome, ['check', '--write', ...formatted], {
      cwd: repositoryRoot,
      stdio: 'ignore',
    });
  }
  return { packageDirectory, scenarioDirectory, files: written, unplaced: integrations.missed };
}

/** Every template file, for tests that check each one is used. */
export function templateFiles(): string[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(TEMPLATE_DIRECTORY, path));
    }
  };
  walk(TEMPLATE_DIRECTORY);
  return files.sort();
}
