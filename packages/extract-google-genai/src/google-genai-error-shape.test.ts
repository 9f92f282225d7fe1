import { lenientDifferential } from '@faultline/test-fixtures/lenient-check';
import { describe } from 'vitest';
import { z } from 'zod';
import {
  BadRequestDetail,
  ErrorInfoDetail,
  GenerateContentAnswer,
  GoogleErrorBody,
  GoogleRpcStatus,
  HelpDetail,
  QuotaFailureDetail,
  RetryInfoDetail,
} from './google-genai-error-shape.ts';

// The zod schemas these readers replaced (issue 17: no zod on an adapter's import path), verbatim.
const ZodoptionalString = z.string().optional().catch(undefined);

const ZodoptionalNumber = z.number().optional().catch(undefined);

const ZodGoogleRpcStatus = z.object({
  code: ZodoptionalNumber,
  message: ZodoptionalString,
  status: ZodoptionalString,
  details: z.array(z.unknown()).optional().catch(undefined),
});

const ZodGoogleErrorBody = z.object({ error: ZodGoogleRpcStatus });

const ZodErrorInfoDetail = z.object({
  reason: ZodoptionalString,
  domain: ZodoptionalString,
  metadata: z.record(z.string(), z.unknown()).optional().catch(undefined),
});

const ZodQuotaFailureDetail = z.object({
  violations: z
    .array(
      z.object({
        quotaMetric: ZodoptionalString,
        quotaId: ZodoptionalString,
        quotaDimensions: z.record(z.string(), z.unknown()).optional().catch(undefined),
        quotaValue: z.union([z.string(), z.number()]).optional().catch(undefined),
        subject: ZodoptionalString,
        description: ZodoptionalString,
      }),
    )
    .optional()
    .catch(undefined),
});

const ZodRetryInfoDetail = z.object({ retryDelay: ZodoptionalString });

const ZodBadRequestDetail = z.object({
  fieldViolations: z
    .array(z.object({ field: ZodoptionalString, description: ZodoptionalString }))
    .optional()
    .catch(undefined),
});

const ZodHelpDetail = z.object({
  links: z
    .array(z.object({ description: ZodoptionalString, url: ZodoptionalString }))
    .optional()
    .catch(undefined),
});

const ZodGenerateContentAnswer = z.object({
  promptFeedback: z
    .object({ blockReason: ZodoptionalString, blockReasonMessage: ZodoptionalString })
    .optional()
    .catch(undefined),
  candidates: z
    .array(z.object({ finishReason: ZodoptionalString, finishMessage: ZodoptionalString }).catch({}))
    .optional()
    .catch(undefined),
});

describe("google-genai shape readers give the zod schemas' verdict and output", () => {
  lenientDifferential({
    GoogleRpcStatus: [GoogleRpcStatus, ZodGoogleRpcStatus],
    GoogleErrorBody: [GoogleErrorBody, ZodGoogleErrorBody],
    ErrorInfoDetail: [ErrorInfoDetail, ZodErrorInfoDetail],
    QuotaFailureDetail: [QuotaFailureDetail, ZodQuotaFailureDetail],
    RetryInfoDetail: [RetryInfoDetail, ZodRetryInfoDetail],
    BadRequestDetail: [BadRequestDetail, ZodBadRequestDetail],
    HelpDetail: [HelpDetail, ZodHelpDetail],
    GenerateContentAnswer: [GenerateContentAnswer, ZodGenerateContentAnswer],
  });
});
