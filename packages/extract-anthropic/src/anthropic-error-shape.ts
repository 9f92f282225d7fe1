import * as z from 'zod/mini';

/**
 * Lenient schemas of the bodies the Anthropic API answers with. Never `.strict()`: the vendor adds
 * fields without notice, and an extractor must keep working when it does.
 *
 * Source: https://docs.anthropic.com/en/api/errors and the SDKs' `APIError` constructors
 * (`@anthropic-ai/sdk` core/error.js: `body.error?.type`, `body.error?.message`,
 * `body.error?.details?.error_code`).
 */

/** The inner `error` object: `{ type: 'overloaded_error', message: 'Overloaded', details? }`. */
export const AnthropicInnerError = z.looseObject({
  type: z.catch(z.optional(z.string()), undefined),
  message: z.optional(z.unknown()),
  details: z.catch(
    z.optional(z.nullable(z.looseObject({ error_code: z.catch(z.optional(z.string()), undefined) }))),
    undefined,
  ),
});
export type AnthropicInnerError = z.infer<typeof AnthropicInnerError>;

/**
 * The whole error body, also sent as the data of an SSE `event: error`:
 * `{ type: 'error', error: { type, message }, request_id? }`.
 */
export const AnthropicErrorBody = z.looseObject({
  type: z.literal('error'),
  error: AnthropicInnerError,
  request_id: z.catch(z.optional(z.string()), undefined),
});
export type AnthropicErrorBody = z.infer<typeof AnthropicErrorBody>;

/** A successful Messages API answer, as far as the blocked-answer detector needs it. */
export const AnthropicMessageResult = z.looseObject({
  type: z.literal('message'),
  stop_reason: z.catch(z.optional(z.nullable(z.string())), undefined),
  model: z.catch(z.optional(z.string()), undefined),
  id: z.catch(z.optional(z.string()), undefined),
});
export type AnthropicMessageResult = z.infer<typeof AnthropicMessageResult>;

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
