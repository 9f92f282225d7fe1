import type { FailureReason } from '@faultline/classify';
import type { ErrorReport } from './report.ts';
import { scrubIdentifiers } from './secrets.ts';

/**
 * How much of the provider's own words an output carries (DESIGN "What a report says, and to
 * whom"):
 * - `safe`: a fixed message per reason, no provider text. For the app's own clients
 *   (problem+json, the wire form).
 * - `scrubbed`: the provider's words without the identifiers of the account behind the call
 *   (organization, project and account ids, emails, request ids, keys, credentialed URLs). For a
 *   model (`formatForLlm`, tool results): it needs "maximum context length is 16000 tokens", not
 *   the organization.
 * - `full`: the provider's words as said, secrets still scrubbed. For the operator (panel, logs).
 */
export type Disclosure = 'safe' | 'scrubbed' | 'full';

const LEVELS: ReadonlySet<string> = new Set(['safe', 'scrubbed', 'full']);

/** A disclosure option read totally: anything but a known level is the strictest, `safe`. */
export function disclosureOption(options: unknown, fallback: Disclosure): Disclosure {
  let value: unknown;
  try {
    value = (options as { disclosure?: unknown } | null | undefined)?.disclosure;
  } catch {
    return 'safe';
  }
  if (value === undefined) return fallback;
  return typeof value === 'string' && LEVELS.has(value) ? (value as Disclosure) : 'safe';
}

/** What the app's own clients are told, per reason: true, useful, and free of provider text. */
const SAFE_MESSAGES: Readonly<Record<FailureReason, string>> = {
  rate_limit: 'The model provider is rate limiting requests. Try again after the indicated wait.',
  overloaded: 'The model provider is overloaded. Try again shortly.',
  server_error: 'The model provider failed to answer. Try again shortly.',
  timeout: 'The model provider did not answer in time. Try again shortly.',
  connection: 'The model provider could not be reached. Try again shortly.',
  interrupted:
    'The connection to the model provider dropped before the answer was complete. The request may have been processed.',
  auth: 'The service could not authenticate with its model provider.',
  permission: 'The service is not permitted to use this model or feature.',
  model_not_found: 'The requested model is not available.',
  not_found: 'The service is misconfigured: the model provider endpoint was not found.',
  endpoint: 'The service is misconfigured: the model provider could not be reached by name.',
  quota: "The service has used up its model provider's allowance.",
  billing: 'The service has a billing problem with its model provider.',
  context_overflow: 'The input is too long for the model.',
  content_policy: "The request or its answer was blocked by the model provider's content policy.",
  invalid_request: 'The model provider rejected the request as invalid.',
  unsupported_media: 'The model provider does not accept this media type or format.',
  local_bug: 'An internal error occurred.',
  cancelled: 'The request was cancelled.',
  unknown: 'An unexpected error occurred with the model provider.',
};

/** The fixed, provider-free message of a reason (the `safe` level). */
export function safeMessageFor(reason: FailureReason): string {
  return SAFE_MESSAGES[reason] ?? SAFE_MESSAGES.unknown;
}

/** The report's message at `level`. */
export function disclosedMessage(report: ErrorReport, level: Disclosure): string {
  if (level === 'full') return report.message;
  if (level === 'scrubbed') return scrubIdentifiers(report.message);
  return safeMessageFor(report.reason);
}
