import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this copy of parity lives in (tools/parity/src → the root). */
export const REPOSITORY_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The one provider list, at the repository root; `pnpm new-provider` appends to it. */
export const PROVIDER_LIST_FILE = 'providers.json';

/**
 * One known provider: its key, the npm name of the SDK its extractor reads (null: fetch-based),
 * and the export name of its stream guard when it has one (`guardOpenAIStream`).
 */
export interface ProviderEntry {
  readonly name: string;
  readonly sdk: string | null;
  readonly streamGuard?: string | undefined;
  /** What its client speaks to the loopback server: http1 (the default) or h2c. */
  readonly protocol?: 'http1' | 'h2c' | undefined;
  /**
   * The optional ideas of the common adapter set (see `ADAPTER_IDEAS`) the adapter lacks, each with
   * why: `{ "detectBlockedAnswer": "the API never withholds an answer in a 200" }`.
   */
  readonly lacks?: Readonly<Record<string, string>> | undefined;
}

const STREAM_GUARD_NAME = /^guard[A-Z][A-Za-z0-9]*Stream$/;

export interface ProviderList {
  readonly $comment?: string;
  readonly providers: readonly ProviderEntry[];
}

const PROVIDER_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** True for a provider key that can name a package and a scenario folder (`google-genai`). */
export function isProviderName(name: string): boolean {
  return PROVIDER_NAME.test(name);
}

export function providerListPath(repositoryRoot: string): string {
  return join(repositoryRoot, PROVIDER_LIST_FILE);
}

/** Reads and validates `providers.json`; throws an error naming the file and the bad entry. */
export function readProviderList(repositoryRoot: string): ProviderList {
  const path = providerListPath(repositoryRoot);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`parity: cannot read the provider list ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const providers = (data as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(providers)) throw new Error(`parity: ${path} has no "providers" array`);
  const seen = new Set<string>();
  const entries: ProviderEntry[] = [];
  for (const [index, entry] of providers.entries()) {
    const name = (entry as { name?: unknown } | null)?.name;
    const sdk = (entry as { sdk?: unknown } | null)?.sdk;
    if (typeof name !== 'string' || !isProviderName(name)) {
      throw new Error(
        `parity: ${path} providers[${index}] needs a kebab-case "name", got ${JSON.stringify(name)}`,
      );
    }
    if (sdk !== null && (typeof sdk !== 'string' || sdk.length === 0)) {
      throw new Error(`parity: ${path} provider '${name}' needs "sdk": "<npm name>" or null (fetch-based)`);
    }
    if (seen.has(name)) throw new Error(`parity: ${path} lists provider '${name}' twice`);
    const streamGuard = (entry as { streamGuard?: unknown } | null)?.streamGuard;
    if (
      streamGuard !== undefined &&
      (typeof streamGuard !== 'string' || !STREAM_GUARD_NAME.test(streamGuard))
    ) {
      throw new Error(
        `parity: ${path} provider '${name}' has "streamGuard" ${JSON.stringify(streamGuard)}; it names the guard's export, guard<Name>Stream`,
      );
    }
    const protocol = (entry as { protocol?: unknown } | null)?.protocol;
    if (protocol !== undefined && protocol !== 'http1' && protocol !== 'h2c') {
      throw new Error(
        `parity: ${path} provider '${name}' has "protocol" ${JSON.stringify(protocol)}; it is "http1" (the default) or "h2c"`,
      );
    }
    const lacks = (entry as { lacks?: unknown } | null)?.lacks;
    if (
      lacks !== undefined &&
      (lacks === null ||
        typeof lacks !== 'object' ||
        Array.isArray(lacks) ||
        Object.values(lacks).some((why) => typeof why !== 'string' || why.trim().length < 10))
    ) {
      throw new Error(
        `parity: ${path} provider '${name}' has "lacks" ${JSON.stringify(lacks)}; it maps each export the adapter lacks to why (a sentence)`,
      );
    }
    seen.add(name);
    entries.push({
      name,
      sdk,
      ...(streamGuard === undefined ? {} : { streamGuard }),
      ...(protocol === undefined ? {} : { protocol }),
      ...(lacks === undefined ? {} : { lacks: lacks as Record<string, string> }),
    });
  }
  return { ...(data as object), providers: entries };
}

/** `google-genai` → `googleGenai`. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** `google-genai` → `GoogleGenai`. */
export function pascalCase(name: string): string {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** The provider-named spelling of an adapter's `extractor`, kept as a deprecated alias: `groqExtractor`. */
export function extractorExportName(name: string): string {
  return `${camelCase(name)}Extractor`;
}

/** `packages/extract-<name>`, relative to the repository root. */
export function packagePathFor(name: string): string {
  return `packages/extract-${name}`;
}

/** `packages/llm-mock/scenarios/<name>`, relative to the repository root. */
export function scenarioPathFor(name: string): string {
  return `packages/llm-mock/scenarios/${name}`;
}

/** The problem prefix every parity message starts with. */
export function about(name: string): string {
  return `provider '${name}':`;
}
