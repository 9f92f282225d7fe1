import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). mistral-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/** One FastAPI/pydantic validation issue: `{ type, loc, msg, input, ctx }` (`input` may echo the prompt). */
export const MistralValidationIssue = lenient.looseObject({
  loc: lenient
    .array(lenient.union([lenient.string(), lenient.number()]))
    .optional()
    .catch(undefined),
  msg: lenient.string().optional().catch(undefined),
  type: lenient.string().optional().catch(undefined),
});
export type MistralValidationIssue = Infer<typeof MistralValidationIssue>;

/**
 * The bodies Mistral's API answers with (all lenient; fields vary by endpoint and gateway):
 * - `{"object":"error","message":"...","type":"invalid_request_error","param":null,"code":"3051"}`
 * - `{"object":"error","message":{"detail":[...]},"type":"invalid_request_error",...}` (422, wrapped)
 * - `{"detail":[...]}` (422, FastAPI) or `{"detail":"Not Found"}`
 * - `{"message":"Unauthorized","request_id":"..."}` / `{"message":"Requests rate limit exceeded"}` (gateway)
 * Source: https://docs.mistral.ai/api/ and @mistralai/mistralai models/errors (SDKError keeps the raw body).
 */
export const MistralErrorBody = lenient.looseObject({
  object: lenient.string().optional().catch(undefined),
  message: lenient
    .union([lenient.string(), lenient.looseObject({ detail: lenient.unknown().optional() })])
    .optional()
    .catch(undefined),
  detail: lenient
    .union([lenient.string(), lenient.array(lenient.unknown())])
    .optional()
    .catch(undefined),
  type: lenient.string().nullish().catch(undefined),
  param: lenient.union([lenient.string(), lenient.number()]).nullish().catch(undefined),
  code: lenient.union([lenient.string(), lenient.number()]).nullish().catch(undefined),
  request_id: lenient.string().optional().catch(undefined),
});
export type MistralErrorBody = Infer<typeof MistralErrorBody>;
