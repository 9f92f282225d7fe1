import { lenientField } from '@faultline/classify/toolkit';
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

/** `$metadata` of an AWS SDK v3 error (`ResponseMetadata`). All optional: transport errors carry only attempts. */
export const AwsResponseMetadata = v.looseObject({
  httpStatusCode: lenientField(v.pipe(v.number(), v.safeInteger())),
  requestId: lenientField(v.string()),
  extendedRequestId: lenientField(v.string()),
  cfId: lenientField(v.string()),
  attempts: lenientField(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  totalRetryDelay: lenientField(v.pipe(v.number(), v.minValue(0))),
});
export type AwsResponseMetadata = v.InferOutput<typeof AwsResponseMetadata>;

/**
 * A snapshot of a Bedrock service exception's readable fields (taken with safe readers first,
 * then parsed): `name` is the exception name (`ThrottlingException`, `UnrecognizedClientException`,
 * `Unknown`), `$fault` is `client`/`server`, and the modelled extras of ModelErrorException and
 * ModelStreamErrorException (`originalStatusCode`, `originalMessage`, `resourceName`).
 */
export const BedrockServiceExceptionSnapshot = v.looseObject({
  name: lenientField(v.string()),
  message: lenientField(v.string()),
  $fault: v.picklist(['client', 'server']),
  $metadata: lenientField(AwsResponseMetadata),
  __type: lenientField(v.string()),
  originalStatusCode: lenientField(v.pipe(v.number(), v.safeInteger())),
  originalMessage: lenientField(v.string()),
  resourceName: lenientField(v.string()),
});
export type BedrockServiceExceptionSnapshot = v.InferOutput<typeof BedrockServiceExceptionSnapshot>;

/**
 * The JSON payload of an event-stream exception frame (`:message-type: exception`), which the SDK
 * puts verbatim into `message` when it does not model the exception type:
 * `{"message":"...","originalStatusCode":500,"originalMessage":"..."}`.
 */
export const BedrockStreamExceptionPayload = v.looseObject({
  message: lenientField(v.string()),
  Message: lenientField(v.string()),
  originalStatusCode: lenientField(v.pipe(v.number(), v.safeInteger())),
  originalMessage: lenientField(v.string()),
});
export type BedrockStreamExceptionPayload = v.InferOutput<typeof BedrockStreamExceptionPayload>;

/**
 * A successful Converse / ConverseStream answer, as far as the blocked-answer detector needs it.
 * `stopReason` is `guardrail_intervened` when a guardrail blocked the answer and
 * `content_filtered` when the model's own filter did (Converse API reference, `StopReason`).
 */
export const BedrockConverseResult = v.looseObject({
  stopReason: lenientField(v.string()),
  $metadata: lenientField(AwsResponseMetadata),
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
  'amazon-bedrock-guardrailAction': lenientField(v.string()),
  stop_reason: lenientField(v.nullable(v.string())),
  stopReason: lenientField(v.nullable(v.string())),
  results: lenientField(
    v.array(v.fallback(v.looseObject({ completionReason: lenientField(v.nullable(v.string())) }), {})),
  ),
});
export type BedrockInvokeModelBody = v.InferOutput<typeof BedrockInvokeModelBody>;

/** Parses a stream exception payload; `undefined` for anything that is not such an object. */
export function parseStreamExceptionPayload(value: unknown): BedrockStreamExceptionPayload | undefined {
  const parsed = v.safeParse(BedrockStreamExceptionPayload, value);
  return parsed.success ? parsed.output : undefined;
}
