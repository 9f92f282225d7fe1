import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

const stringOrNumber = v.union([v.string(), v.number()]);

/** One FastAPI/pydantic validation issue: `{ type, loc, msg, input, ctx }` (`input` may echo the prompt). */
export const MistralValidationIssue = v.looseObject({
  loc: lenientField(v.array(stringOrNumber)),
  msg: lenientField(v.string()),
  type: lenientField(v.string()),
});
export type MistralValidationIssue = v.InferOutput<typeof MistralValidationIssue>;

/**
 * The bodies Mistral's API answers with (all lenient; fields vary by endpoint and gateway):
 * - `{"object":"error","message":"...","type":"invalid_request_error","param":null,"code":"3051"}`
 * - `{"object":"error","message":{"detail":[...]},"type":"invalid_request_error",...}` (422, wrapped)
 * - `{"detail":[...]}` (422, FastAPI) or `{"detail":"Not Found"}`
 * - `{"message":"Unauthorized","request_id":"..."}` / `{"message":"Requests rate limit exceeded"}` (gateway)
 * Source: https://docs.mistral.ai/api/ and @mistralai/mistralai models/errors (SDKError keeps the raw body).
 */
export const MistralErrorBody = v.looseObject({
  object: lenientField(v.string()),
  message: lenientField(v.union([v.string(), v.looseObject({ detail: v.optional(v.unknown()) })])),
  detail: lenientField(v.union([v.string(), v.array(v.unknown())])),
  type: v.fallback(v.nullish(v.string()), undefined),
  param: v.fallback(v.nullish(stringOrNumber), undefined),
  code: v.fallback(v.nullish(stringOrNumber), undefined),
  request_id: lenientField(v.string()),
});
export type MistralErrorBody = v.InferOutput<typeof MistralErrorBody>;
