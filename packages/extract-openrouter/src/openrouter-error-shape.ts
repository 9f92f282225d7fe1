import * as z from 'zod/mini';

/**
 * The error object of a OpenRouter error body, as a lenient zod/mini schema (never strict on vendor
 * data): unknown fields pass, every known field is optional.
 *
 * TEMPLATE: the generic `{ "error": { "message", "type", "code", "param" } }` shape most JSON
 * APIs use. Replace it with the format OpenRouter documents, and name the source in each scenario.
 */
export const OpenrouterErrorObject = z.looseObject({
  message: z.optional(z.string()),
  type: z.nullish(z.string()),
  code: z.nullish(z.union([z.string(), z.number()])),
  param: z.nullish(z.string()),
});
export type OpenrouterErrorObject = z.infer<typeof OpenrouterErrorObject>;

/** A whole OpenRouter error body: `{ "error": { ... } }`. */
export const OpenrouterErrorBody = z.looseObject({ error: OpenrouterErrorObject });
export type OpenrouterErrorBody = z.infer<typeof OpenrouterErrorBody>;
