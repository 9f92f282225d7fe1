import { z } from 'zod';

/**
 * Lenient schemas of the error bodies that reach the openai SDK, from OpenAI and from the
 * OpenAI-compatible servers people point it at. Never `.strict()`: vendors add fields.
 *
 * The SDK keeps only `body.error` (the inner object) on `APIError.error`, so these schemas
 * describe that inner object.
 */

/** A code is a string for OpenAI (`insufficient_quota`), a number for OpenRouter (`402`). */
const Code = z.union([z.string(), z.number()]).nullish();

/** Azure OpenAI's `innererror` on a content-filter 400. */
export const AzureInnerError = z.looseObject({
  code: z.string().nullish(),
  content_filter_result: z.record(z.string(), z.unknown()).nullish(),
});

/** OpenRouter's `error.metadata`: `raw` is the upstream provider's error (often JSON text). */
export const OpenRouterErrorMetadata = z.looseObject({
  raw: z.unknown().optional(),
  provider_name: z.string().nullish(),
  reasons: z.array(z.string()).nullish(),
  flagged_input: z.string().nullish(),
});

/**
 * The inner error object: OpenAI `{message, type, param, code}`, Azure adds `innererror` and
 * `status`, OpenRouter `{code: number, message, metadata}`, DeepSeek and Together the OpenAI form.
 */
export const OpenAIInnerError = z.looseObject({
  message: z.unknown().optional(),
  type: z.string().nullish(),
  param: z.string().nullish(),
  code: Code,
  status: z.union([z.number(), z.string()]).nullish(),
  innererror: AzureInnerError.nullish(),
  metadata: OpenRouterErrorMetadata.nullish(),
});
export type OpenAIInnerError = z.infer<typeof OpenAIInnerError>;

/** An upstream error found in OpenRouter's `metadata.raw`: `{error:{...}}`, or the inner object itself. */
export const UpstreamErrorBody = z.union([z.looseObject({ error: OpenAIInnerError }), OpenAIInnerError]);

/** A chat completion (non-streamed), as far as a blocked answer is concerned. */
export const ChatCompletionLike = z.looseObject({
  object: z.string().optional(),
  choices: z.array(
    z.looseObject({
      finish_reason: z.string().nullish(),
      message: z.looseObject({ refusal: z.string().nullish() }).nullish(),
    }),
  ),
});

/** A Responses API result, as far as a blocked answer is concerned. */
export const ResponseLike = z.looseObject({
  object: z.literal('response'),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
});
