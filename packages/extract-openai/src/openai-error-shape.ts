import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). openai-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/**
 * Lenient schemas of the error bodies that reach the openai SDK, from OpenAI and from the
 * OpenAI-compatible servers people point it at. Never `.strict()`: vendors add fields.
 *
 * The SDK keeps only `body.error` (the inner object) on `APIError.error`, so these schemas
 * describe that inner object.
 */

/** A code is a string for OpenAI (`insufficient_quota`), a number for OpenRouter (`402`). */
const Code = lenient.union([lenient.string(), lenient.number()]).nullish();

/** Azure OpenAI's `innererror` on a content-filter 400. */
export const AzureInnerError = lenient.looseObject({
  code: lenient.string().nullish(),
  content_filter_result: lenient.record().nullish(),
});

/** OpenRouter's `error.metadata`: `raw` is the upstream provider's error (often JSON text). */
export const OpenRouterErrorMetadata = lenient.looseObject({
  raw: lenient.unknown().optional(),
  provider_name: lenient.string().nullish(),
  reasons: lenient.array(lenient.string()).nullish(),
  flagged_input: lenient.string().nullish(),
});

/**
 * The inner error object: OpenAI `{message, type, param, code}`, Azure adds `innererror` and
 * `status`, OpenRouter `{code: number, message, metadata}`, DeepSeek and Together the OpenAI form.
 */
export const OpenAIInnerError = lenient.looseObject({
  message: lenient.unknown().optional(),
  type: lenient.string().nullish(),
  param: lenient.string().nullish(),
  code: Code,
  status: lenient.union([lenient.number(), lenient.string()]).nullish(),
  innererror: AzureInnerError.nullish(),
  metadata: OpenRouterErrorMetadata.nullish(),
});
export type OpenAIInnerError = Infer<typeof OpenAIInnerError>;

/** An upstream error found in OpenRouter's `metadata.raw`: `{error:{...}}`, or the inner object itself. */
export const UpstreamErrorBody = lenient.union([
  lenient.looseObject({ error: OpenAIInnerError }),
  OpenAIInnerError,
]);

/** A chat completion (non-streamed), as far as a blocked answer is concerned. */
export const ChatCompletionLike = lenient.looseObject({
  object: lenient.string().optional(),
  choices: lenient.array(
    lenient.looseObject({
      finish_reason: lenient.string().nullish(),
      message: lenient.looseObject({ refusal: lenient.string().nullish() }).nullish(),
    }),
  ),
});

/** A Responses API result, as far as a blocked answer is concerned. */
export const ResponseLike = lenient.looseObject({
  object: lenient.literal('response'),
  status: lenient.string().nullish(),
  incomplete_details: lenient.looseObject({ reason: lenient.string().nullish() }).nullish(),
});
