import * as z from 'zod/mini';

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

/**
 * The OpenAI-style error object a proxy or Ollama's own OpenAI-compatible layer (`/v1`) answers
 * with: `{ "message", "type", "param", "code" }` (all lenient).
 */
export const OllamaErrorObject = z.looseObject({
  message: optional(z.string()),
  type: z.catch(z.nullish(z.string()), undefined),
  code: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
  param: z.catch(z.nullish(z.string()), undefined),
});
export type OllamaErrorObject = z.infer<typeof OllamaErrorObject>;

/**
 * The bodies Ollama answers failures with (lenient; never strict on vendor data):
 * - `{"error":"model \"llama3.2\" not found, try pulling it first"}`: the native API (`/api/chat`,
 *   `/api/generate`, `/api/embed`), with the status (404, 400, 500 …), and, after a stream's 200,
 *   as one NDJSON line;
 * - `{"error":{"message":"...","type":"api_error","param":null,"code":null}}`: its `/v1` layer, or a
 *   proxy in front of it;
 * - a text body (`404 page not found` from its router, a proxy's HTML page).
 * Sources: https://github.com/ollama/ollama/blob/main/docs/api.md ("Errors"), ollama-js
 * `src/utils.ts` (`checkOk` keeps only `error`, or the whole text body).
 */
export const OllamaErrorBody = z.looseObject({
  error: optional(z.union([z.string(), OllamaErrorObject])),
});
export type OllamaErrorBody = z.infer<typeof OllamaErrorBody>;
