import {
  attachRawBody,
  type ProviderErrorMetadata,
  safeGet,
  safeStatus,
  safeString,
} from '@faultline/classify';
import { AwsResponseMetadata, BedrockConverseResult, BedrockInvokeModelBody } from './bedrock-error-shape.ts';
import { BEDROCK_PROVIDER } from './extract-bedrock.ts';

/** Converse `stopReason` values that mean the answer was withheld (Converse API reference, `StopReason`). */
const BLOCKED_STOP_REASONS = new Set(['guardrail_intervened', 'content_filtered']);
/** The longest InvokeModel body this module decodes; longer bodies are not inspected. */
const MAX_INSPECTED_BODY_BYTES = 4 * 1024 * 1024;

function responseMetadataOf(result: unknown): AwsResponseMetadata | undefined {
  const value = safeGet(result, '$metadata');
  if (value === null || typeof value !== 'object') return undefined;
  const parsed = AwsResponseMetadata.safeParse({
    httpStatusCode: safeGet(value, 'httpStatusCode'),
    requestId: safeGet(value, 'requestId'),
    attempts: safeGet(value, 'attempts'),
  });
  return parsed.success ? parsed.data : undefined;
}

function base(
  result: unknown,
  origin: ProviderErrorMetadata['origin'],
  message: string,
  sdkErrorType: string,
): ProviderErrorMetadata {
  const metadata: ProviderErrorMetadata = { provider: BEDROCK_PROVIDER, message, origin, sdkErrorType };
  const responseMetadata = responseMetadataOf(result);
  const status = safeStatus(responseMetadata?.httpStatusCode);
  if (status !== undefined) metadata.statusCode = status;
  const requestId = safeString(responseMetadata?.requestId, 200);
  if (requestId !== undefined) metadata.requestId = requestId;
  if (responseMetadata?.attempts !== undefined) metadata.sdkAttempts = responseMetadata.attempts;
  return metadata;
}

/** The bytes of an InvokeModel `body` (a `Uint8Array`, the SDK's `Uint8ArrayBlobAdapter`), decoded. */
function invokeModelBodyText(result: unknown): string | undefined {
  const body = safeGet(result, 'body');
  if (!(body instanceof Uint8Array) || body.byteLength > MAX_INSPECTED_BODY_BYTES) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: false }).decode(body);
  } catch {
    return undefined;
  }
}

/** Parses JSON up to the inspected size (parseJsonSafely stops at 256 KB, too short for answers). */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isJsonContentType(result: unknown): boolean {
  const contentType = safeString(safeGet(result, 'contentType'), 200);
  return contentType === undefined || /json/i.test(contentType);
}

/**
 * A successful Converse/InvokeModel answer whose content a guardrail or the model's filter
 * withheld: Converse `stopReason` `guardrail_intervened`/`content_filtered`, or an InvokeModel
 * body with `"amazon-bedrock-guardrailAction": "INTERVENED"`. Returns `blocked_response`
 * metadata (classified as content_policy), or `undefined` for any other value. Total.
 */
export function detectBedrockBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  try {
    const converse = BedrockConverseResult.safeParse({ stopReason: safeGet(result, 'stopReason') });
    const stopReason = converse.success ? converse.data.stopReason : undefined;
    if (stopReason !== undefined && BLOCKED_STOP_REASONS.has(stopReason)) {
      const metadata = base(
        result,
        'blocked_response',
        `Bedrock withheld the answer (stopReason ${stopReason}).`,
        'ConverseOutput',
      );
      metadata.blockReason = stopReason;
      return metadata;
    }
    if (!isJsonContentType(result)) return undefined;
    const text = invokeModelBodyText(result);
    if (text === undefined) return undefined;
    const body = BedrockInvokeModelBody.safeParse(parseBody(text));
    if (!body.success) return undefined;
    const action = body.data['amazon-bedrock-guardrailAction'];
    if (action !== undefined && action.toUpperCase() === 'INTERVENED') {
      const metadata = base(
        result,
        'blocked_response',
        'Bedrock withheld the answer (a guardrail intervened).',
        'InvokeModelOutput',
      );
      metadata.blockReason = 'guardrail_intervened';
      attachRawBody(metadata, text);
      return metadata;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * InvokeModel over h2 resolves with the bytes it had when the connection dropped mid-body
 * (shared/sdk-surfaces.md section 5): a JSON body that does not parse is a truncated answer.
 * Returns `malformed_response` metadata (classified as interrupted) or `undefined`. Total.
 */
export function detectTruncatedInvokeModelBody(result: unknown): ProviderErrorMetadata | undefined {
  try {
    if (!isJsonContentType(result)) return undefined;
    const text = invokeModelBodyText(result);
    if (text === undefined) return undefined;
    const trimmed = text.trim();
    if (trimmed.length > 0 && parseBody(trimmed) !== undefined) return undefined;
    const metadata = base(
      result,
      'malformed_response',
      `Bedrock InvokeModel returned a JSON body that is cut short (${text.length} characters).`,
      'InvokeModelOutput',
    );
    metadata.networkPhase = 'response_body';
    attachRawBody(metadata, text);
    return metadata;
  } catch {
    return undefined;
  }
}

/**
 * The `inspectResult` hook for `withClassifiedErrors`: a withheld answer (content_policy) or a
 * truncated InvokeModel body (interrupted), else `undefined`.
 */
export function inspectBedrockResult(result: unknown): ProviderErrorMetadata | undefined {
  return detectBedrockBlockedAnswer(result) ?? detectTruncatedInvokeModelBody(result);
}
