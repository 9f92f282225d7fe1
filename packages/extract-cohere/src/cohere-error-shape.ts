import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * The body Cohere answers every failure with (lenient; never strict on vendor data):
 * `{"id":"<request id>","message":"invalid api token"}`, on the v1 and v2 APIs alike; a gateway in
 * front of it may answer `{"message":"..."}` without `id`, or an OpenAI-style `{"error":{"message"}}`
 * (Cohere's compatibility API). Sources: https://docs.cohere.com/v2/reference/errors (the shape and
 * the example messages per status), cohere-typescript `src/errors/CohereError.ts` (the SDK keeps the
 * parsed body as `body`).
 */
export const CohereErrorBody = v.looseObject({
  id: lenientField(v.string()),
  message: lenientField(v.string()),
  error: lenientField(
    v.union([
      v.string(),
      v.looseObject({
        message: lenientField(v.string()),
        type: v.fallback(v.nullish(v.string()), undefined),
        code: v.fallback(v.nullish(v.union([v.string(), v.number()])), undefined),
      }),
    ]),
  ),
});
export type CohereErrorBody = v.InferOutput<typeof CohereErrorBody>;
