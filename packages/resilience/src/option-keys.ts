// The options each entry point of this package accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown (render's `checkOptionKeys`).
import type { FallbackOptions } from './fallback-chain.ts';

export const FALLBACK_OPTION_KEYS = {
  registry: true,
  fallbackOn: true,
  retry: true,
  maxCooldownWaitMs: true,
  maxResetWaitMs: true,
  signal: true,
  idempotent: true,
  fallbackAfterOutput: true,
  operation: true,
  family: true,
  sleep: true,
  onOutcome: true,
} as const satisfies Record<keyof FallbackOptions, true>;
