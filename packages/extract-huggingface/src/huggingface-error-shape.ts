import * as z from 'zod/mini';

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

/**
 * The OpenAI-style error object the Inference Providers router (`router.huggingface.co/v1`) and the
 * providers it relays answer chat completions with: `{ "message", "type", "param", "code" }`, plus
 * TGI's `http_status_code` (all lenient).
 */
export const HuggingfaceErrorObject = z.looseObject({
  message: optional(z.string()),
  type: z.catch(z.nullish(z.string()), undefined),
  code: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
  param: z.catch(z.nullish(z.string()), undefined),
});
export type HuggingfaceErrorObject = z.infer<typeof HuggingfaceErrorObject>;

/**
 * The bodies Hugging Face answers failures with (lenient; never strict on vendor data):
 * - `{"error":"Model x is currently loading","estimated_time":176.7}`: the HF Inference API and a
 *   dedicated Inference Endpoint (text-generation-inference adds `"error_type"`), and the Hub's own
 *   `{"error":"Invalid credentials in Authorization header"}`, `{"error":"You have exceeded your
 *   monthly included credits ..."}`;
 * - `{"error":{"message","type","code","param"}}`: the router's OpenAI-compatible route and the
 *   providers it relays;
 * - `{"detail":"..."}` or `{"message":"..."}`: a provider's own envelope relayed as it is.
 * Sources: https://huggingface.co/docs/inference-providers (Errors, Pricing), huggingface.js
 * `packages/inference/src/utils/request.ts` (which of these fields the SDK reads).
 */
export const HuggingfaceErrorBody = z.looseObject({
  error: optional(z.union([z.string(), HuggingfaceErrorObject])),
  error_type: optional(z.string()),
  estimated_time: optional(z.number()),
  detail: optional(z.string()),
  message: optional(z.string()),
});
export type HuggingfaceErrorBody = z.infer<typeof HuggingfaceErrorBody>;
