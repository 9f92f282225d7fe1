import { readFileSync } from 'node:fs';
import type { ProviderModule } from './check-exports.ts';
import { type ProviderEntry, pascalCase } from './provider-list.ts';

/**
 * One idea every adapter shares, under one name in every package (as unstorage's drivers share
 * `defineDriver`'s shape): its runtime export, the options type that goes with it when the function
 * takes options, and whether an adapter may lack it. `streams`: required when providers.json names
 * a stream guard for the provider. `mayLack`: required unless providers.json's `lacks` says why the
 * provider has none (its API has no such thing), so an adapter never invents one.
 */
export interface AdapterIdea {
  readonly idea: string;
  readonly value: string;
  readonly optionsType?: string;
  readonly required: 'always' | 'streams' | 'mayLack';
  /** The provider-named spelling it had before, kept as a deprecated alias of the same value. */
  readonly deprecatedName?: (provider: ProviderEntry) => string | undefined;
}

const camel = (name: string): string => pascalCase(name).charAt(0).toLowerCase() + pascalCase(name).slice(1);

/** The common adapter set. `detectBlockedAnswer` takes no options, so it has no options type. */
export const ADAPTER_IDEAS: readonly AdapterIdea[] = [
  {
    idea: 'the provider key',
    value: 'PROVIDER',
    required: 'always',
    deprecatedName: (provider) => `${provider.name.replaceAll('-', '_').toUpperCase()}_PROVIDER`,
  },
  {
    idea: 'the extractor',
    value: 'extractor',
    required: 'always',
    deprecatedName: (provider) => `${camel(provider.name)}Extractor`,
  },
  {
    idea: 'the bound wrapper',
    value: 'withClassifiedErrors',
    optionsType: 'WithClassifiedErrorsOptions',
    required: 'always',
  },
  {
    idea: 'the HTTP failure reader',
    value: 'readHttpFailure',
    optionsType: 'ReadHttpFailureOptions',
    required: 'always',
  },
  {
    idea: 'the stream guard',
    value: 'guardStream',
    optionsType: 'GuardStreamOptions',
    required: 'streams',
    deprecatedName: (provider) => provider.streamGuard,
  },
  { idea: 'blocked-answer detection', value: 'detectBlockedAnswer', required: 'mayLack' },
  {
    idea: 'the success-result check withClassifiedErrors presets',
    value: 'inspectResult',
    required: 'mayLack',
  },
  { idea: 'the rate-limit budget reader', value: 'readRateLimit', required: 'mayLack' },
];

/** The entry's source text, or '' when it cannot be read (loading it reports that). */
export function readEntry(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The type names an entry exports (`export type X`, `export interface X`, and `X` or `Y` of
 * `A as Y` inside an `export { … }` or `export type { … }` list), read from its text: a type has
 * no run-time trace to import.
 */
export function exportedTypeNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const match of source.matchAll(/^export\s+(?:declare\s+)?(?:type|interface)\s+([A-Za-z_$][\w$]*)/gm))
    names.add(match[1] as string);
  for (const match of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const specifier of (match[1] as string).split(',')) {
      const words = specifier
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      const name = (words[1] ?? words[0] ?? '').trim();
      if (name.length > 0) names.add(name);
    }
  }
  return names;
}

function isRequired(idea: AdapterIdea, provider: ProviderEntry): boolean {
  if (idea.required === 'always') return true;
  if (idea.required === 'streams') return provider.streamGuard !== undefined;
  return provider.lacks?.[idea.value] === undefined;
}

/**
 * The common adapter set: each idea under its one name (with its options type), `PROVIDER` equal
 * to the list's key, the provider-named spellings (when still exported) aliases of the same value,
 * and nothing exported that providers.json says the adapter lacks.
 */
export function checkCommonExports(
  module: ProviderModule,
  provider: ProviderEntry,
  source: string,
  prefix: string,
): string[] {
  const problems: string[] = [];
  const types = exportedTypeNames(source);
  for (const idea of ADAPTER_IDEAS) {
    const present = module[idea.value] !== undefined;
    const lacks = provider.lacks?.[idea.value];
    if (lacks !== undefined && present) {
      problems.push(
        `${prefix} exports ${idea.value}, but providers.json says it lacks it ("${lacks}"): remove one of the two`,
      );
    }
    if (!isRequired(idea, provider)) continue;
    // The bound wrapper, the extractor and the reader have checks of their own in checkExports.
    if (!present && (idea.required !== 'always' || idea.value === 'PROVIDER')) {
      problems.push(
        `${prefix} does not export ${idea.value} (${idea.idea}: every adapter exports it under this name${idea.required === 'mayLack' ? `, or says why it has none in providers.json "lacks"` : ''})`,
      );
    }
    if (present && idea.required !== 'always' && typeof module[idea.value] !== 'function')
      problems.push(`${prefix} exports ${idea.value}, but it is not a function`);
    if (idea.optionsType !== undefined && !types.has(idea.optionsType)) {
      problems.push(`${prefix} does not export the type ${idea.optionsType} (the options of ${idea.value})`);
    }
    const old = idea.deprecatedName?.(provider);
    if (
      old !== undefined &&
      old !== idea.value &&
      module[old] !== undefined &&
      module[old] !== module[idea.value]
    ) {
      problems.push(
        `${prefix} exports ${old} and ${idea.value} as different values: the provider-named spelling is a deprecated alias of ${idea.value}`,
      );
    }
  }
  if (module.PROVIDER !== undefined && module.PROVIDER !== provider.name) {
    problems.push(
      `${prefix} exports PROVIDER ${JSON.stringify(module.PROVIDER)}, expected '${provider.name}'`,
    );
  }
  const reader = `read${pascalCase(provider.name)}HttpFailure`.toLowerCase();
  const readerAlias = Object.keys(module).find((name) => name.toLowerCase() === reader);
  if (readerAlias !== undefined && module[readerAlias] !== module.readHttpFailure) {
    problems.push(
      `${prefix} exports ${readerAlias} and readHttpFailure as different values: the provider-named spelling is a deprecated alias of readHttpFailure`,
    );
  }
  return problems;
}

/** One row of the per-adapter table: each idea's export, or why the adapter lacks it. */
export function adapterRow(
  module: ProviderModule | undefined,
  provider: ProviderEntry,
): Record<string, string> {
  const row: Record<string, string> = {};
  for (const idea of ADAPTER_IDEAS) {
    const lacks = provider.lacks?.[idea.value];
    row[idea.value] =
      module?.[idea.value] !== undefined
        ? 'yes'
        : lacks !== undefined
          ? `lacks: ${lacks}`
          : idea.required === 'streams' && provider.streamGuard === undefined
            ? 'lacks: no stream guard in providers.json'
            : 'missing';
  }
  return row;
}
