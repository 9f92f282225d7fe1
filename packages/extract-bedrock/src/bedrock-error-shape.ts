import * as v from 'valibot';

/**
 * Lenient schemas of what @aws-sdk/client-bedrock-runtime throws and answers with. Never
 * strict (`v.strictObject`): AWS adds fields without notice, and an extractor must keep working when it does.
 *
 * Sources: the Bedrock Runtime API reference (Converse, ConverseStream, InvokeModel "Errors"
 * sections, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html)
 * and the SDK's `ServiceException` (`@smithy/core` `ServiceException.isInstance`: `$fault` +
 * `$metadata`), observed in docs/contributing/sdk-surfaces.md section 5.
 */

/** A field that may be absent; one of the wrong type reads as absent. */
const optional = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);

/** `$metadata` of an AWS SDK v3 error (`ResponseMetadata`). All optional: transport errors carry only attempts. */
export const AwsResponseMetadata = v.looseObject({
  httpStatusCode: optional(v.pipe(v.number(), v.safeInteger())),
  requestId: optional(v.string()),
  extendedRequestId: optional(v.string()),
  cfId: optional(v.string()),
  attempts: optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  totalRetryDelay: optional(v.pipe(v.number(), v.minValue(0))),
});
export type AwsResponseMetadata = v.InferOutput<typeof AwsResponseMetadata>;

/**
 * A snapshot of a Bedrock service exception's readable fields (taken with safe readers first,
 * then parsed): `name` is the exception name (`ThrottlingException`, `UnrecognizedClientException`,
 * `Unknown`), `$fault` is `client`/`server`, and the modelled extras of ModelErrorException and
 * ModelStreamErrorException (`originalStatusCode`, `originalMessage`, `resourceName`).
 */
export const BedrockServiceExceptionSnapshot = v.looseObject({
  name: optional(v.string()),
  message: optional(v.string()),
  $fault: v.picklist(['client', 'server']),
  $metadata: optional(AwsResponseMetadata),
  __type: optional(v.string()),
  originalStatusCode: optional(v.pipe(v.number(), v.safeInteger())),
  originalMessage: optional(v.string()),
  resourceName: optional(v.string()),
});
export type BedrockServiceExceptionSnapshot = v.InferOutput<typeof BedrockServiceExceptionSnapshot>;

/**
 * The JSON payload of an event-stream exception frame (`:message-type: exception`), which the SDK
 * puts verbatim into `message` when it does not model the exception type:
 * `{"message":"...","originalStatusCode":500,"originalMessage":"..."}`.
 */
export const BedrockStreamExceptionPayload = v.looseObject({
  message: optional(v.string()),
  Message: optional(v.string()),
  originalStatusCode: optional(v.pipe(v.number(), v.safeInteger())),
  originalMessage: optional(v.string()),
});
export type BedrockStreamExceptionPayload = v.InferOutput<typeof BedrockStreamExceptionPayload>;

/**
 * A successful Converse / ConverseStream answer, as far as the blocked-answer detector needs it.
 * `stopReason` is `guardrail_intervened` when a guardrail blocked the answer and
 * `content_filtered` when the model's own filter did (Converse API reference, `StopReason`).
 */
export const BedrockConverseResult = v.looseObject({
  stopReason: optional(v.string()),
  $metadata: optional(AwsResponseMetadata),
});
export type BedrockConverseResult = v.InferOutput<typeof BedrockConverseResult>;

/**
 * The parts of an InvokeModel body that say the answer was withheld:
 * `"amazon-bedrock-guardrailAction": "INTERVENED"` (Guardrails user guide, "Use a guardrail with
 * InvokeModel"), Anthropic `stop_reason: "refusal"`, Amazon Nova `stopReason`
 * (`guardrail_intervened`/`content_filtered`, as in Converse), Amazon Titan Text
 * `results[].completionReason: "CONTENT_FILTERED"`.
 */
export const BedrockInvokeModelBody = v.looseObject({
  'amazon-bedrock-guardrailAction': optional(v.string()),
  stop_reason: optional(v.nullable(v.string())),
  stopReason: optional(v.nullable(v.string())),
  results: optional(
    v.array(v.fallback(v.looseObject({ completionReason: optional(v.nullable(v.string())) }), {})),
  ),
});
export type BedrockInvokeModelBody = v.InferOutput<typeof BedrockInvokeModelBody>;

/** Parses a stream exception payload; `undefined` for anything that is not such an object. */
export function parseStreamExceptionPayload(value: unknown): BedrockStreamExceptionPayload | undefined {
  const parsed = v.safeParse(BedrockStreamExceptionPayload, value);
  return parsed.success ? parsed.output : undefined;
}
