import type { FailureReason } from '@faultline/classify';

/**
 * DESIGN's "Acting across calls" table: which reasons move a chain on to its next candidate.
 * `true`: by default. `false`: opt-in through `fallbackOn`. Reasons in `NEVER_FALL_BACK` cannot be
 * turned on: no other model can fix a malformed request or our own bug.
 */
export const DEFAULT_FALLBACK_ON: Readonly<Record<FailureReason, boolean>> = Object.freeze({
  quota: true,
  billing: true,
  model_not_found: true,
  permission: true,
  rate_limit: true,
  overloaded: true,
  server_error: true,
  timeout: true,
  connection: true,
  interrupted: true,
  // Opt-in: another provider may accept what this one refused.
  content_policy: false,
  // Opt-in, and only to a candidate that declares a larger context window.
  context_overflow: false,
  // Opt-in, and only to a candidate with another credential: an auth failure on a shared credential
  // fails the same way everywhere.
  auth: false,
  invalid_request: false,
  unsupported_media: false,
  endpoint: false,
  not_found: false,
  local_bug: false,
  unknown: false,
});

/** Reasons that never fall back, whatever `fallbackOn` says. */
export const NEVER_FALL_BACK: ReadonlySet<FailureReason> = new Set<FailureReason>([
  'invalid_request',
  'unsupported_media',
  'local_bug',
]);

/** Whether `reason` moves the chain on, given the caller's overrides. */
export function fallsBack(
  reason: FailureReason,
  overrides: Partial<Record<FailureReason, boolean>> | undefined,
): boolean {
  if (NEVER_FALL_BACK.has(reason)) return false;
  const override = overrides?.[reason];
  return typeof override === 'boolean' ? override : (DEFAULT_FALLBACK_ON[reason] ?? false);
}
