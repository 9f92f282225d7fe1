import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * The error object Groq sends, inside `{ "error": { ... } }` for an HTTP error and on its own in
 * a stream error event (OpenAI-compatible). Lenient: Groq adds fields (`failed_generation`) and
 * sends `code`/`param` as null, strings or numbers. Source: https://console.groq.com/docs/errors
 */
export const GroqErrorObject = v.looseObject({
  message: lenientField(v.string()),
  type: v.fallback(v.nullish(v.string()), undefined),
  code: v.fallback(v.nullish(v.union([v.string(), v.number()])), undefined),
  param: v.fallback(v.nullish(v.union([v.string(), v.number()])), undefined),
  /** The model's own output that failed `tool_use_failed`/`json_validate_failed`. Never recorded. */
  failed_generation: v.optional(v.unknown()),
});
export type GroqErrorObject = v.InferOutput<typeof GroqErrorObject>;

/** A Groq HTTP error body: `{ "error": { "message", "type", "code" } }`. */
export const GroqErrorBody = v.looseObject({ error: GroqErrorObject });
export type GroqErrorBody = v.InferOutput<typeof GroqErrorBody>;
