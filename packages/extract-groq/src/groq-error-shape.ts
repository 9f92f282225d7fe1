import * as z from 'zod/mini';

/**
 * The error object Groq sends, inside `{ "error": { ... } }` for an HTTP error and on its own in
 * a stream error event (OpenAI-compatible). Lenient: Groq adds fields (`failed_generation`) and
 * sends `code`/`param` as null, strings or numbers. Source: https://console.groq.com/docs/errors
 */
export const GroqErrorObject = z.looseObject({
  message: z.catch(z.optional(z.string()), undefined),
  type: z.catch(z.nullish(z.string()), undefined),
  code: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
  param: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
  /** The model's own output that failed `tool_use_failed`/`json_validate_failed`. Never recorded. */
  failed_generation: z.optional(z.unknown()),
});
export type GroqErrorObject = z.infer<typeof GroqErrorObject>;

/** A Groq HTTP error body: `{ "error": { "message", "type", "code" } }`. */
export const GroqErrorBody = z.looseObject({ error: GroqErrorObject });
export type GroqErrorBody = z.infer<typeof GroqErrorBody>;
