import { CLASSIFY_ERROR_OPTION_KEYS } from '@faultline/render/toolkit';
import type { AgentsClassifyOptions } from './classify-agents-error.ts';
import type { FaultlineRetryOptions } from './retry.ts';

// The options each public function of this package accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown.

export const AGENTS_CLASSIFY_OPTION_KEYS = CLASSIFY_ERROR_OPTION_KEYS satisfies Record<
  keyof AgentsClassifyOptions,
  true
>;

// `streaming` and `delivered` come from the runner (the failed request's `stream`), not the caller.
const { streaming: _streaming, delivered: _delivered, ...CALL_KEYS } = AGENTS_CLASSIFY_OPTION_KEYS;

export const RETRY_OPTION_KEYS = {
  ...CALL_KEYS,
  maxRetryAfterSeconds: true,
} as const satisfies Record<keyof FaultlineRetryOptions, true>;
