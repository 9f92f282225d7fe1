import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import { AnthropicErrorBody, AnthropicInnerError, AnthropicMessageResult } from './anthropic-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodAnthropicInnerError = z.looseObject({
  type: z.string().optional().catch(undefined),
  message: z.unknown().optional(),
  details: z
    .looseObject({ error_code: z.string().optional().catch(undefined) })
    .nullable()
    .optional()
    .catch(undefined),
});

const ZodAnthropicErrorBody = z.looseObject({
  type: z.literal('error'),
  error: ZodAnthropicInnerError,
  request_id: z.string().optional().catch(undefined),
});

const ZodAnthropicMessageResult = z.looseObject({
  type: z.literal('message'),
  stop_reason: z.string().nullable().optional().catch(undefined),
  model: z.string().optional().catch(undefined),
  id: z.string().optional().catch(undefined),
});

describe("anthropic shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    AnthropicInnerError: [AnthropicInnerError, ZodAnthropicInnerError],
    AnthropicErrorBody: [AnthropicErrorBody, ZodAnthropicErrorBody],
    AnthropicMessageResult: [AnthropicMessageResult, ZodAnthropicMessageResult],
  });
});
