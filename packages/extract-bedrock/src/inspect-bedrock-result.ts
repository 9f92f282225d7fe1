import type { ProviderErrorMetadata } from '@faultline/classify';
import { attachRawBody, safeGet, safeHasOwn, safeStatus, safeString } from '@faultline/classify/toolkit';
import * as v from 'valibot';
import { AwsResponseMetadata, BedrockConverseResult, BedrockInvokeModelBody } from './bedrock-error-shape.ts';
import { BEDROCK_PROVIDER } from './extract-bedrock.ts';

/** Converse `stopReason` values that mean the answer was withheld (Converse API reference, `StopReason`). */
export const BLOCKED_STOP_REASONS: ReadonlySet<string> = new Set([
  'guardrail_intervened',
  'content_filtered',
]);
/** The longest InvokeModel body this module decodes; longer bodies are not inspected. */
const MAX_INSPECTED_BODY_BYTES = 4 * 1024 * 1024;

function responseMetadataOf(result: unknown): AwsResponseMetadata | undefined {
  const value = safeGet(result, '$metadata');
  if (value === null || typeof value !== 'object') return undefined;
  const parsed = v.safeParse(AwsResponseMetadata, {
    httpStatusCode: safeGet(value, 'httpStatusCode'),
    requestId: safeGet(value, 'requestId'),
    attempts: safeGet(value, 'attempts'),
  });
  return parsed.success ? parsed.output : undefined;
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

/**
 * An InvokeModel output (its own `body` key next to `$metadata`) whose body is `null`: what the SDK
 * resolves with when a 200 ends before its first body byte (observed with a connection dropped
 * right after the headers, and with an empty 200).
 */
function isEmptyInvokeModelBody(result: unknown): boolean {
  return (
    safeHasOwn(result, 'body') &&
    safeGet(result, 'body') === null &&
    responseMetadataOf(result)?.httpStatusCode !== undefined
  );
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
 * Why an InvokeModel answer was withheld, in any model family's format: read from a whole body, and
 * by the stream guard from an InvokeModelWithResponseStream chunk put in the same shape.
 */
export function blockedInBody(
  body: BedrockInvokeModelBody,
): { message: string; blockReason: string } | undefined {
  const action = body['amazon-bedrock-guardrailAction'];
  if (action !== undefined && action.toUpperCase() === 'INTERVENED') {
    return {
      message: 'Bedrock withheld the answer (a guardrail intervened).',
      blockReason: 'guardrail_intervened',
    };
  }
  if (body.stop_reason === 'refusal') {
    return { message: 'The model declined to answer (stop_reason refusal).', blockReason: 'refusal' };
  }
  if (typeof body.stopReason === 'string' && BLOCKED_STOP_REASONS.has(body.stopReason)) {
    return {
      message: `Bedrock withheld the answer (stopReason ${body.stopReason}).`,
      blockReason: body.stopReason,
    };
  }
  if ((body.results ?? []).some((item) => item.completionReason === 'CONTENT_FILTERED')) {
    return {
      message: 'Bedrock withheld the answer (completionReason CONTENT_FILTERED).',
      blockReason: 'content_filtered',
    };
  }
  return undefined;
}

/**
 * A successful Converse/InvokeModel answer whose content a guardrail or the model's filter
 * withheld: Converse `stopReason` `guardrail_intervened`/`content_filtered`, or an InvokeModel
 * body with `"amazon-bedrock-guardrailAction": "INTERVENED"`, Anthropic `stop_reason: "refusal"`,
 * Nova `stopReason` as in Converse, or Titan `completionReason: "CONTENT_FILTERED"`. Returns `blocked_response`
 * metadata (classified as content_policy), or `undefined` for any other value. Total.
 */
export function detectBedrockBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  try {
    const converse = v.safeParse(BedrockConverseResult, { stopReason: safeGet(result, 'stopReason') });
    const stopReason = converse.success ? converse.output.stopReason : undefined;
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
    const body = v.safeParse(BedrockInvokeModelBody, parseBody(text));
    if (!body.success) return undefined;
    const blocked = blockedInBody(body.output);
    if (blocked === undefined) return undefined;
    const metadata = base(result, 'blocked_response', blocked.message, 'InvokeModelOutput');
    metadata.blockReason = blocked.blockReason;
    attachRawBody(metadata, text);
    return metadata;
  } catch {
    return undefined;
  }
}

/**
 * InvokeModel over h2 resolves with the bytes it had when the connection dropped mid-body
 * (docs/contributing/sdk-surfaces.md section 5): a JSON body that does not parse is a truncated answer, and
 * so is a `null` body (the connection dropped before the first byte).
 * Returns `malformed_response` metadata (classified as interrupted) or `undefined`. Total.
 */
export function detectTruncatedInvokeModelBody(result: unknown): ProviderErrorMetadata | undefined {
  try {
    if (!isJsonContentType(result)) return undefined;
    if (isEmptyInvokeModelBody(result)) {
      const metadata = base(
        result,
        'malformed_response',
        'Bedrock InvokeModel returned an empty body (the connection closed before the first byte).',
        'InvokeModelOutput',
      );
      metadata.networkPhase = 'response_body';
      return metadata;
    }
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
