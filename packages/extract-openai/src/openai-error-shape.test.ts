import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import {
  AzureInnerError,
  ChatCompletionLike,
  OpenAIInnerError,
  OpenRouterErrorMetadata,
  ResponseLike,
  UpstreamErrorBody,
} from './openai-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodCode = z.union([z.string(), z.number()]).nullish();

const ZodAzureInnerError = z.looseObject({
  code: z.string().nullish(),
  content_filter_result: z.record(z.string(), z.unknown()).nullish(),
});

const ZodOpenRouterErrorMetadata = z.looseObject({
  raw: z.unknown().optional(),
  provider_name: z.string().nullish(),
  reasons: z.array(z.string()).nullish(),
  flagged_input: z.string().nullish(),
});

const ZodOpenAIInnerError = z.looseObject({
  message: z.unknown().optional(),
  type: z.string().nullish(),
  param: z.string().nullish(),
  code: ZodCode,
  status: z.union([z.number(), z.string()]).nullish(),
  innererror: ZodAzureInnerError.nullish(),
  metadata: ZodOpenRouterErrorMetadata.nullish(),
});

const ZodUpstreamErrorBody = z.union([z.looseObject({ error: ZodOpenAIInnerError }), ZodOpenAIInnerError]);

const ZodChatCompletionLike = z.looseObject({
  object: z.string().optional(),
  choices: z.array(
    z.looseObject({
      finish_reason: z.string().nullish(),
      message: z.looseObject({ refusal: z.string().nullish() }).nullish(),
    }),
  ),
});

const ZodResponseLike = z.looseObject({
  object: z.literal('response'),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
});

describe("openai shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    AzureInnerError: [AzureInnerError, ZodAzureInnerError],
    OpenRouterErrorMetadata: [OpenRouterErrorMetadata, ZodOpenRouterErrorMetadata],
    OpenAIInnerError: [OpenAIInnerError, ZodOpenAIInnerError],
    UpstreamErrorBody: [UpstreamErrorBody, ZodUpstreamErrorBody],
    ChatCompletionLike: [ChatCompletionLike, ZodChatCompletionLike],
    ResponseLike: [ResponseLike, ZodResponseLike],
  });
});
