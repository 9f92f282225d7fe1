import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). anthropic-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/**
 * Lenient schemas of the bodies the Anthropic API answers with. Never `.strict()`: the vendor adds
 * fields without notice, and an extractor must keep working when it does.
 *
 * Source: https://docs.anthropic.com/en/api/errors and the SDKs' `APIError` constructors
 * (`@anthropic-ai/sdk` core/error.js: `body.error?.type`, `body.error?.message`,
 * `body.error?.details?.error_code`).
 */

/** The inner `error` object: `{ type: 'overloaded_error', message: 'Overloaded', details? }`. */
export const AnthropicInnerError = lenient.looseObject({
  type: lenient.string().optional().catch(undefined),
  message: lenient.unknown().optional(),
  details: lenient
    .looseObject({ error_code: lenient.string().optional().catch(undefined) })
    .nullable()
    .optional()
    .catch(undefined),
});
export type AnthropicInnerError = Infer<typeof AnthropicInnerError>;

/**
 * The whole error body, also sent as the data of an SSE `event: error`:
 * `{ type: 'error', error: { type, message }, request_id? }`.
 */
export const AnthropicErrorBody = lenient.looseObject({
  type: lenient.literal('error'),
  error: AnthropicInnerError,
  request_id: lenient.string().optional().catch(undefined),
});
export type AnthropicErrorBody = Infer<typeof AnthropicErrorBody>;

/** A successful Messages API answer, as far as the blocked-answer detector needs it. */
export const AnthropicMessageResult = lenient.looseObject({
  type: lenient.literal('message'),
  stop_reason: lenient.string().nullable().optional().catch(undefined),
  model: lenient.string().optional().catch(undefined),
  id: lenient.string().optional().catch(undefined),
});
export type AnthropicMessageResult = Infer<typeof AnthropicMessageResult>;

/** Parses an error body without throwing; `undefined` when it is not Anthropic's shape. */
export function parseAnthropicErrorBody(value: unknown): AnthropicErrorBody | undefined {
  // Only plain objects are error bodies: a typed array (one key per byte) would make zod walk
  // every byte of a body that can be 50 MB.
  if (!isPlainBody(value)) return undefined;
  try {
    const parsed = AnthropicErrorBody.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON-like object: not null, not an array, not bytes. */
export function isPlainBody(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  try {
    // A Proxy body: Array.isArray throws on a revoked one, instanceof runs its getPrototypeOf trap.
    return !Array.isArray(value) && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer);
  } catch {
    return false;
  }
}
