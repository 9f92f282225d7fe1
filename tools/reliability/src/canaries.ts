import { DRIVEN_PROVIDERS, loadDriver, PROMPT } from '@faultline/scenario-driver';

/**
 * The canary credentials each provider's driver sends (its driver module's `credentials`, one
 * provider per providers.json entry), and the prompt it sends. None of them may appear in
 * anything faultline writes.
 */
export const CANARY_CREDENTIALS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  await Promise.all(
    DRIVEN_PROVIDERS.map(async (provider) => [provider, (await loadDriver(provider)).credentials] as const),
  ),
);

/** The `index`th credential `provider`'s driver sends (0: its API key or access key id). */
export function canaryKey(provider: string, index = 0): string {
  const credential = CANARY_CREDENTIALS[provider]?.[index];
  if (credential === undefined)
    throw new Error(`reliability: ${provider}'s driver sends no credential ${index}`);
  return credential;
}

export const CANARY_PROMPT = PROMPT;

/** A credential's two halves: a key cut in half still leaks. */
function halves(credential: string): string[] {
  const middle = Math.floor(credential.length / 2);
  return [credential.slice(0, middle), credential.slice(middle)];
}

/** What must never be found, with fragments of each. */
export const FORBIDDEN_FRAGMENTS: readonly string[] = [
  ...new Set([
    'faultlineCanary',
    'FaultlineCanary',
    'IOSFODNN7',
    'K7MDENG',
    'bPxRfiCY',
    ...Object.values(CANARY_CREDENTIALS).flatMap((credentials) => credentials.flatMap(halves)),
    // The prompt (and a distinctive fragment of it).
    PROMPT,
    'demo prompt',
  ]),
];

/** The fragments found in `text`. */
export function leaksIn(text: string): string[] {
  return FORBIDDEN_FRAGMENTS.filter((fragment) => text.includes(fragment));
}
