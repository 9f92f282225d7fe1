import { CLASSIFY_ERROR_OPTION_KEYS, checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import type { FaultlineErrorProcessorOptions, MastraClassifyOptions } from './error-processor.ts';
import type { FaultlineMastraOptions, FaultlineModelEntry } from './with-faultline.ts';

// The options each public function of this package accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown.

const MASTRA_OPTION_KEYS = {
  retry: true,
  idempotent: true,
  idleTimeoutMs: true,
  provider: true,
  override: true,
} as const satisfies Record<keyof FaultlineMastraOptions, true>;

/** The keys of a fallback entry: Mastra's `ModelWithRetries`. */
export const MODEL_ENTRY_KEYS = {
  model: true,
  id: true,
  enabled: true,
  modelSettings: true,
  providerOptions: true,
  headers: true,
  maxRetries: true,
} as const satisfies Record<keyof FaultlineModelEntry, true>;

export const MASTRA_CLASSIFY_OPTION_KEYS = CLASSIFY_ERROR_OPTION_KEYS satisfies Record<
  keyof MastraClassifyOptions,
  true
>;

export const ERROR_PROCESSOR_OPTION_KEYS = {
  retry: true,
  idempotent: true,
  provider: true,
  override: true,
} as const satisfies Record<keyof FaultlineErrorProcessorOptions, true>;

/** An unknown key of the options (or of their `retry`) is a TypeError naming it at the call. */
export function checkMastraOptions(
  scope: string,
  options: unknown,
  known: Record<string, true> = MASTRA_OPTION_KEYS,
): void {
  checkOptionKeys(scope, options, known);
  checkOptionKeys(
    scope,
    (options as { retry?: unknown } | null | undefined)?.retry,
    RETRY_OPTION_KEYS,
    'retry',
  );
}
