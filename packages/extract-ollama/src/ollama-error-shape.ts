import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * The OpenAI-style error object a proxy or Ollama's own OpenAI-compatible layer (`/v1`) answers
 * with: `{ "message", "type", "param", "code" }` (all lenient).
 */
export const OllamaErrorObject = v.looseObject({
  message: lenientField(v.string()),
  type: v.fallback(v.nullish(v.string()), undefined),
  code: v.fallback(v.nullish(v.union([v.string(), v.number()])), undefined),
  param: v.fallback(v.nullish(v.string()), undefined),
});
export type OllamaErrorObject = v.InferOutput<typeof OllamaErrorObject>;

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
export const OllamaErrorBody = v.looseObject({
  error: lenientField(v.union([v.string(), OllamaErrorObject])),
});
export type OllamaErrorBody = v.InferOutput<typeof OllamaErrorBody>;
