import * as z from 'zod/mini';

/**
 * Lenient schemas of the error bodies that reach the openai SDK, from OpenAI and from the
 * OpenAI-compatible servers people point it at. Never `.strict()`: vendors add fields.
 *
 * The SDK keeps only `body.error` (the inner object) on `APIError.error`, so these schemas
 * describe that inner object.
 */

/** A code is a string for OpenAI (`insufficient_quota`), a number for OpenRouter (`402`). */
const Code = z.nullish(z.union([z.string(), z.number()]));

/** Azure OpenAI's `innererror` on a content-filter 400. */
export const AzureInnerError = z.looseObject({
  code: z.nullish(z.string()),
  content_filter_result: z.nullish(z.record(z.string(), z.unknown())),
});

/** OpenRouter's `error.metadata`: `raw` is the upstream provider's error (often JSON text). */
export const OpenRouterErrorMetadata = z.looseObject({
  raw: z.optional(z.unknown()),
  provider_name: z.nullish(z.string()),
  reasons: z.nullish(z.array(z.string())),
  flagged_input: z.nullish(z.string()),
});

/**
 * The inner error object: OpenAI `{message, type, param, code}`, Azure adds `innererror` and
 * `status`, OpenRouter `{code: number, message, metadata}`, DeepSeek and Together the OpenAI form.
 */
export const OpenAIInnerError = z.looseObject({
  message: z.optional(z.unknown()),
  type: z.nullish(z.string()),
  // A string for OpenAI; an object for the Vercel AI Gateway (`{modelId}`, `{ruleId}`) and relays that
  // quote the upstream's error there: read only when a string, and never a reason to drop the body.
  param: z.optional(z.unknown()),
  code: Code,
  status: z.nullish(z.union([z.number(), z.string()])),
  innererror: z.nullish(AzureInnerError),
  metadata: z.nullish(OpenRouterErrorMetadata),
});
export type OpenAIInnerError = z.infer<typeof OpenAIInnerError>;

/** An upstream error found in OpenRouter's `metadata.raw`: `{error:{...}}`, or the inner object itself. */
export const UpstreamErrorBody = z.union([z.looseObject({ error: OpenAIInnerError }), OpenAIInnerError]);

/** A chat completion (non-streamed), as far as a blocked answer is concerned. */
export const ChatCompletionLike = z.looseObject({
  object: z.optional(z.string()),
  choices: z.array(
    z.looseObject({
      finish_reason: z.nullish(z.string()),
      message: z.nullish(z.looseObject({ refusal: z.nullish(z.string()) })),
    }),
  ),
});

/** A Responses API result, as far as a blocked answer is concerned. */
export const ResponseLike = z.looseObject({
  object: z.literal('response'),
  status: z.nullish(z.string()),
  incomplete_details: z.nullish(z.looseObject({ reason: z.nullish(z.string()) })),
});
