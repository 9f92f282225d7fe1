import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

const stringOrNumber = v.union([v.string(), v.number()]);

/**
 * OpenRouter's `error.metadata` (all optional, lenient):
 * - a provider error: `raw` (the upstream's own error: JSON text, an object or prose),
 *   `provider_name`, `is_byok`;
 * - a moderation refusal (403): `reasons` (the flagged categories), `flagged_input` (prompt text:
 *   never copied), `provider_name`, `model_slug`;
 * - a stream error chunk: `error_type` (OpenRouter's own code: `rate_limit_exceeded`,
 *   `provider_overloaded`, `context_length_exceeded` ...) and `provider_code`.
 * Source: https://openrouter.ai/docs/api/reference/errors-and-debugging and @openrouter/sdk's
 * `models/chatstreamchunk` and `models/apierrortype`.
 */
export const OpenRouterErrorMetadata = v.looseObject({
  raw: v.optional(v.unknown()),
  provider_name: lenientField(v.string()),
  reasons: lenientField(v.array(v.unknown())),
  flagged_input: lenientField(v.string()),
  error_type: lenientField(v.string()),
  provider_code: lenientField(stringOrNumber),
});
export type OpenRouterErrorMetadata = v.InferOutput<typeof OpenRouterErrorMetadata>;

/**
 * The error object of an OpenRouter error body: `{ code, message, metadata }`. `code` is the HTTP
 * status as a number (documented), but relays and the streaming docs' example send a string code
 * (`"server_error"`); a relay may nest a second `error` inside. Never strict on vendor data.
 */
export const OpenRouterErrorObject = v.looseObject({
  code: lenientField(stringOrNumber),
  message: lenientField(v.unknown()),
  type: lenientField(v.string()),
  metadata: lenientField(OpenRouterErrorMetadata),
  error: v.optional(v.unknown()),
});
export type OpenRouterErrorObject = v.InferOutput<typeof OpenRouterErrorObject>;

/** A whole OpenRouter error body: `{ "error": { ... }, "user_id"? }` (`user_id` is never read). */
export const OpenRouterErrorBody = v.looseObject({ error: OpenRouterErrorObject });
export type OpenRouterErrorBody = v.InferOutput<typeof OpenRouterErrorBody>;

/** An upstream error quoted in `metadata.raw`: `{ error: { message, code, type, status } }` or that inner object. */
export const UpstreamError = v.looseObject({
  message: v.optional(v.unknown()),
  code: lenientField(stringOrNumber),
  type: lenientField(v.string()),
  status: lenientField(stringOrNumber),
  error: v.optional(v.unknown()),
  detail: v.optional(v.unknown()),
});
export type UpstreamError = v.InferOutput<typeof UpstreamError>;
