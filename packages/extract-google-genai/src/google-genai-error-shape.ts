import { lenientField } from '@faultline/classify/toolkit';
import * as v from 'valibot';

/**
 * Lenient schemas of the error bodies Google's Gemini API and Vertex AI send (a `google.rpc.Status`
 * inside `{"error": …}`), as @google/genai copies them into `ApiError.message`. Every field is
 * optional and a field of the wrong type is dropped (`v.fallback(…, undefined)`), never the whole body:
 * vendor data is never parsed strictly.
 *
 * Sources: https://cloud.google.com/apis/design/errors (google.rpc.Status and its detail types),
 * https://github.com/googleapis/googleapis/blob/master/google/rpc/error_details.proto,
 * https://ai.google.dev/gemini-api/docs/troubleshooting.
 */

const optionalString = lenientField(v.string());
const optionalNumber = lenientField(v.number());
const optionalRecord = lenientField(v.record(v.string(), v.unknown()));

/** `google.rpc.Status`: `code` (HTTP status), `message`, `status` (canonical code) and typed details. */
export const GoogleRpcStatus = v.object({
  code: optionalNumber,
  message: optionalString,
  status: optionalString,
  details: lenientField(v.array(v.unknown())),
});
export type GoogleRpcStatus = v.InferOutput<typeof GoogleRpcStatus>;

/** The body: `{"error": google.rpc.Status}`. */
export const GoogleErrorBody = v.object({ error: GoogleRpcStatus });
export type GoogleErrorBody = v.InferOutput<typeof GoogleErrorBody>;

/** `google.rpc.ErrorInfo`: a machine `reason` such as `API_KEY_INVALID`, `SERVICE_DISABLED`. */
export const ErrorInfoDetail = v.object({
  reason: optionalString,
  domain: optionalString,
  metadata: optionalRecord,
});

/** `google.rpc.QuotaFailure`: which quota was spent; the quota ids tell a per-minute from a per-day cap. */
export const QuotaFailureDetail = v.object({
  violations: lenientField(
    v.array(
      v.object({
        quotaMetric: optionalString,
        quotaId: optionalString,
        quotaDimensions: optionalRecord,
        quotaValue: lenientField(v.union([v.string(), v.number()])),
        subject: optionalString,
        description: optionalString,
      }),
    ),
  ),
});

/** `google.rpc.RetryInfo`: `retryDelay` is a protobuf duration in JSON form, e.g. `"13s"`. */
export const RetryInfoDetail = v.object({ retryDelay: optionalString });

/** `google.rpc.BadRequest`: the request fields that were wrong. */
export const BadRequestDetail = v.object({
  fieldViolations: lenientField(v.array(v.object({ field: optionalString, description: optionalString }))),
});

/** `google.rpc.Help`: links only; read so that nothing else mistakes them for a message. */
export const HelpDetail = v.object({
  links: lenientField(v.array(v.object({ description: optionalString, url: optionalString }))),
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
export const GenerateContentAnswer = v.object({
  promptFeedback: lenientField(v.object({ blockReason: optionalString, blockReasonMessage: optionalString })),
  candidates: lenientField(
    v.array(v.fallback(v.object({ finishReason: optionalString, finishMessage: optionalString }), {})),
  ),
});
export type GenerateContentAnswer = v.InferOutput<typeof GenerateContentAnswer>;
