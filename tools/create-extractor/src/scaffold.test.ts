import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// The parity checks are functions of a repository root: the scaffolder's output must pass them
// as generated. (A relative import: @faultline/parity is a private tool, not a dependency.)
import {
  linkWorkspaceModules,
  removeDirectory,
  temporaryDirectory,
  writeJson,
} from '../../parity/src/fixture-repository.ts';
import { allProblems, runParityChecks } from '../../parity/src/parity.ts';
import {
  addIntegrationEntries,
  formatProviderList,
  lacksTemplate,
  peerRangeFor,
  providerNames,
  REPOSITORY_ROOT,
  scaffoldProvider,
  templateFiles,
} from './scaffold.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeDirectory(root);
});

/** An empty repository: the workspace's base configs, an empty provider list, linked workspace packages. */
function emptyRepository(): string {
  const root = temporaryDirectory('faultline-scaffold-');
  roots.push(root);
  linkWorkspaceModules(root);
  for (const file of ['tsconfig.base.json', 'vitest.shared.ts', 'vitest.setup.ts', 'vitest.exports.ts']) {
    copyFileSync(join(REPOSITORY_ROOT, file), join(root, file));
  }
  writeJson(join(root, 'providers.json'), {
    $comment: 'the one list',
    providers: [{ name: 'openai', sdk: 'openai' }],
  });
  return root;
}

/** A driver module for an SDK provider, as a contributor writes it (`--driver`). */
function driverFile(root: string, sdk: string): string {
  const path = join(root, 'zenith-driver.ts');
  writeFileSync(
    path,
    `import { defineDriver, PROMPT } from '../define.ts';

/** ${sdk}: chat. */
export default defineDriver<typeof import('${sdk}')>({
  model: 'zenith-1',
  credentials: ['zk-faultlineCanary000000000000'],
  operation: () => 'chat.create',
  call: ({ sdk, baseUrl, timeoutMs, signal }) =>
    new sdk.Zenith({ baseUrl, timeoutMs, maxRetries: 0 }).chat.create({ prompt: PROMPT }, { signal }),
});
`,
  );
  return path;
}

describe('pnpm new-provider', () => {
  it('scaffolds a fetch-based provider that passes parity (real client at every scenario) without hand edits', async () => {
    const root = emptyRepository();
    const result = scaffoldProvider({ repositoryRoot: root, name: 'acme-cloud', format: false });
    expect(result.files).toContain('packages/extract-acme-cloud/src/extract-acme-cloud.ts');
    expect(result.files).toContain('packages/extract-acme-cloud/src/acme-cloud-client.ts');
    expect(result.files).toContain('packages/llm-mock/scenarios/acme-cloud/_coverage.json');
    const list = JSON.parse(readFileSync(join(root, 'providers.json'), 'utf8'));
    expect(list.providers).toEqual([
      { name: 'openai', sdk: 'openai' },
      { name: 'acme-cloud', sdk: null, lacks: lacksTemplate('Acme Cloud') },
    ]);
    expect(list.$comment).toBe('the one list');
    const results = await runParityChecks(root, { only: ['acme-cloud'], numRuns: 100 });
    expect(allProblems(results)).toEqual([]);
    // Every scenario's real error went through the package's own client and extractor.
    expect(results[0]?.realErrorCount).toBeGreaterThanOrEqual(12);
    expect(results[0]?.notes).toEqual([]);
  }, 120_000);

  it('scaffolds an SDK provider with the SDK as an optional peer covering its devDependency', async () => {
    const root = emptyRepository();
    const result = scaffoldProvider({
      repositoryRoot: root,
      name: 'zenith',
      sdk: '@zenith/sdk',
      sdkVersion: '0.12.3',
      driver: driverFile(root, '@zenith/sdk'),
      format: false,
    });
    // The scenario suite and the option matrix call the real SDK through the driver module.
    expect(result.files).toEqual(
      expect.arrayContaining([
        'packages/extract-zenith/src/extract-zenith.test.ts',
        'packages/extract-zenith/src/option-matrix.test.ts',
        'packages/extract-zenith/src/test-support.ts',
      ]),
    );
    const support = readFileSync(join(root, 'packages', 'extract-zenith', 'src', 'test-support.ts'), 'utf8');
    expect(support).toContain("import * as zenithSdk from '@zenith/sdk';");
    expect(support).toContain("import driver from '../../cli/src/driver/providers/zenith.ts';");
    for (const file of result.files.filter((path) => path.startsWith('packages/extract-zenith/src/'))) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(text, file).not.toMatch(/__[A-Za-z]+__|TODO|\.skip\b/);
    }
    const manifest = JSON.parse(
      readFileSync(join(root, 'packages', 'extract-zenith', 'package.json'), 'utf8'),
    );
    expect(manifest.peerDependencies).toEqual({ '@zenith/sdk': '>=0.12.0' });
    expect(manifest.peerDependenciesMeta).toEqual({ '@zenith/sdk': { optional: true } });
    expect(manifest.devDependencies['@zenith/sdk']).toBe('0.12.3');
    expect(existsSync(join(root, 'packages', 'extract-zenith', 'src', 'zenith-client.ts'))).toBe(false);
    // No driver can call an SDK the repository does not have: the static and conformance checks.
    const results = await runParityChecks(root, { only: ['zenith'], numRuns: 100, realErrors: false });
    expect(allProblems(results)).toEqual([]);
  }, 120_000);

  it('adds the provider to the scenario driver: a driver module (fetch-based) and the CLI dependency', () => {
    const root = emptyRepository();
    writeJson(join(root, 'packages', 'cli', 'package.json'), {
      name: '@faultline/cli',
      dependencies: { valibot: '^1.5.0', '@faultline/render': 'workspace:^' },
    });
    const fetchBased = scaffoldProvider({ repositoryRoot: root, name: 'acme', format: false });
    const driverModule = 'packages/cli/src/driver/providers/acme.ts';
    expect(fetchBased.files).toContain(driverModule);
    const driver = readFileSync(join(root, driverModule), 'utf8');
    expect(driver).toContain("import { fetchAcme } from '@faultline/extract-acme';");
    expect(driver).toContain('export default defineDriver<undefined>({');
    expect(driver).not.toMatch(/__[A-Za-z]+__/);
    const given = driverFile(root, '@zenith/sdk');
    const sdkBased = scaffoldProvider({
      repositoryRoot: root,
      name: 'zenith',
      sdk: '@zenith/sdk',
      sdkVersion: '1.0.0',
      driver: given,
      format: false,
    });
    // How to call an SDK is the SDK's own: the driver module given is the one written.
    expect(sdkBased.files).toContain('packages/cli/src/driver/providers/zenith.ts');
    expect(readFileSync(join(root, 'packages/cli/src/driver/providers/zenith.ts'), 'utf8')).toBe(
      readFileSync(given, 'utf8'),
    );
    const cli = JSON.parse(readFileSync(join(root, 'packages', 'cli', 'package.json'), 'utf8'));
    expect(Object.keys(cli.dependencies)).toEqual([
      '@faultline/extract-acme',
      '@faultline/extract-zenith',
      '@faultline/render',
      'valibot',
    ]);
    expect(cli.dependencies['@faultline/extract-acme']).toBe('workspace:^');
  });

  it('copies the root LICENSE, adds the README row and the SDK to the scenario driver', () => {
    const root = emptyRepository();
    writeFileSync(join(root, 'LICENSE'), 'MIT License\n\nCopyright the authors\n');
    writeFileSync(
      join(root, 'README.md'),
      '# x\n\n| package | what |\n|---|---|\n| `@faultline/extract-openai` | openai |\n| `@faultline/http` | handlers |\n',
    );
    writeJson(join(root, 'tools', 'scenario-driver', 'package.json'), {
      name: '@faultline/scenario-driver',
      dependencies: { openai: '7.57.0' },
    });
    scaffoldProvider({
      repositoryRoot: root,
      name: 'zenith',
      sdk: '@zenith/sdk',
      sdkVersion: '1.2.3',
      driver: driverFile(root, '@zenith/sdk'),
      format: false,
    });
    expect(readFileSync(join(root, 'packages', 'extract-zenith', 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
    );
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(
      '| `@faultline/extract-openai` | openai |\n| `@faultline/extract-zenith` | @zenith/sdk |\n| `@faultline/http` |',
    );
    const driver = JSON.parse(readFileSync(join(root, 'tools', 'scenario-driver', 'package.json'), 'utf8'));
    expect(driver.dependencies).toEqual({ '@zenith/sdk': '1.2.3', openai: '7.57.0' });
  });

  it('asks an SDK provider for its driver module and writes nothing until given one', () => {
    const root = emptyRepository();
    const sdk = {
      repositoryRoot: root,
      name: 'zenith',
      sdk: '@zenith/sdk',
      sdkVersion: '1.0.0',
      format: false,
    };
    expect(() => scaffoldProvider(sdk)).toThrow(
      /an SDK provider needs its driver module: how to call @zenith\/sdk against a loopback URL[\s\S]*packages\/cli\/src\/driver\/providers\/zenith\.ts[\s\S]*--driver <file>[\s\S]*nothing was written/,
    );
    expect(existsSync(join(root, 'packages', 'extract-zenith'))).toBe(false);
    expect(JSON.parse(readFileSync(join(root, 'providers.json'), 'utf8')).providers).toHaveLength(1);
    expect(() => scaffoldProvider({ ...sdk, driver: join(root, 'missing.ts') })).toThrow(/no such file/);
    writeFileSync(join(root, 'no-default.ts'), 'export const driver = {};\n');
    expect(() => scaffoldProvider({ ...sdk, driver: join(root, 'no-default.ts') })).toThrow(
      /no default export/,
    );
    expect(() =>
      scaffoldProvider({
        repositoryRoot: root,
        name: 'acme',
        driver: driverFile(root, 'acme'),
        format: false,
      }),
    ).toThrow(/--driver is for an SDK provider/);
    // A driver module already in place is used as it is.
    const inPlace = join(root, 'packages', 'cli', 'src', 'driver', 'providers', 'zenith.ts');
    mkdirSync(dirname(inPlace), { recursive: true });
    copyFileSync(driverFile(root, '@zenith/sdk'), inPlace);
    const result = scaffoldProvider(sdk);
    expect(result.files).not.toContain('packages/cli/src/driver/providers/zenith.ts');
    expect(existsSync(join(root, 'packages', 'extract-zenith', 'src', 'test-support.ts'))).toBe(true);
  });

  it('uses every template file', () => {
    expect(templateFiles()).toEqual([
      'README.md.tmpl',
      'driver.fetch.ts.tmpl',
      'src/__name__-client.ts.tmpl',
      'src/__name__-error-shape.ts.tmpl',
      'src/conformance.test.ts.tmpl',
      'src/exports.fetch.test.ts.tmpl',
      'src/exports.sdk.test.ts.tmpl',
      'src/extract-__name__.fetch.test.ts.tmpl',
      'src/extract-__name__.sdk.test.ts.tmpl',
      'src/extract-__name__.ts.tmpl',
      'src/index.fetch.ts.tmpl',
      'src/index.sdk.ts.tmpl',
      'src/option-keys.test.ts.tmpl',
      'src/option-matrix.sdk.test.ts.tmpl',
      'src/read-http-failure.test.ts.tmpl',
      'src/test-support.sdk.ts.tmpl',
    ]);
  });

  it('refuses a bad name, a known provider, an SDK without a version', () => {
    const root = emptyRepository();
    expect(() => scaffoldProvider({ repositoryRoot: root, name: 'Acme' })).toThrow(/kebab-case/);
    expect(() => scaffoldProvider({ repositoryRoot: root, name: 'openai' })).toThrow(
      /already in providers.json/,
    );
    expect(() => scaffoldProvider({ repositoryRoot: root, name: 'acme', sdk: 'acme-sdk' })).toThrow(
      /--sdk-version/,
    );
    expect(() => peerRangeFor('^1.2.3')).toThrow(/exact version/);
    expect(existsSync(join(root, 'packages', 'extract-acme'))).toBe(false);
  });

  it('names providers consistently with parity', () => {
    expect(providerNames('google-genai')).toEqual({
      name: 'google-genai',
      camel: 'googleGenai',
      pascal: 'GoogleGenai',
      upper: 'GOOGLE_GENAI',
      title: 'Google Genai',
    });
    // A title that spells the key with capitals of its own names the code as people write it.
    expect(providerNames('openrouter', 'OpenRouter')).toMatchObject({
      camel: 'openRouter',
      pascal: 'OpenRouter',
    });
    expect(providerNames('huggingface', 'Hugging Face')).toMatchObject({ pascal: 'HuggingFace' });
    // Any other title is for people only.
    expect(providerNames('acme', 'Acme Corp')).toMatchObject({ camel: 'acme', pascal: 'Acme' });
  });

  it("adds the provider to the AI SDK's and LangChain's provider maps, each entry after the last", () => {
    const root = temporaryDirectory('faultline-scaffold-');
    roots.push(root);
    const files = [
      'packages/ai-sdk/src/provider-of.ts',
      'packages/langchain/src/classify-langchain-error.ts',
    ];
    for (const file of files) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      copyFileSync(join(REPOSITORY_ROOT, file), join(root, file));
      writeJson(join(root, file.split('/src/')[0]!, 'package.json'), {
        name: file.split('/')[1],
        dependencies: {},
      });
    }
    const result = addIntegrationEntries(root, providerNames('zenith-ai', 'Zenith AI'));
    expect(result.missed).toEqual([]);
    const aiSdk = readFileSync(join(root, files[0]!), 'utf8');
    expect(aiSdk).toContain(
      "import { readHttpFailure as readZenithAIHttpFailure } from '@faultline/extract-zenith-ai';",
    );
    expect(aiSdk).toMatch(/\| 'zenith-ai';/);
    expect(aiSdk).toMatch(/readOpenRouterHttpFailure,\n {2}'zenith-ai': readZenithAIHttpFailure,\n\};/);
    const langchain = readFileSync(join(root, files[1]!), 'utf8');
    expect(langchain).toContain(
      "import { extractor as zenithAIExtractor } from '@faultline/extract-zenith-ai';",
    );
    expect(langchain).toMatch(/\[openrouterExtractor\],\n {2}'zenith-ai': \[zenithAIExtractor\],\n\};/);
    expect(langchain).toMatch(/'openrouter',\n {2}'zenith-ai',\n\];/);
    expect(langchain).toMatch(/'zenith-ai': \(\) => undefined,\n {4}\};/);
    expect(JSON.parse(readFileSync(join(root, 'packages/ai-sdk/package.json'), 'utf8')).dependencies).toEqual(
      {
        '@faultline/extract-zenith-ai': 'workspace:^',
      },
    );
  });

  it('keeps every key of an entry (streamGuard) when it rewrites providers.json', () => {
    const list = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'providers.json'), 'utf8'));
    expect(JSON.parse(formatProviderList(list))).toEqual(list);
  });

  it('keeps providers.json one provider per line', () => {
    expect(
      formatProviderList({
        providers: [
          { name: 'a', sdk: null },
          { name: 'b', sdk: 'b-sdk' },
        ],
      }),
    ).toBe(
      '{\n  "providers": [\n    { "name": "a", "sdk": null },\n    { "name": "b", "sdk": "b-sdk" }\n  ]\n}\n',
    );
  });
});

// CI runs the same check, and more, on a copy of the whole repository (ci-check.sh: the new
// package's tests, parity, typecheck, package checks); here it is the quick local version.
describe.skipIf(process.env.CI !== undefined)('the scaffolded package runs its own tests green', () => {
  it('vitest run in the new package passes (real client against the loopback server)', () => {
    const root = emptyRepository();
    scaffoldProvider({ repositoryRoot: root, name: 'acme', format: false });
    const vitest = join(REPOSITORY_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=dot'], {
      cwd: join(root, 'packages', 'extract-acme'),
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
      timeout: 220_000,
    });
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/Tests\s+\d+ passed/);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  }, 240_000);
});
