import * as z from 'zod/mini';

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);
const stringOrNumber = z.union([z.string(), z.number()]);

/** One FastAPI/pydantic validation issue: `{ type, loc, msg, input, ctx }` (`input` may echo the prompt). */
export const MistralValidationIssue = z.looseObject({
  loc: optional(z.array(stringOrNumber)),
  msg: optional(z.string()),
  type: optional(z.string()),
});
export type MistralValidationIssue = z.infer<typeof MistralValidationIssue>;

/**
 * The bodies Mistral's API answers with (all lenient; fields vary by endpoint and gateway):
 * - `{"object":"error","message":"...","type":"invalid_request_error","param":null,"code":"3051"}`
 * - `{"object":"error","message":{"detail":[...]},"type":"invalid_request_error",...}` (422, wrapped)
 * - `{"detail":[...]}` (422, FastAPI) or `{"detail":"Not Found"}`
 * - `{"message":"Unauthorized","request_id":"..."}` / `{"message":"Requests rate limit exceeded"}` (gateway)
 * Source: https://docs.mistral.ai/api/ and @mistralai/mistralai models/errors (SDKError keeps the raw body).
 */
export const MistralErrorBody = z.looseObject({
  object: optional(z.string()),
  message: optional(z.union([z.string(), z.looseObject({ detail: z.optional(z.unknown()) })])),
  detail: optional(z.union([z.string(), z.array(z.unknown())])),
  type: z.catch(z.nullish(z.string()), undefined),
  param: z.catch(z.nullish(stringOrNumber), undefined),
  code: z.catch(z.nullish(stringOrNumber), undefined),
  request_id: optional(z.string()),
});
export type MistralErrorBody = z.infer<typeof MistralErrorBody>;
