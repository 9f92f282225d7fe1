// The options each of render's public entry points accepts, one table per options type. Each table
// `satisfies Record<keyof Options, true>`: an option added to a type and not to its table fails the
// type check, so a documented option is never refused as unknown (see `checkOptionKeys`).
import type { ClassifyErrorOptions } from './classify-error.ts';
import type { DisclosureOptions, PanelOptions, ToolResultOptions } from './format.ts';
import type { GuardStreamOptions } from './guard-stream.ts';
import type { ProblemDetailsOptions } from './http.ts';
import { checkOptionKeys, type OptionKeys } from './invalid-option.ts';
import type { RetryOptions, WithClassifiedErrorsOptions } from './with-classified-errors.ts';

export const CLASSIFY_ERROR_OPTION_KEYS = {
  extractors: true,
  signal: true,
  model: true,
  provider: true,
  operation: true,
  family: true,
  override: true,
  idempotent: true,
  now: true,
  streaming: true,
  delivered: true,
} as const satisfies Record<keyof ClassifyErrorOptions, true>;

const { streaming: _streaming, delivered: _delivered, ...CALL_CONTEXT_KEYS } = CLASSIFY_ERROR_OPTION_KEYS;

export const WITH_CLASSIFIED_ERRORS_OPTION_KEYS = {
  ...CALL_CONTEXT_KEYS,
  retry: true,
  deadlineMs: true,
  inspectResult: true,
  detectBlockedAnswer: true,
} as const satisfies Record<keyof WithClassifiedErrorsOptions, true>;

export const RETRY_OPTION_KEYS = {
  maxAttempts: true,
  maxElapsedMs: true,
  baseDelayMs: true,
  maxDelayMs: true,
  maxRetryAfterSeconds: true,
  onRetry: true,
  random: true,
  now: true,
} as const satisfies Record<keyof RetryOptions, true>;

export const GUARD_STREAM_OPTION_KEYS = {
  ...CALL_CONTEXT_KEYS,
  idleTimeoutMs: true,
  readChunk: true,
  requireTerminal: true,
  detectBlockedAnswer: true,
  onAbandon: true,
} as const satisfies Record<keyof GuardStreamOptions<unknown>, true>;

export const DISCLOSURE_OPTION_KEYS = { disclosure: true } as const satisfies Record<
  keyof DisclosureOptions,
  true
>;

export const PANEL_OPTION_KEYS = {
  disclosure: true,
  color: true,
  width: true,
  explain: true,
} as const satisfies Record<keyof PanelOptions, true>;

export const TOOL_RESULT_OPTION_KEYS = { disclosure: true, toolUseId: true } as const satisfies Record<
  keyof ToolResultOptions,
  true
>;

export const PROBLEM_DETAILS_OPTION_KEYS = {
  instance: true,
  typePrefix: true,
  disclosure: true,
} as const satisfies Record<keyof ProblemDetailsOptions, true>;

/** `withClassifiedErrors`' keys, and those of its `retry` object when one is given. */
export function checkWithClassifiedErrorsKeys(options: unknown): void {
  checkOptionKeys('withClassifiedErrors', options, WITH_CLASSIFIED_ERRORS_OPTION_KEYS);
  const retry = (options as { retry?: unknown } | null | undefined)?.retry;
  checkOptionKeys('withClassifiedErrors', retry, RETRY_OPTION_KEYS as OptionKeys, 'retry');
}
