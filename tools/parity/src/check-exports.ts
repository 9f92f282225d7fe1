import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Extractor } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import { checkCommonExports, readEntry } from './check-common-exports.ts';
import { readManifest, sourceCondition } from './check-manifest.ts';
import { about, type ProviderEntry, packagePathFor, pascalCase } from './provider-list.ts';

export type ProviderModule = Record<string, unknown>;

/** The file the package's `source` export condition points at (tests and parity read `src`). */
export function entryFileFor(repositoryRoot: string, provider: ProviderEntry): string {
  const manifest = readManifest(repositoryRoot, provider);
  const root = (manifest?.exports as Record<string, Record<string, unknown>> | undefined)?.['.'];
  const declared = root?.[sourceCondition(repositoryRoot)];
  const source = typeof declared === 'string' ? declared : './src/index.ts';
  return join(repositoryRoot, packagePathFor(provider.name), source);
}

/** Imports the package's entry by path, so that a provider added to the list is picked up without wiring. */
export async function loadProviderModule(
  repositoryRoot: string,
  provider: ProviderEntry,
): Promise<{ module?: ProviderModule; problem?: string }> {
  const entry = entryFileFor(repositoryRoot, provider);
  const relative = entry.slice(repositoryRoot.length + 1);
  if (!existsSync(join(repositoryRoot, packagePathFor(provider.name)))) return {};
  if (!existsSync(entry))
    return { problem: `${about(provider.name)} package ${packagePathFor(provider.name)} has no ${relative}` };
  try {
    return { module: (await import(pathToFileURL(entry).href)) as ProviderModule };
  } catch (error) {
    return {
      problem: `${about(provider.name)} package ${packagePathFor(provider.name)} fails to load ${relative}: ${(error as Error)?.message ?? String(error)}`,
    };
  }
}

/** The module's extractor when it is exported as `extractor` and looks like one. */
export function extractorOf(
  module: ProviderModule | undefined,
  _provider: ProviderEntry,
): Extractor | undefined {
  const candidate = module?.extractor as Extractor | undefined;
  if (candidate === null || typeof candidate !== 'object' || typeof candidate.extract !== 'function')
    return undefined;
  return candidate;
}

/**
 * The module's deprecated `read<Provider>HttpFailure` export name, when it has one: compared without
 * case so an acronym keeps its spelling (`readOpenAIHttpFailure` for `openai`).
 */
export function httpFailureReaderName(module: ProviderModule, provider: ProviderEntry): string | undefined {
  const wanted = `read${pascalCase(provider.name)}HttpFailure`.toLowerCase();
  return Object.keys(module).find((name) => name.toLowerCase() === wanted);
}

/** Problems with the provider's `readHttpFailure`: the extractor's body rules, usable from any transport. */
function checkHttpFailureReader(module: ProviderModule, provider: ProviderEntry, prefix: string): string[] {
  const name = 'readHttpFailure';
  if (module[name] === undefined) {
    return [
      `${prefix} does not export readHttpFailure({ status, headers, body }) (the SDK extractor's rules for any HTTP client)`,
    ];
  }
  const reader = module[name];
  if (typeof reader !== 'function') return [`${prefix} exports ${name}, but it is not a function`];
  const read = reader as (response: unknown, options?: object) => unknown;
  const problems: string[] = [];
  try {
    const metadata = read({ status: 429, headers: { 'retry-after': '7' }, body: '{}' }, { now: 0 }) as
      | { provider?: unknown; statusCode?: unknown }
      | undefined;
    if (metadata?.provider !== provider.name || metadata?.statusCode !== 429) {
      problems.push(
        `${prefix} ${name}({ status: 429 }) returned ${JSON.stringify(metadata)}: expected provider '${provider.name}' and statusCode 429`,
      );
    }
  } catch (error) {
    problems.push(`${prefix} ${name} threw on a plain 429: ${(error as Error)?.message ?? String(error)}`);
  }
  // Total: a response whose every read throws still gets metadata.
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('parity probe: hostile response');
      },
    },
  );
  // An unknown option key is a programming error: a TypeError naming the key and the nearest valid
  // one, at the call (the body and headers above are data and never make it throw).
  try {
    read({ status: 429, body: '{}' }, { now: 0, sdkErrorTyp: 'APICallError' });
    problems.push(`${prefix} ${name} accepted an unknown option key (sdkErrorTyp) silently`);
  } catch (error) {
    const message = error instanceof TypeError ? error.message : '';
    if (!message.includes('"sdkErrorTyp"') || !message.includes('"sdkErrorType"')) {
      problems.push(
        `${prefix} ${name} threw on an unknown option key without a TypeError naming it and the nearest valid one ("sdkErrorType"): ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
  for (const [what, response] of [
    ['a hostile response', hostile],
    ['null', null],
    ['a body that is not JSON', { status: 502, body: '<html>' }],
  ] as const) {
    try {
      read(response);
    } catch (error) {
      problems.push(`${prefix} ${name} threw on ${what}: ${(error as Error)?.message ?? String(error)}`);
    }
  }
  return problems;
}

/**
 * `extractor` (an Extractor whose `provider` is the list's key), `readHttpFailure` (total,
 * claiming its provider), and a bound `withClassifiedErrors` that turns whatever `fn` throws into a
 * FaultlineError whose `cause` is the thrown value; explicit named exports only (no `export *`);
 * and the rest of the common adapter set (`checkCommonExports`).
 */
export async function checkExports(
  repositoryRoot: string,
  provider: ProviderEntry,
  loaded: { module?: ProviderModule; problem?: string },
): Promise<string[]> {
  if (loaded.problem !== undefined) return [loaded.problem];
  const module = loaded.module;
  if (module === undefined) return [];
  const where = `package ${packagePathFor(provider.name)}`;
  const prefix = `${about(provider.name)} ${where}`;
  const problems: string[] = [];
  const exportName = 'extractor';
  const candidate = module[exportName] as { provider?: unknown; extract?: unknown } | undefined;
  if (candidate === undefined) {
    problems.push(`${prefix} does not export ${exportName}`);
  } else if (candidate === null || typeof candidate !== 'object' || typeof candidate.extract !== 'function') {
    problems.push(`${prefix} exports ${exportName}, but it is not an Extractor (an object with extract())`);
  } else if (candidate.provider !== provider.name) {
    problems.push(
      `${prefix} exports ${exportName} with provider ${JSON.stringify(candidate.provider)}, expected '${provider.name}'`,
    );
  }
  problems.push(...checkHttpFailureReader(module, provider, prefix));
  const bound = module.withClassifiedErrors;
  if (bound === undefined) {
    problems.push(`${prefix} does not export withClassifiedErrors`);
  } else if (typeof bound !== 'function') {
    problems.push(`${prefix} exports withClassifiedErrors, but it is not a function`);
  } else {
    const probe = new Error('parity probe: thrown inside withClassifiedErrors');
    let caught: unknown;
    let resolved = false;
    try {
      await (bound as (fn: () => Promise<never>, options?: object) => Promise<unknown>)(
        async () => {
          throw probe;
        },
        { retry: false },
      );
      resolved = true;
    } catch (error) {
      caught = error;
    }
    if (resolved) problems.push(`${prefix} withClassifiedErrors resolved although fn threw`);
    else if (!FaultlineError.isInstance(caught)) {
      problems.push(
        `${prefix} withClassifiedErrors let a thrown value escape without turning it into a FaultlineError`,
      );
    } else if ((caught as { cause?: unknown }).cause !== probe) {
      problems.push(
        `${prefix} withClassifiedErrors dropped the thrown value (FaultlineError.cause must be it)`,
      );
    }
  }
  const entry = entryFileFor(repositoryRoot, provider);
  problems.push(...checkCommonExports(module, provider, readEntry(entry), prefix));
  try {
    if (/^\s*export\s+\*/m.test(readFileSync(entry, 'utf8'))) {
      problems.push(
        `${prefix} uses 'export *' in ${entry.slice(repositoryRoot.length + 1)} (explicit named exports only)`,
      );
    }
  } catch {
    // loadProviderModule reported it.
  }
  return problems;
}
