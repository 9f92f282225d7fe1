import { checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import type { FaultlineAiSdkOptions } from './middleware.ts';

/** The keys of `FaultlineAiSdkOptions`: a key added to the type and not here fails the type check. */
const AI_SDK_OPTION_KEYS = {
  retry: true,
  idempotent: true,
  deadlineMs: true,
  idleTimeoutMs: true,
  provider: true,
  override: true,
  onError: true,
} as const satisfies Record<keyof FaultlineAiSdkOptions, true>;

/** An unknown key of `FaultlineAiSdkOptions` (or of its `retry`) is a TypeError naming it at the call. */
export function checkAiSdkOptions(scope: string, options: unknown): void {
  checkOptionKeys(scope, options, AI_SDK_OPTION_KEYS);
  checkOptionKeys(
    scope,
    (options as { retry?: unknown } | null | undefined)?.retry,
    RETRY_OPTION_KEYS,
    'retry',
  );
}
