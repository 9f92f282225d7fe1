import { type FailureReason, TAXONOMY } from '@faultline/classify';
import {
  CLASSIFY_ERROR_OPTION_KEYS,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  type OptionKeys,
} from '@faultline/render/toolkit';
import type { LangChainClassifyOptions } from './classify-langchain-error.ts';
import type { GuardLangChainStreamOptions } from './guard-langchain-stream.ts';
import type {
  FaultlineCallbackHandlerOptions,
  InvokeWithFallbacksOptions,
  OnFailedAttemptOptions,
  ShouldFallBackOptions,
} from './policies.ts';

// The options each public function of this package accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown.

export const LANGCHAIN_CLASSIFY_OPTION_KEYS = CLASSIFY_ERROR_OPTION_KEYS satisfies Record<
  keyof LangChainClassifyOptions,
  true
>;

export const ON_FAILED_ATTEMPT_OPTION_KEYS = {
  ...LANGCHAIN_CLASSIFY_OPTION_KEYS,
  stopAfterAttempt: true,
} as const satisfies Record<keyof OnFailedAttemptOptions, true>;

export const SHOULD_FALL_BACK_OPTION_KEYS = {
  ...LANGCHAIN_CLASSIFY_OPTION_KEYS,
  fallbackOn: true,
  fallbackAfterOutput: true,
} as const satisfies Record<keyof ShouldFallBackOptions, true>;

export const INVOKE_WITH_FALLBACKS_OPTION_KEYS = {
  ...SHOULD_FALL_BACK_OPTION_KEYS,
  signal: true,
} as const satisfies Record<keyof InvokeWithFallbacksOptions, true>;

export const CALLBACK_HANDLER_OPTION_KEYS = {
  ...LANGCHAIN_CLASSIFY_OPTION_KEYS,
  onFailure: true,
  keep: true,
} as const satisfies Record<keyof FaultlineCallbackHandlerOptions, true>;

const { readChunk: _readChunk, requireTerminal: _requireTerminal, ...guardKeys } = GUARD_STREAM_OPTION_KEYS;
export const GUARD_LANGCHAIN_STREAM_OPTION_KEYS = guardKeys satisfies Record<
  keyof GuardLangChainStreamOptions,
  true
>;

export const LANGCHAIN_EXTRACTOR_OPTION_KEYS = { provider: true } as const;

/** The reasons `fallbackOn` may name: the rows of the taxonomy. */
const FALLBACK_ON_KEYS: OptionKeys = Object.fromEntries(
  Object.keys(TAXONOMY).map((reason) => [reason, true as const]),
) satisfies Partial<Record<FailureReason, true>>;

/** `shouldFallBack`'s keys (or `known`), and the reasons of its `fallbackOn` when one is given. */
export function checkShouldFallBackKeys(
  scope: string,
  options: unknown,
  known: OptionKeys = SHOULD_FALL_BACK_OPTION_KEYS,
): void {
  checkOptionKeys(scope, options, known);
  const fallbackOn = (options as { fallbackOn?: unknown } | null | undefined)?.fallbackOn;
  checkOptionKeys(scope, fallbackOn, FALLBACK_ON_KEYS, 'fallbackOn');
}
