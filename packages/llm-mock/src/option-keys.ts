import { checkOptionKeys } from '@faultline/render/toolkit';
import type { BaseUrlOptions, LoopbackServerOptions } from './loopback-server.ts';
import type { MockProviderOptions } from './mock-provider.ts';
import type { ScenarioLoadOptions } from './scenario.ts';
import type { VerdictOptions } from './verdict.ts';

// The options each public entry point of the mock accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown. An unknown key is a TypeError at
// the call (naming the key and the nearest valid one): a misspelt option would otherwise leave a
// test running against a mock that does something else than it says.

export const LOOPBACK_SERVER_OPTION_KEYS = {
  protocol: true,
  cors: true,
} as const satisfies Record<keyof LoopbackServerOptions, true>;

export const BASE_URL_OPTION_KEYS = { pathPrefix: true } as const satisfies Record<
  keyof BaseUrlOptions,
  true
>;

export const SCENARIO_LOAD_OPTION_KEYS = { directory: true } as const satisfies Record<
  keyof ScenarioLoadOptions,
  true
>;

export const MOCK_PROVIDER_OPTION_KEYS = {
  providers: true,
  port: true,
  reply: true,
  scripts: true,
  catalogue: true,
  onRequest: true,
} as const satisfies Record<keyof MockProviderOptions, true>;

export const VERDICT_OPTION_KEYS = {
  minAttempts: true,
  maxWaitSeconds: true,
  stallLimitMs: true,
  toleranceMs: true,
  ignoredFraction: true,
  allow: true,
  now: true,
} as const satisfies Record<keyof VerdictOptions, true>;

/** `startMockProvider`'s keys, and those of its `catalogue` (where scenarios are read from). */
export function checkMockProviderKeys(options: unknown): void {
  checkOptionKeys('startMockProvider', options, MOCK_PROVIDER_OPTION_KEYS);
  const catalogue = (options as { catalogue?: unknown } | null | undefined)?.catalogue;
  checkOptionKeys('startMockProvider', catalogue, SCENARIO_LOAD_OPTION_KEYS, 'catalogue');
}
