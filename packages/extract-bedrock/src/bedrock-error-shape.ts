import { type Infer, lenient } from '@faultline/classify/toolkit';

// Zod-free lenient readers (the toolkit's `lenient`, zod's API for the combinators used here):
// STYLE asks for lenient zod schemas in a shape file, but issue 17's import goal overrides it
// (zod alone costs about 60 ms to import). bedrock-error-shape.test.ts holds each reader equal to
// the zod schema it replaced, verdict and output.

/**
 * Lenient schemas of what @aws-sdk/client-bedrock-runtime throws and answers with. Never
 * `.strict()`: AWS adds fields without notice, and an extractor must keep working when it does.
 *
 * Sources: the Bedrock Runtime API reference (Converse, ConverseStream, InvokeModel "Errors"
 * sections, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html)
 * and the SDK's `ServiceException` (`@smithy/core` `ServiceException.isInstance`: `$fault` +
 * `$metadata`), observed in docs/contributing/sdk-surfaces.md section 5.
 */

/** `$metadata` of an AWS SDK v3 error (`ResponseMetadata`). All optional: transport errors carry only attempts. */
export const AwsResponseMetadata = lenient.looseObject({
  httpStatusCode: lenient.integer().optional().catch(undefined),
  requestId: lenient.string().optional().catch(undefined),
  extendedRequestId: lenient.string().optional().catch(undefined),
  cfId: lenient.string().optional().catch(undefined),
  attempts: lenient.integer(true).optional().catch(undefined),
  totalRetryDelay: lenient.nonNegativeNumber().optional().catch(undefined),
});
export type AwsResponseMetadata = Infer<typeof AwsResponseMetadata>;

/**
 * A snapshot of a Bedrock service exception's readable fields (taken with safe readers first,
 * then parsed): `name` is the exception name (`ThrottlingException`, `UnrecognizedClientException`,
 * `Unknown`), `$fault` is `client`/`server`, and the modelled extras of ModelErrorException and
 * ModelStreamErrorException (`originalStatusCode`, `originalMessage`, `resourceName`).
 */
export const BedrockServiceExceptionSnapshot = lenient.looseObject({
  name: lenient.string().optional().catch(undefined),
  message: lenient.string().optional().catch(undefined),
  $fault: lenient.enum(['client', 'server']),
  $metadata: AwsResponseMetadata.optional().catch(undefined),
  __type: lenient.string().optional().catch(undefined),
  originalStatusCode: lenient.integer().optional().catch(undefined),
  originalMessage: lenient.string().optional().catch(undefined),
  resourceName: lenient.string().optional().catch(undefined),
});
export type BedrockServiceExceptionSnapshot = Infer<typeof BedrockServiceExceptionSnapshot>;

/**
 * The JSON payload of an event-stream exception frame (`:message-type: exception`), which the SDK
 * puts verbatim into `message` when it does not model the exception type:
 * `{"message":"...","originalStatusCode":500,"originalMessage":"..."}`.
 */
export const BedrockStreamExceptionPayload = lenient.looseObject({
  message: lenient.string().optional().catch(undefined),
  Message: lenient.string().optional().catch(undefined),
  originalStatusCode: lenient.integer().optional().catch(undefined),
  originalMessage: lenient.string().optional().catch(undefined),
});
export type BedrockStreamExceptionPayload = Infer<typeof BedrockStreamExceptionPayload>;

/**
 * A successful Converse / ConverseStream answer, as far as the blocked-answer detector needs it.
 * `stopReason` is `guardrail_intervened` when a guardrail blocked the answer and
 * `content_filtered` when the model's own filter did (Converse API reference, `StopReason`).
 */
export const BedrockConverseResult = lenient.looseObject({
  stopReason: lenient.string().optional().catch(undefined),
  $metadata: AwsResponseMetadata.optional().catch(undefined),
});
export type BedrockConverseResult = Infer<typeof BedrockConverseResult>;

/**
 * The parts of an InvokeModel body that say the answer was withheld:
 * `"amazon-bedrock-guardrailAction": "INTERVENED"` (Guardrails user guide, "Use a guardrail with
 * InvokeModel"), Anthropic `stop_reason: "refusal"`, Amazon Nova `stopReason`
 * (`guardrail_intervened`/`content_filtered`, as in Converse), Amazon Titan Text
 * `results[].completionReason: "CONTENT_FILTERED"`.
 */
export const BedrockInvokeModelBody = lenient.looseObject({
  'amazon-bedrock-guardrailAction': lenient.string().optional().catch(undefined),
  stop_reason: lenient.string().nullable().optional().catch(undefined),
  stopReason: lenient.string().nullable().optional().catch(undefined),
  results: lenient
    .array(
      lenient
        .looseObject({ completionReason: lenient.string().nullable().optional().catch(undefined) })
        .catch({}),
    )
    .optional()
    .catch(undefined),
});
export type BedrockInvokeModelBody = Infer<typeof BedrockInvokeModelBody>;

/** Parses a stream exception payload; `undefined` for anything that is not such an object. */
export function parseStreamExceptionPayload(value: unknown): BedrockStreamExceptionPayload | undefined {
  const parsed = BedrockStreamExceptionPayload.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
