import * as z from 'zod/mini';

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

/**
 * The body Cohere answers every failure with (lenient; never strict on vendor data):
 * `{"id":"<request id>","message":"invalid api token"}`, on the v1 and v2 APIs alike; a gateway in
 * front of it may answer `{"message":"..."}` without `id`, or an OpenAI-style `{"error":{"message"}}`
 * (Cohere's compatibility API). Sources: https://docs.cohere.com/v2/reference/errors (the shape and
 * the example messages per status), cohere-typescript `src/errors/CohereError.ts` (the SDK keeps the
 * parsed body as `body`).
 */
export const CohereErrorBody = z.looseObject({
  id: optional(z.string()),
  message: optional(z.string()),
  error: optional(
    z.union([
      z.string(),
      z.looseObject({
        message: optional(z.string()),
        type: z.catch(z.nullish(z.string()), undefined),
        code: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
      }),
    ]),
  ),
});
export type CohereErrorBody = z.infer<typeof CohereErrorBody>;
