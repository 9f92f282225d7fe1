import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). groq-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/**
 * The error object Groq sends, inside `{ "error": { ... } }` for an HTTP error and on its own in
 * a stream error event (OpenAI-compatible). Lenient: Groq adds fields (`failed_generation`) and
 * sends `code`/`param` as null, strings or numbers. Source: https://console.groq.com/docs/errors
 */
export const GroqErrorObject = lenient.looseObject({
  message: lenient.string().optional().catch(undefined),
  type: lenient.string().nullish().catch(undefined),
  code: lenient.union([lenient.string(), lenient.number()]).nullish().catch(undefined),
  param: lenient.union([lenient.string(), lenient.number()]).nullish().catch(undefined),
  /** The model's own output that failed `tool_use_failed`/`json_validate_failed`. Never recorded. */
  failed_generation: lenient.unknown().optional(),
});
export type GroqErrorObject = Infer<typeof GroqErrorObject>;

/** A Groq HTTP error body: `{ "error": { "message", "type", "code" } }`. */
export const GroqErrorBody = lenient.looseObject({ error: GroqErrorObject });
export type GroqErrorBody = Infer<typeof GroqErrorBody>;
