import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import {
  AwsResponseMetadata,
  BedrockConverseResult,
  BedrockInvokeModelBody,
  BedrockServiceExceptionSnapshot,
  BedrockStreamExceptionPayload,
} from './bedrock-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodAwsResponseMetadata = z.looseObject({
  httpStatusCode: z.number().int().optional().catch(undefined),
  requestId: z.string().optional().catch(undefined),
  extendedRequestId: z.string().optional().catch(undefined),
  cfId: z.string().optional().catch(undefined),
  attempts: z.number().int().nonnegative().optional().catch(undefined),
  totalRetryDelay: z.number().nonnegative().optional().catch(undefined),
});

const ZodBedrockServiceExceptionSnapshot = z.looseObject({
  name: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
  $fault: z.enum(['client', 'server']),
  $metadata: ZodAwsResponseMetadata.optional().catch(undefined),
  __type: z.string().optional().catch(undefined),
  originalStatusCode: z.number().int().optional().catch(undefined),
  originalMessage: z.string().optional().catch(undefined),
  resourceName: z.string().optional().catch(undefined),
});

const ZodBedrockStreamExceptionPayload = z.looseObject({
  message: z.string().optional().catch(undefined),
  Message: z.string().optional().catch(undefined),
  originalStatusCode: z.number().int().optional().catch(undefined),
  originalMessage: z.string().optional().catch(undefined),
});

const ZodBedrockConverseResult = z.looseObject({
  stopReason: z.string().optional().catch(undefined),
  $metadata: ZodAwsResponseMetadata.optional().catch(undefined),
});

const ZodBedrockInvokeModelBody = z.looseObject({
  'amazon-bedrock-guardrailAction': z.string().optional().catch(undefined),
  stop_reason: z.string().nullable().optional().catch(undefined),
  stopReason: z.string().nullable().optional().catch(undefined),
  results: z
    .array(z.looseObject({ completionReason: z.string().nullable().optional().catch(undefined) }).catch({}))
    .optional()
    .catch(undefined),
});

describe("bedrock shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    AwsResponseMetadata: [AwsResponseMetadata, ZodAwsResponseMetadata],
    BedrockServiceExceptionSnapshot: [BedrockServiceExceptionSnapshot, ZodBedrockServiceExceptionSnapshot],
    BedrockStreamExceptionPayload: [BedrockStreamExceptionPayload, ZodBedrockStreamExceptionPayload],
    BedrockConverseResult: [BedrockConverseResult, ZodBedrockConverseResult],
    BedrockInvokeModelBody: [BedrockInvokeModelBody, ZodBedrockInvokeModelBody],
  });
});
