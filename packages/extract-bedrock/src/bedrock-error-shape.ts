import * as z from 'zod/mini';

/**
 * Lenient schemas of what @aws-sdk/client-bedrock-runtime throws and answers with. Never
 * `.strict()`: AWS adds fields without notice, and an extractor must keep working when it does.
 *
 * Sources: the Bedrock Runtime API reference (Converse, ConverseStream, InvokeModel "Errors"
 * sections, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html)
 * and the SDK's `ServiceException` (`@smithy/core` `ServiceException.isInstance`: `$fault` +
 * `$metadata`), observed in docs/contributing/sdk-surfaces.md section 5.
 */

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

/** `$metadata` of an AWS SDK v3 error (`ResponseMetadata`). All optional: transport errors carry only attempts. */
export const AwsResponseMetadata = z.looseObject({
  httpStatusCode: optional(z.int()),
  requestId: optional(z.string()),
  extendedRequestId: optional(z.string()),
  cfId: optional(z.string()),
  attempts: optional(z.int().check(z.nonnegative())),
  totalRetryDelay: optional(z.number().check(z.nonnegative())),
});
export type AwsResponseMetadata = z.infer<typeof AwsResponseMetadata>;

/**
 * A snapshot of a Bedrock service exception's readable fields (taken with safe readers first,
 * then parsed): `name` is the exception name (`ThrottlingException`, `UnrecognizedClientException`,
 * `Unknown`), `$fault` is `client`/`server`, and the modelled extras of ModelErrorException and
 * ModelStreamErrorException (`originalStatusCode`, `originalMessage`, `resourceName`).
 */
export const BedrockServiceExceptionSnapshot = z.looseObject({
  name: optional(z.string()),
  message: optional(z.string()),
  $fault: z.enum(['client', 'server']),
  $metadata: optional(AwsResponseMetadata),
  __type: optional(z.string()),
  originalStatusCode: optional(z.int()),
  originalMessage: optional(z.string()),
  resourceName: optional(z.string()),
});
export type BedrockServiceExceptionSnapshot = z.infer<typeof BedrockServiceExceptionSnapshot>;

/**
 * The JSON payload of an event-stream exception frame (`:message-type: exception`), which the SDK
 * puts verbatim into `message` when it does not model the exception type:
 * `{"message":"...","originalStatusCode":500,"originalMessage":"..."}`.
 */
export const BedrockStreamExceptionPayload = z.looseObject({
  message: optional(z.string()),
  Message: optional(z.string()),
  originalStatusCode: optional(z.int()),
  originalMessage: optional(z.string()),
});
export type BedrockStreamExceptionPayload = z.infer<typeof BedrockStreamExceptionPayload>;

/**
 * A successful Converse / ConverseStream answer, as far as the blocked-answer detector needs it.
 * `stopReason` is `guardrail_intervened` when a guardrail blocked the answer and
 * `content_filtered` when the model's own filter did (Converse API reference, `StopReason`).
 */
export const BedrockConverseResult = z.looseObject({
  stopReason: optional(z.string()),
  $metadata: optional(AwsResponseMetadata),
});
export type BedrockConverseResult = z.infer<typeof BedrockConverseResult>;

/**
 * The parts of an InvokeModel body that say the answer was withheld:
 * `"amazon-bedrock-guardrailAction": "INTERVENED"` (Guardrails user guide, "Use a guardrail with
 * InvokeModel"), Anthropic `stop_reason: "refusal"`, Amazon Nova `stopReason`
 * (`guardrail_intervened`/`content_filtered`, as in Converse), Amazon Titan Text
 * `results[].completionReason: "CONTENT_FILTERED"`.
 */
export const BedrockInvokeModelBody = z.looseObject({
  'amazon-bedrock-guardrailAction': optional(z.string()),
  stop_reason: optional(z.nullable(z.string())),
  stopReason: optional(z.nullable(z.string())),
  results: optional(
    z.array(z.catch(z.looseObject({ completionReason: optional(z.nullable(z.string())) }), {})),
  ),
});
export type BedrockInvokeModelBody = z.infer<typeof BedrockInvokeModelBody>;

/** Parses a stream exception payload; `undefined` for anything that is not such an object. */
export function parseStreamExceptionPayload(value: unknown): BedrockStreamExceptionPayload | undefined {
  const parsed = BedrockStreamExceptionPayload.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
