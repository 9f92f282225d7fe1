import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). google-genai-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/**
 * Lenient schemas of the error bodies Google's Gemini API and Vertex AI send (a `google.rpc.Status`
 * inside `{"error": …}`), as @google/genai copies them into `ApiError.message`. Every field is
 * optional and a field of the wrong type is dropped (`.catch(undefined)`), never the whole body:
 * vendor data is never parsed strictly.
 *
 * Sources: https://cloud.google.com/apis/design/errors (google.rpc.Status and its detail types),
 * https://github.com/googleapis/googleapis/blob/master/google/rpc/error_details.proto,
 * https://ai.google.dev/gemini-api/docs/troubleshooting.
 */

const optionalString = lenient.string().optional().catch(undefined);
const optionalNumber = lenient.number().optional().catch(undefined);

/** `google.rpc.Status`: `code` (HTTP status), `message`, `status` (canonical code) and typed details. */
export const GoogleRpcStatus = lenient.object({
  code: optionalNumber,
  message: optionalString,
  status: optionalString,
  details: lenient.array(lenient.unknown()).optional().catch(undefined),
});
export type GoogleRpcStatus = Infer<typeof GoogleRpcStatus>;

/** The body: `{"error": google.rpc.Status}`. */
export const GoogleErrorBody = lenient.object({ error: GoogleRpcStatus });
export type GoogleErrorBody = Infer<typeof GoogleErrorBody>;

/** `google.rpc.ErrorInfo`: a machine `reason` such as `API_KEY_INVALID`, `SERVICE_DISABLED`. */
export const ErrorInfoDetail = lenient.object({
  reason: optionalString,
  domain: optionalString,
  metadata: lenient.record().optional().catch(undefined),
});

/** `google.rpc.QuotaFailure`: which quota was spent; the quota ids tell a per-minute from a per-day cap. */
export const QuotaFailureDetail = lenient.object({
  violations: lenient
    .array(
      lenient.object({
        quotaMetric: optionalString,
        quotaId: optionalString,
        quotaDimensions: lenient.record().optional().catch(undefined),
        quotaValue: lenient.union([lenient.string(), lenient.number()]).optional().catch(undefined),
        subject: optionalString,
        description: optionalString,
      }),
    )
    .optional()
    .catch(undefined),
});

/** `google.rpc.RetryInfo`: `retryDelay` is a protobuf duration in JSON form, e.g. `"13s"`. */
export const RetryInfoDetail = lenient.object({ retryDelay: optionalString });

/** `google.rpc.BadRequest`: the request fields that were wrong. */
export const BadRequestDetail = lenient.object({
  fieldViolations: lenient
    .array(lenient.object({ field: optionalString, description: optionalString }))
    .optional()
    .catch(undefined),
});

/** `google.rpc.Help`: links only; read so that nothing else mistakes them for a message. */
export const HelpDetail = lenient.object({
  links: lenient
    .array(lenient.object({ description: optionalString, url: optionalString }))
    .optional()
    .catch(undefined),
});

/** The `@type` suffixes of the detail messages read here. */
export const DETAIL_TYPES = {
  errorInfo: 'google.rpc.ErrorInfo',
  quotaFailure: 'google.rpc.QuotaFailure',
  retryInfo: 'google.rpc.RetryInfo',
  badRequest: 'google.rpc.BadRequest',
  help: 'google.rpc.Help',
} as const;

/**
 * A generate-content answer (unary result or one stream chunk) as far as safety blocks go.
 * Source: https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export const GenerateContentAnswer = lenient.object({
  promptFeedback: lenient
    .object({ blockReason: optionalString, blockReasonMessage: optionalString })
    .optional()
    .catch(undefined),
  candidates: lenient
    .array(lenient.object({ finishReason: optionalString, finishMessage: optionalString }).catch({}))
    .optional()
    .catch(undefined),
});
export type GenerateContentAnswer = Infer<typeof GenerateContentAnswer>;
