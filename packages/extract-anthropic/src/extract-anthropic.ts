import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
  RateLimitBudget,
} from '@faultline/classify';
import {
  attachRawBody,
  attachRawJsonBody,
  causeChain,
  checkOptionKeys,
  defineExtractor,
  HTTP_FAILURE_READ_OPTION_KEYS,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  type RateLimitHeaderNames,
  readHeader,
  readRateLimitBudget,
  safeGet,
  safeStatus,
  safeString,
} from '@faultline/classify/toolkit';
import {
  isStainlessApiError,
  jsonText,
  messageWithoutBody,
  readAnsweredHeaders,
  readStainlessContext,
  type StainlessAnswer,
  sdkConditionMetadata,
  stainlessAnswerOf,
  stainlessErrorType,
  stainlessRawDropMetadata,
  stainlessTransportMetadata,
  textBodyOf,
} from '@faultline/stainless';
import * as v from 'valibot';
import {
  type AnthropicErrorBody,
  AnthropicMessageResult,
  parseAnthropicErrorBody,
} from './anthropic-error-shape.ts';
import { platformCredentialsUnresolved, platformPlaceMissing } from './platform-conditions.ts';

/** The provider key every metadata from this package carries. */
export const ANTHROPIC_PROVIDER = 'anthropic';

/** The headers Anthropic states a key's rate-limit budget in (`anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`, resets as RFC 3339 times). */
export const ANTHROPIC_RATE_LIMIT_HEADERS: RateLimitHeaderNames = {
  requests: {
    limit: 'anthropic-ratelimit-requests-limit',
    remaining: 'anthropic-ratelimit-requests-remaining',
    reset: 'anthropic-ratelimit-requests-reset',
  },
  // The most restrictive token limit in effect (Anthropic also sends input- and output-token ones).
  tokens: {
    limit: 'anthropic-ratelimit-tokens-limit',
    remaining: 'anthropic-ratelimit-tokens-remaining',
    reset: 'anthropic-ratelimit-tokens-reset',
  },
};

/**
 * The rate-limit budget an answer's headers state, from the headers or from what holds them (a
 * `Response`, the SDK's `withResponse()` result, an SDK error); `undefined` when none is there.
 */
export function readAnthropicRateLimit(
  source: unknown,
  now: number = Date.now(),
): RateLimitBudget | undefined {
  return readRateLimitBudget(source, ANTHROPIC_RATE_LIMIT_HEADERS, now);
}

/**
 * The SDK's own words (0.39 to 1.12, observed) when neither `apiKey` nor `authToken` is set:
 * "Could not resolve authentication method. Expected either apiKey or authToken to be set. ..."
 * Recognised here and passed to classify as `sdkCondition: 'missing_credentials'`.
 */
const MISSING_CREDENTIALS =
  /^Could not resolve authentication method\. Expected (either apiKey|one of apiKey)/;

const FOREIGN_SDK_BASES = new Set(['OpenAIError', 'GroqError', 'MistralError', 'ApiError']);
const ANTHROPIC_HEADER_PREFIXES = [
  'anthropic-ratelimit-',
  'anthropic-organization-id',
  'anthropic-workspace-id',
];

function hasKey(value: unknown, key: string): boolean {
  if (value === null || typeof value !== 'object') return false;
  try {
    return key in value;
  } catch {
    return false;
  }
}

function hasAnthropicHeaders(headers: unknown): boolean {
  if (readHeader(headers, 'request-id') !== undefined) return true;
  for (const name of ['anthropic-organization-id', 'anthropic-workspace-id']) {
    if (readHeader(headers, name) !== undefined) return true;
  }
  try {
    const forEachKeys: string[] = [];
    const keys = safeGet(headers, 'keys');
    if (typeof keys === 'function') {
      for (const key of (keys as () => Iterable<string>).call(headers)) {
        forEachKeys.push(String(key));
        if (forEachKeys.length > 200) break;
      }
    } else if (headers !== null && typeof headers === 'object') {
      forEachKeys.push(...Object.keys(headers).slice(0, 200));
    }
    return forEachKeys.some((key) =>
      ANTHROPIC_HEADER_PREFIXES.some((prefix) => key.toLowerCase().startsWith(prefix)),
    );
  } catch {
    return false;
  }
}

/** `Error("SSE Error: {json}")`: how @anthropic-ai/sdk 0.39 reports an in-stream `event: error`. */
function sseErrorBody(chain: unknown[]): AnthropicErrorBody | undefined {
  for (const link of chain) {
    const message = messageOf(link, 256 * 1024);
    const match = /^SSE Error: ([\s\S]*)$/.exec(message);
    if (match?.[1] !== undefined) return parseAnthropicErrorBody(parseJsonSafely(match[1]));
  }
  return undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) {
    const text = safeString(value, 256);
    if (text !== undefined && text.length > 0) return text;
  }
  return undefined;
}

/** Metadata for an error the provider answered (HTTP status or an in-stream error event). */
function providerMetadata(
  error: unknown,
  body: AnthropicErrorBody | undefined,
  origin: 'http' | 'stream_event',
  status: number | undefined,
  now: number,
): ProviderErrorMetadata {
  return answeredMetadata(
    {
      status,
      headers: safeGet(error, 'headers'),
      error: safeGet(error, 'error'),
      message: messageOf(error),
    },
    stainlessErrorType(error),
    error,
    body,
    origin,
    now,
  );
}

/**
 * The rules for an answered failure, shared by the SDK path and {@link readAnthropicHttpFailure}.
 * `source` is the SDK's error (its own fields `requestID`, `type`, `errorCode`, `apiMessage`);
 * undefined for a raw response.
 */
function answeredMetadata(
  failure: StainlessAnswer,
  sdkErrorType: string | undefined,
  source: unknown,
  body: AnthropicErrorBody | undefined,
  origin: 'http' | 'stream_event',
  now: number,
): ProviderErrorMetadata {
  const { status, headers, message: sdkMessage } = failure;
  const innerMessage = body?.error.message;
  const apiMessage =
    safeString(innerMessage) ??
    (innerMessage !== undefined ? safeString(jsonText(innerMessage)) : undefined) ??
    safeString(safeGet(source, 'apiMessage'));
  const metadata: ProviderErrorMetadata = {
    provider: ANTHROPIC_PROVIDER,
    message:
      apiMessage !== undefined && apiMessage.trim().length > 0
        ? apiMessage
        : messageWithoutBody(sdkMessage, status),
    origin,
  };
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  if (status !== undefined) metadata.statusCode = status;
  // Anthropic's header is `request-id`; its error body repeats it as `request_id`.
  readAnsweredHeaders(metadata, source, headers, now, {
    requestIdHeaders: ['request-id'],
    requestIdCandidates: [body?.request_id],
    rateLimitHeaders: ANTHROPIC_RATE_LIMIT_HEADERS,
  });
  const providerType = firstString(body?.error.type, safeGet(source, 'type'));
  if (providerType !== undefined) metadata.providerType = providerType;
  const providerCode = firstString(body?.error.details?.error_code, safeGet(source, 'errorCode'));
  if (providerCode !== undefined) metadata.providerCode = providerCode;
  const errorField = failure.error;
  // The SDK's parsed body is written as JSON text on first read only (the error retains no more than the SDK error).
  if (body !== undefined) attachRawJsonBody(metadata, body);
  else if (errorField !== null && typeof errorField === 'object') attachRawJsonBody(metadata, errorField);
  else {
    const raw = textBodyOf(sdkMessage, status);
    if (raw !== undefined) attachRawBody(metadata, raw);
  }
  return metadata;
}

/**
 * Reads an Anthropic HTTP failure seen by any transport: the AI SDK's `APICallError`, LangChain,
 * a raw `fetch`. The body is read as @anthropic-ai/sdk reads it (the whole JSON body is
 * `APIError.error`; without JSON the message is "<status> <body text>"), then the same rules as
 * {@link anthropicExtractor} apply. Total: any status, headers or body.
 */
export function readAnthropicHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const answer = stainlessAnswerOf(response, (json) => json);
  return answeredMetadata(
    answer,
    options.sdkErrorType,
    undefined,
    parseAnthropicErrorBody(answer.error),
    answer.status === undefined ? 'stream_event' : 'http',
    options.now ?? Date.now(),
  );
}

/**
 * Reads whatever `@anthropic-ai/sdk` (0.3x to 1.x) throws: the Stainless `APIError` family (HTTP
 * errors, in-stream `event: error`, connection errors, timeouts, user aborts) and the raw
 * transport errors it lets through (undici `TypeError: terminated`, node-fetch `Premature close`).
 * Duck-typed; returns `undefined` for errors of other SDKs and for errors of the caller's code.
 */
export const anthropicExtractor: Extractor = defineExtractor({
  provider: ANTHROPIC_PROVIDER,
  extract(error, extractContext) {
    if (error === null || typeof error !== 'object') return undefined;
    const context = readStainlessContext(extractContext);
    const names = prototypeNames(error);
    if (names.some((name) => FOREIGN_SDK_BASES.has(name))) return undefined;

    if (!isStainlessApiError(error)) {
      // Every major throws a plain Error when no key or token is configured, before any request.
      const plainMessage = messageOf(error, 1000);
      if (MISSING_CREDENTIALS.test(plainMessage)) {
        return sdkConditionMetadata(error, ANTHROPIC_PROVIDER, plainMessage, 'missing_credentials');
      }
      // AnthropicVertex / AnthropicBedrock that cannot tell where to send the call.
      const placeMissing = platformPlaceMissing(error, plainMessage, ANTHROPIC_PROVIDER);
      if (placeMissing !== undefined) return placeMissing;
      // A raw transport drop (undici `TypeError: terminated`, node-fetch `Premature close`) carries
      // no SDK's mark: render's built-in transport reader reads it without naming an SDK that may
      // not have thrown it. Anthropic SDK errors that are not API errors (e.g. a consumed stream)
      // carry the AnthropicError base, and a transport cause of theirs is the SDK's.
      if (!names.includes('AnthropicError')) return undefined;
      const drop = stainlessRawDropMetadata(error, ANTHROPIC_PROVIDER, context);
      if (drop !== undefined) return drop;
      const metadata: ProviderErrorMetadata = {
        provider: ANTHROPIC_PROVIDER,
        message: messageOf(error),
        origin: 'validation',
      };
      const sdkErrorType = stainlessErrorType(error);
      if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
      return metadata;
    }

    const status = safeStatus(safeGet(error, 'status'));
    const headers = safeGet(error, 'headers');
    const body = parseAnthropicErrorBody(safeGet(error, 'error'));
    const chain = causeChain(error, 8);
    const sseBody = status === undefined && body === undefined ? sseErrorBody(chain.slice(1)) : undefined;
    const anthropicEvidence =
      names.includes('AnthropicError') ||
      body !== undefined ||
      sseBody !== undefined ||
      hasKey(error, 'apiMessage') ||
      hasKey(error, 'workspaceID') ||
      hasAnthropicHeaders(headers);
    if (!anthropicEvidence) return undefined;

    if (status !== undefined) return providerMetadata(error, body, 'http', status, context.now);
    if (body !== undefined) return providerMetadata(error, body, 'stream_event', undefined, context.now);
    if (sseBody !== undefined)
      return providerMetadata(error, sseBody, 'stream_event', undefined, context.now);
    return (
      platformCredentialsUnresolved(error, ANTHROPIC_PROVIDER) ??
      stainlessTransportMetadata(error, ANTHROPIC_PROVIDER, context.signal)
    );
  },
});

/**
 * Turns a successful Messages API answer that the model refused (`stop_reason: "refusal"`) into
 * blocked-answer metadata (classified as content_policy). Returns `undefined` for any other value,
 * including streams and answers that stopped for another reason. Total: never throws.
 */
export function detectAnthropicRefusal(result: unknown): ProviderErrorMetadata | undefined {
  try {
    if (result === null || typeof result !== 'object') return undefined;
    const parsed = v.safeParse(AnthropicMessageResult, result);
    if (!parsed.success || parsed.output.stop_reason !== 'refusal') return undefined;
    const metadata: ProviderErrorMetadata = {
      provider: ANTHROPIC_PROVIDER,
      message: 'The model declined to answer (stop_reason "refusal").',
      origin: 'blocked_response',
      blockReason: 'refusal',
      statusCode: 200,
    };
    const requestId = firstString(safeGet(result, '_request_id'));
    if (requestId !== undefined) metadata.requestId = requestId;
    return metadata;
  } catch {
    return undefined;
  }
}
