import * as v from 'valibot';

/**
 * Lenient schemas of the error bodies that reach the openai SDK, from OpenAI and from the
 * OpenAI-compatible servers people point it at. Never strict (`v.strictObject`): vendors add fields.
 *
 * The SDK keeps only `body.error` (the inner object) on `APIError.error`, so these schemas
 * describe that inner object.
 */

/** A code is a string for OpenAI (`insufficient_quota`), a number for OpenRouter (`402`). */
const Code = v.nullish(v.union([v.string(), v.number()]));

/** Azure OpenAI's `innererror` on a content-filter 400. */
export const AzureInnerError = v.looseObject({
  code: v.nullish(v.string()),
  content_filter_result: v.nullish(v.record(v.string(), v.unknown())),
});

/** OpenRouter's `error.metadata`: `raw` is the upstream provider's error (often JSON text). */
export const OpenRouterErrorMetadata = v.looseObject({
  raw: v.optional(v.unknown()),
  provider_name: v.nullish(v.string()),
  reasons: v.nullish(v.array(v.string())),
  flagged_input: v.nullish(v.string()),
});

/**
 * The inner error object: OpenAI `{message, type, param, code}`, Azure adds `innererror` and
 * `status`, OpenRouter `{code: number, message, metadata}`, DeepSeek and Together the OpenAI form.
 */
export const OpenAIInnerError = v.looseObject({
  message: v.optional(v.unknown()),
  type: v.nullish(v.string()),
  // A string for OpenAI; an object for the Vercel AI Gateway (`{modelId}`, `{ruleId}`) and relays that
  // quote the upstream's error there: read only when a string, and never a reason to drop the body.
  param: v.optional(v.unknown()),
  code: Code,
  status: v.nullish(v.union([v.number(), v.string()])),
  innererror: v.nullish(AzureInnerError),
  metadata: v.nullish(OpenRouterErrorMetadata),
});
export type OpenAIInnerError = v.InferOutput<typeof OpenAIInnerError>;

/** An upstream error found in OpenRouter's `metadata.raw`: `{error:{...}}`, or the inner object itself. */
export const UpstreamErrorBody = v.union([v.looseObject({ error: OpenAIInnerError }), OpenAIInnerError]);

/** A chat completion (non-streamed), as far as a blocked answer is concerned. */
export const ChatCompletionLike = v.looseObject({
  object: v.optional(v.string()),
  choices: v.array(
    v.looseObject({
      finish_reason: v.nullish(v.string()),
      message: v.nullish(v.looseObject({ refusal: v.nullish(v.string()) })),
    }),
  ),
});

/** A Responses API result, as far as a blocked answer is concerned. */
export const ResponseLike = v.looseObject({
  object: v.literal('response'),
  status: v.nullish(v.string()),
  incomplete_details: v.nullish(v.looseObject({ reason: v.nullish(v.string()) })),
});
