// The repository's one provider list. Read from the repository in the workspace (tsx, vitest) and
// inlined by tsup into the published build (esbuild bundles an imported JSON file), so the
// installed CLI carries the list it was built with and never reads a path outside its package.
import list from '../../../../providers.json' with { type: 'json' };

/** What the scenario driver's loopback server speaks to a provider's client. */
export type LoopbackProtocol = 'http1' | 'h2c';

/** One entry of providers.json. */
export interface ProviderEntry {
  /** The provider key: `@faultline/extract-<name>`, the scenario folder, the driver module's name. */
  readonly name: string;
  /** The npm name of the SDK the extractor reads, or null for a fetch-based provider. */
  readonly sdk: string | null;
  /** The export name of the provider's stream guard, when it streams. */
  readonly streamGuard?: string | undefined;
  /** What its client speaks to the loopback server (default http1). */
  readonly protocol: LoopbackProtocol;
}

function entries(): ProviderEntry[] {
  const providers = (list as { providers?: unknown }).providers;
  if (!Array.isArray(providers)) throw new Error('faultline: providers.json has no "providers" array');
  return providers.map((raw: Record<string, unknown>) => ({
    name: String(raw.name),
    sdk: typeof raw.sdk === 'string' ? raw.sdk : null,
    ...(typeof raw.streamGuard === 'string' ? { streamGuard: raw.streamGuard } : {}),
    protocol: raw.protocol === 'h2c' ? 'h2c' : 'http1',
  }));
}

/** Every provider, in providers.json's order (the demo's order). */
export const PROVIDERS: readonly ProviderEntry[] = Object.freeze(entries());

/** The provider keys, in providers.json's order. */
export const PROVIDER_NAMES: readonly string[] = Object.freeze(PROVIDERS.map((entry) => entry.name));

export function providerEntry(name: string): ProviderEntry | undefined {
  return PROVIDERS.find((entry) => entry.name === name);
}

/** The provider package of `name`: `@faultline/extract-<name>`. */
export function adapterPackageOf(name: string): string {
  return `@faultline/extract-${name}`;
}
