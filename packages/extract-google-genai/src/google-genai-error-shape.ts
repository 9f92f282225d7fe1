import * as z from 'zod/mini';

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

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);
const optionalString = optional(z.string());
const optionalNumber = optional(z.number());
const optionalRecord = optional(z.record(z.string(), z.unknown()));

/** `google.rpc.Status`: `code` (HTTP status), `message`, `status` (canonical code) and typed details. */
export const GoogleRpcStatus = z.object({
  code: optionalNumber,
  message: optionalString,
  status: optionalString,
  details: optional(z.array(z.unknown())),
});
export type GoogleRpcStatus = z.infer<typeof GoogleRpcStatus>;

/** The body: `{"error": google.rpc.Status}`. */
export const GoogleErrorBody = z.object({ error: GoogleRpcStatus });
export type GoogleErrorBody = z.infer<typeof GoogleErrorBody>;

/** `google.rpc.ErrorInfo`: a machine `reason` such as `API_KEY_INVALID`, `SERVICE_DISABLED`. */
export const ErrorInfoDetail = z.object({
  reason: optionalString,
  domain: optionalString,
  metadata: optionalRecord,
});

/** `google.rpc.QuotaFailure`: which quota was spent; the quota ids tell a per-minute from a per-day cap. */
export const QuotaFailureDetail = z.object({
  violations: optional(
    z.array(
      z.object({
        quotaMetric: optionalString,
        quotaId: optionalString,
        quotaDimensions: optionalRecord,
        quotaValue: optional(z.union([z.string(), z.number()])),
        subject: optionalString,
        description: optionalString,
      }),
    ),
  ),
});

/** `google.rpc.RetryInfo`: `retryDelay` is a protobuf duration in JSON form, e.g. `"13s"`. */
export const RetryInfoDetail = z.object({ retryDelay: optionalString });

/** `google.rpc.BadRequest`: the request fields that were wrong. */
export const BadRequestDetail = z.object({
  fieldViolations: optional(z.array(z.object({ field: optionalString, description: optionalString }))),
});

/** `google.rpc.Help`: links only; read so that nothing else mistakes them for a message. */
export const HelpDetail = z.object({
  links: optional(z.array(z.object({ description: optionalString, url: optionalString }))),
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
export const GenerateContentAnswer = z.object({
  promptFeedback: optional(z.object({ blockReason: optionalString, blockReasonMessage: optionalString })),
  candidates: optional(
    z.array(z.catch(z.object({ finishReason: optionalString, finishMessage: optionalString }), {})),
  ),
});
export type GenerateContentAnswer = z.infer<typeof GenerateContentAnswer>;
