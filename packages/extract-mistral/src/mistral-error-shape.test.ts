import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import { MistralErrorBody, MistralValidationIssue } from './mistral-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodMistralValidationIssue = z
  .object({
    loc: z
      .array(z.union([z.string(), z.number()]))
      .optional()
      .catch(undefined),
    msg: z.string().optional().catch(undefined),
    type: z.string().optional().catch(undefined),
  })
  .loose();

const ZodMistralErrorBody = z
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

describe("mistral shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    MistralValidationIssue: [MistralValidationIssue, ZodMistralValidationIssue],
    MistralErrorBody: [MistralErrorBody, ZodMistralErrorBody],
  });
});
