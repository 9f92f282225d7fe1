import {
  CLASSIFY_ERROR_OPTION_KEYS,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
} from '@faultline/render/toolkit';
import type { AiSdkClassifyOptions, GuardAiSdkStreamOptions } from './classify-ai-sdk-error.ts';
import type { AiSdkExtractorOptions } from './extract-ai-sdk.ts';
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

/** The keys of `AiSdkClassifyOptions`: render's `classifyError` options, the provider a hint. */
export const AI_SDK_CLASSIFY_OPTION_KEYS = CLASSIFY_ERROR_OPTION_KEYS satisfies Record<
  keyof AiSdkClassifyOptions,
  true
>;

const { readChunk: _readChunk, requireTerminal: _requireTerminal, ...guardKeys } = GUARD_STREAM_OPTION_KEYS;
/** The keys of `GuardAiSdkStreamOptions`: render's guard options but the two the guard decides. */
export const GUARD_AI_SDK_STREAM_OPTION_KEYS = guardKeys satisfies Record<
  keyof GuardAiSdkStreamOptions,
  true
>;

export const AI_SDK_EXTRACTOR_OPTION_KEYS = { provider: true } as const satisfies Record<
  keyof AiSdkExtractorOptions,
  true
>;
