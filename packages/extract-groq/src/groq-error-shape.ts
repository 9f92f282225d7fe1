import { z } from 'zod';

/**
 * The error object Groq sends, inside `{ "error": { ... } }` for an HTTP error and on its own in
 * a stream error event (OpenAI-compatible). Lenient: Groq adds fields (`failed_generation`) and
 * sends `code`/`param` as null, strings or numbers. Source: https://console.groq.com/docs/errors
 */
export const GroqErrorObject = z
  .object({
    message: z.string().optional().catch(undefined),
    type: z.string().nullish().catch(undefined),
    code: z.union([z.string(), z.number()]).nullish().catch(undefined),
    param: z.union([z.string(), z.number()]).nullish().catch(undefined),
    /** The model's own output that failed `tool_use_failed`/`json_validate_failed`. Never recorded. */
    failed_generation: z.unknown().optional(),
  })
  .loose();
export type GroqErrorObject = z.infer<typeof GroqErrorObject>;

/** A Groq HTTP error body: `{ "error": { "message", "type", "code" } }`. */
export const GroqErrorBody = z.object({ error: GroqErrorObject }).loose();
export type GroqErrorBody = z.infer<typeof GroqErrorBody>;
