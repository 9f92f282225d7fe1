import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import { GroqErrorBody, GroqErrorObject } from './groq-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodGroqErrorObject = z
  .object({
    message: z.string().optional().catch(undefined),
    type: z.string().nullish().catch(undefined),
    code: z.union([z.string(), z.number()]).nullish().catch(undefined),
    param: z.union([z.string(), z.number()]).nullish().catch(undefined),
    failed_generation: z.unknown().optional(),
  })
  .loose();

const ZodGroqErrorBody = z.object({ error: ZodGroqErrorObject }).loose();

describe("groq shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    GroqErrorObject: [GroqErrorObject, ZodGroqErrorObject],
    GroqErrorBody: [GroqErrorBody, ZodGroqErrorBody],
  });
});
