import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * The OpenAI-style error object the Inference Providers router (`router.huggingface.co/v1`) and the
 * providers it relays answer chat completions with: `{ "message", "type", "param", "code" }`, plus
 * TGI's `http_status_code` (all lenient).
 */
export const HuggingfaceErrorObject = v.looseObject({
  message: lenientField(v.string()),
  type: v.fallback(v.nullish(v.string()), undefined),
  code: v.fallback(v.nullish(v.union([v.string(), v.number()])), undefined),
  param: v.fallback(v.nullish(v.string()), undefined),
});
export type HuggingfaceErrorObject = v.InferOutput<typeof HuggingfaceErrorObject>;

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
export const HuggingfaceErrorBody = v.looseObject({
  error: lenientField(v.union([v.string(), HuggingfaceErrorObject])),
  error_type: lenientField(v.string()),
  estimated_time: lenientField(v.number()),
  detail: lenientField(v.string()),
  message: lenientField(v.string()),
});
export type HuggingfaceErrorBody = v.InferOutput<typeof HuggingfaceErrorBody>;
