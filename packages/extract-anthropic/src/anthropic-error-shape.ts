import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * Lenient schemas of the bodies the Anthropic API answers with. Never strict (`v.strictObject`): the vendor adds
 * fields without notice, and an extractor must keep working when it does.
 *
 * Source: https://docs.anthropic.com/en/api/errors and the SDKs' `APIError` constructors
 * (`@anthropic-ai/sdk` core/error.js: `body.error?.type`, `body.error?.message`,
 * `body.error?.details?.error_code`).
 */

/** The inner `error` object: `{ type: 'overloaded_error', message: 'Overloaded', details? }`. */
export const AnthropicInnerError = v.looseObject({
  type: lenientField(v.string()),
  message: v.optional(v.unknown()),
  details: v.fallback(
    v.optional(v.nullable(v.looseObject({ error_code: lenientField(v.string()) }))),
    undefined,
  ),
});
export type AnthropicInnerError = v.InferOutput<typeof AnthropicInnerError>;

/**
 * The whole error body, also sent as the data of an SSE `event: error`:
 * `{ type: 'error', error: { type, message }, request_id? }`.
 */
export const AnthropicErrorBody = v.looseObject({
  type: v.literal('error'),
  error: AnthropicInnerError,
  request_id: lenientField(v.string()),
});
export type AnthropicErrorBody = v.InferOutput<typeof AnthropicErrorBody>;

/** A successful Messages API answer, as far as the blocked-answer detector needs it. */
export const AnthropicMessageResult = v.looseObject({
  type: v.literal('message'),
  stop_reason: lenientField(v.nullable(v.string())),
  model: lenientField(v.string()),
  id: lenientField(v.string()),
});
export type AnthropicMessageResult = v.InferOutput<typeof AnthropicMessageResult>;

/** Parses an error body without throwing; `undefined` when it is not Anthropic's shape. */
export function parseAnthropicErrorBody(value: unknown): AnthropicErrorBody | undefined {
  // Only plain objects are error bodies: a typed array (one key per byte) would make the schema walk
  // every byte of a body that can be 50 MB.
  if (!isPlainBody(value)) return undefined;
  try {
    const parsed = v.safeParse(AnthropicErrorBody, value);
    return parsed.success ? parsed.output : undefined;
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
