import { cpSync, existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FailureReason } from '@faultline/classify';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEverythingListed } from './check-listed.ts';
import { checkManifest, installedVersionOf } from './check-manifest.ts';
import {
  linkWorkspaceModules,
  removeDirectory,
  scenarioFor,
  temporaryDirectory,
  writeFile,
  writeJson,
} from './fixture-repository.ts';
import { allProblems, runParityChecks } from './parity.ts';
import { REPOSITORY_ROOT, readProviderList } from './provider-list.ts';

// Parity's own test: the checks are functions of a repository root, pointed here at temporary
// copies that are broken one way at a time. Each broken copy must fail with a message naming
// what is missing.

const GOOD_EXTRACTOR = `import {
  type Extractor,
  type HttpFailure,
  type HttpFailureReadOptions,
  type ProviderErrorMetadata,
} from '@faultline/classify';
import {
  checkOptionKeys,
  defineExtractor,
  HTTP_FAILURE_READ_OPTION_KEYS,
  safeGet,
  safeStatus,
} from '@faultline/classify/toolkit';

function answered(status: number | undefined): ProviderErrorMetadata {
  return { provider: 'acme', message: 'Acme error', origin: 'http', ...(status === undefined ? {} : { statusCode: status }) };
}

export const acmeExtractor: Extractor = defineExtractor({
  provider: 'acme',
  extract(error) {
    if (safeGet(error, 'name') !== 'AcmeApiError') return undefined;
    return answered(safeStatus(safeGet(error, 'status')));
  },
});

export function readAcmeHttpFailure(response: HttpFailure, options: HttpFailureReadOptions = {}): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  return answered(safeStatus(safeGet(response, 'status')));
}
`;

const GOOD_INDEX = `import { bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { acmeExtractor, readAcmeHttpFailure } from './extract-acme.ts';

export type { HttpFailureReadOptions as ReadHttpFailureOptions } from '@faultline/classify';
export type { WithClassifiedErrorsOptions } from '@faultline/render';
export const PROVIDER = 'acme';
export const extractor = acmeExtractor;
export const readHttpFailure = readAcmeHttpFailure;
export const withClassifiedErrors = bindWithClassifiedErrors({ extractors: [acmeExtractor] });
`;

/** Acme's API never withholds an answer in a 200: it says so instead of exporting a detector. */
const ACME = {
  name: 'acme',
  sdk: 'acme-sdk',
  lacks: {
    detectBlockedAnswer: 'Acme answers a blocked prompt with a 400, never a withheld 200.',
    inspectResult: 'Acme reports every failure with an error status: no success result to read.',
    readRateLimit: 'Acme sends no rate-limit headers.',
  },
};

function goodManifest(): Record<string, any> {
  return {
    name: '@faultline/extract-acme',
    version: '0.1.0',
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20.19' },
    exports: {
      '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    files: ['dist'],
    scripts: { build: 'tsup', test: 'vitest run', typecheck: 'tsc --noEmit' },
    dependencies: { '@faultline/classify': 'workspace:^', '@faultline/render': 'workspace:^' },
    peerDependencies: { 'acme-sdk': '>=0.9.0' },
    peerDependenciesMeta: { 'acme-sdk': { optional: true } },
    devDependencies: { 'acme-sdk': '1.4.0', 'acme-sdk-v0': 'npm:acme-sdk@0.9.2' },
  };
}

/** Read, not run, by parity: the file must call the option matrix on the bound withClassifiedErrors. */
const OPTION_MATRIX_TEST = (guard?: string) =>
  `import { optionMatrix } from '@faultline/test-fixtures/option-matrix';\nimport { withClassifiedErrors${guard === undefined ? '' : `, ${guard}`} } from './index.ts';\noptionMatrix({ withClassifiedErrors${guard === undefined ? '' : `, stream: { guard: ${guard} }`} } as never);\n`;

/** Read, not run, by parity: the file must run the scenarios through the scenario suite. */
const SCENARIO_SUITE_TEST = `import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';\nscenarioSuite({ provider: 'acme' } as never);\n`;

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeDirectory(root);
});

/** A tiny repository with one healthy provider, 'acme'. */
function healthyRepository(): string {
  const root = temporaryDirectory('faultline-parity-');
  roots.push(root);
  linkWorkspaceModules(root);
  writeJson(join(root, 'providers.json'), { providers: [ACME] });
  const packageDirectory = join(root, 'packages', 'extract-acme');
  writeJson(join(packageDirectory, 'package.json'), goodManifest());
  writeFile(join(packageDirectory, 'src', 'extract-acme.ts'), GOOD_EXTRACTOR);
  writeFile(join(packageDirectory, 'src', 'index.ts'), GOOD_INDEX);
  writeFile(join(packageDirectory, 'src', 'option-matrix.test.ts'), OPTION_MATRIX_TEST());
  writeFile(join(packageDirectory, 'src', 'extract-acme.test.ts'), SCENARIO_SUITE_TEST);
  const scenarios = join(root, 'packages', 'llm-mock', 'scenarios', 'acme');
  for (const reason of FailureReason.options) {
    if (reason === 'local_bug' || reason === 'unknown') continue;
    writeJson(join(scenarios, `${reason.replaceAll('_', '-')}.json`), scenarioFor('acme', reason));
  }
  writeJson(join(scenarios, '_coverage.json'), {
    provider: 'acme',
    cannotHappen: {
      unknown: 'Every Acme failure carries a status or a transport cause that classify reads.',
    },
  });
  return root;
}

async function problemsOf(root: string): Promise<string[]> {
  return allProblems(await runParityChecks(root, { realErrors: false, numRuns: 50 }));
}

function edit(path: string, change: (text: string) => string): void {
  writeFile(path, change(readFileSync(path, 'utf8')));
}

function editManifest(root: string, change: (manifest: Record<string, any>) => void): void {
  const path = join(root, 'packages', 'extract-acme', 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  change(manifest);
  writeJson(path, manifest);
}

// Generous timeouts: `pnpm test` runs every package at once on small CI machines.
describe('parity checks on temporary repositories', { timeout: 60_000 }, () => {
  it('pass on a healthy provider', async () => {
    expect(await problemsOf(healthyRepository())).toEqual([]);
  });

  it('name a provider in the list whose package is missing', async () => {
    const root = healthyRepository();
    rmSync(join(root, 'packages', 'extract-acme'), { recursive: true });
    expect(await problemsOf(root)).toContain("provider 'acme': package packages/extract-acme is missing");
  });

  it('name a provider added to the list without a package or scenarios', async () => {
    const root = healthyRepository();
    writeJson(join(root, 'providers.json'), {
      providers: [ACME, { name: 'zenith', sdk: null }],
    });
    const problems = await problemsOf(root);
    expect(problems).toContain("provider 'zenith': package packages/extract-zenith is missing");
    expect(problems).toContain(
      "provider 'zenith': has no fixture folder packages/llm-mock/scenarios/zenith (its scenarios and _coverage.json)",
    );
    expect(problems.filter((problem) => problem.startsWith("provider 'acme'"))).toEqual([]);
  });

  it('name a stream guard providers.json declares but the package does not export or test', async () => {
    const root = healthyRepository();
    writeJson(join(root, 'providers.json'), {
      providers: [{ ...ACME, streamGuard: 'guardAcmeStream' }],
    });
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme does not export its stream guard guardAcmeStream (providers.json names it)",
    );
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme has no test running guardAcmeStream through the stream matrix (streamMatrix from @faultline/test-fixtures/stream-matrix)",
    );
  });

  it('pass a stream guard that is exported and run through the stream matrix', async () => {
    const root = healthyRepository();
    writeJson(join(root, 'providers.json'), {
      providers: [{ ...ACME, streamGuard: 'guardAcmeStream' }],
    });
    const source = join(root, 'packages', 'extract-acme', 'src');
    edit(join(source, 'index.ts'), (text) =>
      text.replace(
        "import { bindWithClassifiedErrors } from '@faultline/render/toolkit';",
        "import { bindWithClassifiedErrors } from '@faultline/render/toolkit';\nimport { guardStream as guard } from '@faultline/render';\nexport type { GuardStreamOptions } from '@faultline/render';\nexport const guardStream = (stream: AsyncIterable<unknown>) => guard(stream, { provider: 'acme' });\nexport const guardAcmeStream = guardStream;",
      ),
    );
    // Read, not run, by parity: the file must call the harness on the guard.
    writeFile(
      join(source, 'guard-acme-stream.test.ts'),
      "import { streamMatrix } from '@faultline/test-fixtures/stream-matrix';\nimport { guardAcmeStream } from './index.ts';\nstreamMatrix({ guard: guardAcmeStream } as never);\n",
    );
    // The option matrix must run the guard's options too.
    expect(await problemsOf(root)).toEqual([
      "provider 'acme': package packages/extract-acme has no test running withClassifiedErrors and guardAcmeStream through the option matrix (optionMatrix from @faultline/test-fixtures/option-matrix)",
    ]);
    writeFile(join(source, 'option-matrix.test.ts'), OPTION_MATRIX_TEST('guardAcmeStream'));
    expect(await problemsOf(root)).toEqual([]);
  });

  it('name a provider whose scenarios are not run through the scenario suite', async () => {
    const root = healthyRepository();
    const test = join(root, 'packages', 'extract-acme', 'src', 'extract-acme.test.ts');
    edit(test, (text) => text.replace('scenarioSuite({', 'void ({'));
    expect(await problemsOf(root)).toEqual([
      "provider 'acme': package packages/extract-acme has no test running its scenarios through the scenario suite (scenarioSuite from @faultline/test-fixtures/scenario-suite)",
    ]);
    // The adapter's scenario suite runs the scenario suite too.
    edit(test, (text) => text.replace('void ({', 'adapterScenarioSuite({'));
    expect(await problemsOf(root)).toEqual([]);
  });

  it('name a provider whose options are not run through the option matrix', async () => {
    const root = healthyRepository();
    const test = join(root, 'packages', 'extract-acme', 'src', 'option-matrix.test.ts');
    const expected =
      "provider 'acme': package packages/extract-acme has no test running withClassifiedErrors through the option matrix (optionMatrix from @faultline/test-fixtures/option-matrix)";
    // The file imports the harness but never calls it.
    edit(test, (text) => text.replace('optionMatrix({', 'void ({'));
    expect(await problemsOf(root)).toContain(expected);
    rmSync(test);
    expect(await problemsOf(root)).toContain(expected);
    // A fetch-based provider has no SDK majors to run the matrix on.
    writeJson(join(root, 'providers.json'), { providers: [{ name: 'acme', sdk: null }] });
    expect((await problemsOf(root)).filter((problem) => problem.includes('option matrix'))).toEqual([]);
  });

  it('reject a streamGuard that does not name a guard export', () => {
    const root = healthyRepository();
    writeJson(join(root, 'providers.json'), {
      providers: [{ name: 'acme', sdk: 'acme-sdk', streamGuard: 42 }],
    });
    expect(() => readProviderList(root)).toThrow(/"streamGuard" 42/);
  });

  it('name a package or scenario folder left off providers.json', () => {
    const root = healthyRepository();
    writeJson(join(root, 'packages', 'extract-orphan', 'package.json'), {
      name: '@faultline/extract-orphan',
    });
    writeJson(join(root, 'packages', 'llm-mock', 'scenarios', 'orphan', '_coverage.json'), {
      provider: 'orphan',
      cannotHappen: {},
    });
    expect(checkEverythingListed(root)).toEqual([
      'package packages/extract-orphan is not in providers.json: add { "name": "orphan", "sdk": ... } so parity checks it',
      'scenario folder packages/llm-mock/scenarios/orphan belongs to no provider in providers.json',
    ]);
    expect(checkEverythingListed(healthyRepository())).toEqual([]);
  });

  it('name a missing extractor export', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace('export const extractor = acmeExtractor;', ''),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme does not export extractor",
    );
  });

  it('name a missing readHttpFailure', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace('export const readHttpFailure = readAcmeHttpFailure;', ''),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme does not export readHttpFailure({ status, headers, body }) (the SDK extractor's rules for any HTTP client)",
    );
  });

  it('name a readHttpFailure that accepts an unknown option key silently', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'), (text) =>
      text.replace(
        "  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);\n",
        '  void options;\n',
      ),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme readHttpFailure accepted an unknown option key (sdkErrorTyp) silently",
    );
  });

  it('name a missing member of the common adapter set, its options type, or a lack it does not explain', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text
        .replace("export const PROVIDER = 'acme';", '')
        .replace("export type { WithClassifiedErrorsOptions } from '@faultline/render';", ''),
    );
    writeJson(join(root, 'providers.json'), { providers: [{ name: 'acme', sdk: 'acme-sdk' }] });
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme does not export PROVIDER (the provider key: every adapter exports it under this name)",
    );
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme does not export the type WithClassifiedErrorsOptions (the options of withClassifiedErrors)",
    );
    expect(problems).toContain(
      'provider \'acme\': package packages/extract-acme does not export detectBlockedAnswer (blocked-answer detection: every adapter exports it under this name, or says why it has none in providers.json "lacks")',
    );
  });

  it('name a provider-named spelling that is not an alias, and a lack contradicted by an export', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace(
        'export const extractor = acmeExtractor;',
        'export const extractor = { ...acmeExtractor };\nexport { acmeExtractor };\nexport const detectBlockedAnswer = () => undefined;',
      ),
    );
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme exports acmeExtractor and extractor as different values: the provider-named spelling is a deprecated alias of extractor",
    );
    expect(problems).toContain(
      'provider \'acme\': package packages/extract-acme exports detectBlockedAnswer, but providers.json says it lacks it ("Acme answers a blocked prompt with a 400, never a withheld 200."): remove one of the two',
    );
  });

  it('name a read<Provider>HttpFailure that claims another provider or throws on a hostile response', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'), (text) =>
      text.replace(
        "return answered(safeStatus(safeGet(response, 'status')));",
        "return { ...answered((response as { status: number }).status), provider: 'other' };",
      ),
    );
    const problems = await problemsOf(root);
    expect(problems).toContain(
      `provider 'acme': package packages/extract-acme readHttpFailure({ status: 429 }) returned {"provider":"other","message":"Acme error","origin":"http","statusCode":429}: expected provider 'acme' and statusCode 429`,
    );
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme readHttpFailure threw on a hostile response: parity probe: hostile response",
    );
  });

  it('name a missing withClassifiedErrors', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace('export const withClassifiedErrors', 'const withClassifiedErrors'),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme does not export withClassifiedErrors",
    );
  });

  it("name a withClassifiedErrors that is not render's wrapper", async () => {
    // A fresh copy: an edited module at an already imported path would come from the module cache.
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace(
        /export const withClassifiedErrors = [^;]+;/s,
        'export const withClassifiedErrors = async (fn: () => unknown) => fn();',
      ),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme withClassifiedErrors let a thrown value escape without turning it into a FaultlineError",
    );
  });

  it("name 'export *' in the entry", async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'index.ts'), (text) =>
      text.replace(
        "export const PROVIDER = 'acme';",
        "export const PROVIDER = 'acme';\nexport * from './extract-acme.ts';",
      ),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme uses 'export *' in packages/extract-acme/src/index.ts (explicit named exports only)",
    );
  });

  it('name a missing _coverage.json', async () => {
    const root = healthyRepository();
    rmSync(join(root, 'packages', 'llm-mock', 'scenarios', 'acme', '_coverage.json'));
    expect(await problemsOf(root)).toContain(
      "provider 'acme': packages/llm-mock/scenarios/acme/_coverage.json is missing",
    );
  });

  it('name a missing fixture scenario for a reason the provider can produce', async () => {
    const root = healthyRepository();
    rmSync(join(root, 'packages', 'llm-mock', 'scenarios', 'acme', 'rate-limit.json'));
    expect(await problemsOf(root)).toContain(
      "provider 'acme': has no fixture scenario for reason 'rate_limit' in packages/llm-mock/scenarios/acme (add one, or list it in packages/llm-mock/scenarios/acme/_coverage.json cannotHappen with the reason it cannot happen)",
    );
  });

  it("require 'unknown' to be covered or explained, but exempt 'local_bug'", async () => {
    const root = healthyRepository();
    writeJson(join(root, 'packages', 'llm-mock', 'scenarios', 'acme', '_coverage.json'), {
      provider: 'acme',
      cannotHappen: {},
    });
    const problems = await problemsOf(root);
    expect(problems.some((problem) => problem.includes("reason 'unknown'"))).toBe(true);
    expect(problems.some((problem) => problem.includes("reason 'local_bug'"))).toBe(false);
  });

  it('reject a trivial cannotHappen explanation and a contradiction', async () => {
    const root = healthyRepository();
    rmSync(join(root, 'packages', 'llm-mock', 'scenarios', 'acme', 'billing.json'));
    writeJson(join(root, 'packages', 'llm-mock', 'scenarios', 'acme', '_coverage.json'), {
      provider: 'acme',
      cannotHappen: {
        unknown: 'Every Acme failure carries a status or a transport cause that classify reads.',
        billing: 'n/a',
        quota: 'Acme has no quota of any kind whatsoever, only rate limits.',
      },
    });
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': packages/llm-mock/scenarios/acme/_coverage.json gives a trivial explanation for 'billing': \"n/a\" (say why this provider cannot produce it)",
    );
    expect(problems).toContain(
      "provider 'acme': packages/llm-mock/scenarios/acme/_coverage.json says 'quota' cannot happen, but scenario acme/quota expects it",
    );
  });

  it('name an invalid scenario file', async () => {
    const root = healthyRepository();
    writeFile(
      join(root, 'packages', 'llm-mock', 'scenarios', 'acme', 'broken.json'),
      '{ "id": "acme/broken" ',
    );
    const problems = await problemsOf(root);
    expect(
      problems.some((problem) =>
        /^provider 'acme': a scenario in .* is invalid: .*broken\.json/.test(problem),
      ),
    ).toBe(true);
  });

  it('name a peer range that leaves out a devDependency version (aliases included)', async () => {
    const root = healthyRepository();
    editManifest(root, (manifest) => {
      manifest.peerDependencies['acme-sdk'] = '>=1.0.0';
    });
    expect(await problemsOf(root)).toContain(
      'provider \'acme\': package packages/extract-acme peer range acme-sdk@">=1.0.0" does not include its devDependency acme-sdk-v0 (0.9.2)',
    );
    editManifest(root, (manifest) => {
      manifest.peerDependencies['acme-sdk'] = '^0.9.0';
    });
    expect(await problemsOf(root)).toContain(
      'provider \'acme\': package packages/extract-acme peer range acme-sdk@"^0.9.0" does not include its devDependency acme-sdk (1.4.0)',
    );
  });

  it('name a peer that is not optional, missing, or a runtime dependency', async () => {
    const root = healthyRepository();
    editManifest(root, (manifest) => {
      delete manifest.peerDependenciesMeta;
    });
    expect(await problemsOf(root)).toContain(
      'provider \'acme\': package packages/extract-acme does not mark its SDK peer acme-sdk optional (peerDependenciesMeta["acme-sdk"].optional)',
    );
    editManifest(root, (manifest) => {
      delete manifest.peerDependencies;
      manifest.dependencies['acme-sdk'] = '^1.0.0';
    });
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme does not declare its SDK acme-sdk as a peer dependency",
    );
    expect(problems).toContain(
      "provider 'acme': package packages/extract-acme lists its SDK acme-sdk in dependencies: it must be an optional peer, never a runtime dependency",
    );
  });

  it('name an SDK imported at run time', async () => {
    const root = healthyRepository();
    edit(
      join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'),
      (text) => `import type { AcmeError } from 'acme-sdk';\n${text}`,
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme imports its optional SDK acme-sdk at run time in packages/extract-acme/src/extract-acme.ts (duck-type it instead)",
    );
  });

  it('name an extractor that is not total', async () => {
    const root = healthyRepository();
    writeFile(
      join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'),
      `export const acmeExtractor = {
  provider: 'acme',
  extract(error: any) {
    if (error?.name !== 'AcmeApiError') return undefined;
    return { provider: 'acme', message: String(error.message), origin: 'http' };
  },
};
`,
    );
    const problems = await problemsOf(root);
    expect(problems).toContain(
      "provider 'acme': extractor: extract() threw on a Proxy whose traps throw (object): parity: hostile trap",
    );
  });

  it('name an extractor that serialises the raw body', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'), (text) =>
      text.replace(
        "return answered(safeStatus(safeGet(error, 'status')));",
        "return { ...answered(safeStatus(safeGet(error, 'status'))), message: String(safeGet(error, 'body')) };",
      ),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': extractor: JSON.stringify(metadata) contains the raw body planted in a AcmeApiError-style error with a planted raw body",
    );
  });

  it('name an extractor that claims errors thrown by code, or answers for another provider', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'), (text) =>
      text.replace("if (safeGet(error, 'name') !== 'AcmeApiError') return undefined;", ''),
    );
    const problems = await problemsOf(root);
    expect(problems).toContain(
      'provider \'acme\': extractor: extract() claims a real TypeError thrown by code (returned metadata with origin "http"); it must return undefined and leave it to the next extractor',
    );
    expect(problems.some((problem) => problem.includes('claims a real RangeError thrown by code'))).toBe(
      true,
    );
    expect(problems.some((problem) => problem.includes('claims a plain object'))).toBe(true);
  });

  it('name an extractor whose provider key is not its own', async () => {
    const root = healthyRepository();
    edit(join(root, 'packages', 'extract-acme', 'src', 'extract-acme.ts'), (text) =>
      text.replace("provider: 'acme',\n  extract", "provider: 'acme-old',\n  extract"),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'acme': package packages/extract-acme exports extractor with provider \"acme-old\", expected 'acme'",
    );
  });
});

describe('parity checks on a copy of a real provider package', { timeout: 60_000 }, () => {
  const provider = 'groq';
  const source = join(REPOSITORY_ROOT, 'packages', `extract-${provider}`);

  /** packages/extract-groq (src, package.json, its installed node_modules) and its scenarios. */
  function copyOfRealProvider(): string {
    const root = temporaryDirectory('faultline-parity-real-');
    roots.push(root);
    linkWorkspaceModules(root);
    writeJson(join(root, 'providers.json'), { providers: [{ name: provider, sdk: 'groq-sdk' }] });
    const target = join(root, 'packages', `extract-${provider}`);
    cpSync(join(source, 'src'), join(target, 'src'), { recursive: true });
    cpSync(join(source, 'package.json'), join(target, 'package.json'));
    symlinkSync(join(source, 'node_modules'), join(target, 'node_modules'), 'dir');
    cpSync(
      join(REPOSITORY_ROOT, 'packages', 'llm-mock', 'scenarios', provider),
      join(root, 'packages', 'llm-mock', 'scenarios', provider),
      { recursive: true },
    );
    return root;
  }

  it.runIf(existsSync(source))('fails, naming it, when the extractor export is removed', async () => {
    const root = copyOfRealProvider();
    edit(join(root, 'packages', `extract-${provider}`, 'src', 'index.ts'), (text) =>
      text.replace(/^export const extractor\b/m, 'const extractor'),
    );
    expect(await problemsOf(root)).toContain(
      "provider 'groq': package packages/extract-groq does not export extractor",
    );
  });

  it.runIf(existsSync(source))('fails, naming it, when a required fixture is removed', async () => {
    const root = copyOfRealProvider();
    const folder = join(root, 'packages', 'llm-mock', 'scenarios', provider);
    const scenarios = JSON.parse(
      JSON.stringify(
        (await import('@faultline/test-fixtures')).loadScenarios(provider, {
          directory: join(root, 'packages', 'llm-mock', 'scenarios'),
        }),
      ),
    ) as Array<{ id: string; expected: { reason: string } }>;
    const quota = scenarios.filter((scenario) => scenario.expected.reason === 'quota');
    expect(quota.length).toBeGreaterThan(0);
    for (const scenario of quota)
      rmSync(join(root, 'packages', 'llm-mock', 'scenarios', `${scenario.id}.json`));
    expect(existsSync(folder)).toBe(true);
    expect(await problemsOf(root)).toContain(
      "provider 'groq': has no fixture scenario for reason 'quota' in packages/llm-mock/scenarios/groq (add one, or list it in packages/llm-mock/scenarios/groq/_coverage.json cannotHappen with the reason it cannot happen)",
    );
  });
});

describe('installedVersionOf', () => {
  it('reads exact versions, ranges and npm aliases', () => {
    expect(installedVersionOf('1.2.3')).toBe('1.2.3');
    expect(installedVersionOf('^4.10.2')).toBe('4.10.2');
    expect(installedVersionOf('npm:@anthropic-ai/sdk@0.39.0')).toBe('0.39.0');
    expect(installedVersionOf('npm:openai@4.104.0')).toBe('4.104.0');
    expect(installedVersionOf('workspace:*')).toBeUndefined();
  });

  it('passes every real provider manifest or names its problem', () => {
    expect(checkManifest(REPOSITORY_ROOT, { name: 'openai', sdk: 'openai' })).toEqual([]);
  });
});
