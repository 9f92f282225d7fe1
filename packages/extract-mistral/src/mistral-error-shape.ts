import { z } from 'zod';

/** One FastAPI/pydantic validation issue: `{ type, loc, msg, input, ctx }` (`input` may echo the prompt). */
export const MistralValidationIssue = z
  .object({
    loc: z
      .array(z.union([z.string(), z.number()]))
      .optional()
      .catch(undefined),
    msg: z.string().optional().catch(undefined),
    type: z.string().optional().catch(undefined),
  })
  .loose();
export type MistralValidationIssue = z.infer<typeof MistralValidationIssue>;

/**
 * The bodies Mistral's API answers with (all lenient; fields vary by endpoint and gateway):
 * - `{"object":"error","message":"...","type":"invalid_request_error","param":null,"code":"3051"}`
 * - `{"object":"error","message":{"detail":[...]},"type":"invalid_request_error",...}` (422, wrapped)
 * - `{"detail":[...]}` (422, FastAPI) or `{"detail":"Not Found"}`
 * - `{"message":"Unauthorized","request_id":"..."}` / `{"message":"Requests rate limit exceeded"}` (gateway)
 * Source: https://docs.mistral.ai/api/ and @mistralai/mistralai models/errors (SDKError keeps the raw body).
 */
export const MistralErrorBody = z
  .object({
    object: z.string().optional().catch(undefined),
    message: z
      .union([z.string(), z.object({ detail: z.unknown().optional() }).loose()])
      .optional()
      .catch(undefined),
    detail: z
      .union([z.string(), z.array(z.unknown())])
      .optional()
      .catch(undefined),
    type: z.string().nullish().catch(undefined),
    param: z.union([z.string(), z.number()]).nullish().catch(undefined),
    code: z.union([z.string(), z.number()]).nullish().catch(undefined),
    request_id: z.string().optional().catch(undefined),
  })
  .loose();
export type MistralErrorBody = z.infer<typeof MistralErrorBody>;
