import * as z from 'zod/mini';

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);
const stringOrNumber = z.union([z.string(), z.number()]);

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
export const OpenRouterErrorMetadata = z.looseObject({
  raw: z.optional(z.unknown()),
  provider_name: optional(z.string()),
  reasons: optional(z.array(z.unknown())),
  flagged_input: optional(z.string()),
  error_type: optional(z.string()),
  provider_code: optional(stringOrNumber),
});
export type OpenRouterErrorMetadata = z.infer<typeof OpenRouterErrorMetadata>;

/**
 * The error object of an OpenRouter error body: `{ code, message, metadata }`. `code` is the HTTP
 * status as a number (documented), but relays and the streaming docs' example send a string code
 * (`"server_error"`); a relay may nest a second `error` inside. Never strict on vendor data.
 */
export const OpenRouterErrorObject = z.looseObject({
  code: optional(stringOrNumber),
  message: optional(z.unknown()),
  type: optional(z.string()),
  metadata: optional(OpenRouterErrorMetadata),
  error: z.optional(z.unknown()),
});
export type OpenRouterErrorObject = z.infer<typeof OpenRouterErrorObject>;

/** A whole OpenRouter error body: `{ "error": { ... }, "user_id"? }` (`user_id` is never read). */
export const OpenRouterErrorBody = z.looseObject({ error: OpenRouterErrorObject });
export type OpenRouterErrorBody = z.infer<typeof OpenRouterErrorBody>;

/** An upstream error quoted in `metadata.raw`: `{ error: { message, code, type, status } }` or that inner object. */
export const UpstreamError = z.looseObject({
  message: z.optional(z.unknown()),
  code: optional(stringOrNumber),
  type: optional(z.string()),
  status: optional(stringOrNumber),
  error: z.optional(z.unknown()),
  detail: z.optional(z.unknown()),
});
export type UpstreamError = z.infer<typeof UpstreamError>;
