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
  checkOptionKeys,
  constructorName,
  defineExtractor,
  HTTP_FAILURE_READ_OPTION_KEYS,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  type RateLimitHeaderNames,
  readRateLimitBudget,
  safeGet,
  safeHasOwn,
  safeStatus,
  safeString,
  X_RATELIMIT_HEADERS,
} from '@faultline/classify/toolkit';
import {
  isSdkWrapper,
  isStainlessApiError,
  jsonText,
  messageWithoutBody,
  readAnsweredHeaders,
  readStainlessContext,
  type StainlessAnswer,
  type StainlessContext,
  sdkConditionMetadata,
  stainlessAnswerOf,
  stainlessRawDropMetadata,
  stainlessTransportMetadata,
  textBodyOf,
} from '@faultline/stainless';
import * as v from 'valibot';
import {
  ChatCompletionLike,
  OpenAIInnerError,
  type OpenAIInnerError as OpenAIInnerErrorType,
  ResponseLike,
  UpstreamErrorBody,
} from './openai-error-shape.ts';

/** The provider key this package reports. */
export const OPENAI_PROVIDER = 'openai';

/** The headers OpenAI states a key's rate-limit budget in (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as durations: "1s", "6m0s", "20ms"). */
export const OPENAI_RATE_LIMIT_HEADERS: RateLimitHeaderNames = X_RATELIMIT_HEADERS;

/**
 * The rate-limit budget an answer's headers state, from the headers or from what holds them (a
 * `Response`, the SDK's `withResponse()` result, an SDK error); `undefined` when none is there.
 */
export function readOpenAIRateLimit(source: unknown, now: number = Date.now()): RateLimitBudget | undefined {
  return readRateLimitBudget(source, OPENAI_RATE_LIMIT_HEADERS, now);
}

const MAX_MESSAGE_LENGTH = 2000;

/** Where OpenAI (`x-request-id`) and Azure OpenAI (`apim-request-id`) put the request id. */
const OPENAI_REQUEST_ID_HEADERS = ['x-request-id', 'apim-request-id'];

/**
 * An openai `APIError` (any major, any copy): its own keys `status`, `headers` and `error` are
 * present (undefined on transport errors) together with `code`, `param` and `type`, which the
 * openai SDK copies from the inner error. groq-sdk and @anthropic-ai/sdk errors have the first
 * three but not `code` and `param`, so they are left to their own extractors.
 */
function isOpenAIApiError(error: unknown): boolean {
  if (!isStainlessApiError(error)) return false;
  if (safeHasOwn(error, 'code') && safeHasOwn(error, 'param') && safeHasOwn(error, 'type')) return true;
  return prototypeNames(error).includes('OpenAIError');
}

/** A non-HTTP `OpenAIError` (content-filter/length finish errors of `parse()`, SDK misuse). */
function isOtherOpenAIError(error: unknown): boolean {
  return prototypeNames(error).includes('OpenAIError');
}

function text(value: unknown, maxLength = MAX_MESSAGE_LENGTH): string | undefined {
  const string = safeString(value, maxLength);
  return string !== undefined && string.trim().length > 0 ? string : undefined;
}

function readInnerError(value: unknown): OpenAIInnerErrorType | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const parsed = v.safeParse(OpenAIInnerError, value);
  return parsed.success ? parsed.output : undefined;
}

interface Upstream {
  message?: string;
  code?: string;
  type?: string;
  status?: number;
}

/** OpenRouter's `metadata.raw`: the upstream provider's error, as JSON text, an object or prose. */
function readUpstream(raw: unknown): Upstream | undefined {
  const value = typeof raw === 'string' ? (parseJsonSafely(raw) ?? raw) : raw;
  if (typeof value === 'string') {
    const message = text(value, 1000);
    return message === undefined ? undefined : { message };
  }
  const parsed = v.safeParse(UpstreamErrorBody, value);
  if (!parsed.success) return undefined;
  const inner: OpenAIInnerErrorType =
    'error' in parsed.output && parsed.output.error !== null && typeof parsed.output.error === 'object'
      ? (parsed.output.error as OpenAIInnerErrorType)
      : (parsed.output as OpenAIInnerErrorType);
  const upstream: Upstream = {};
  const message = text(inner.message, 1000) ?? text(jsonText(inner.message), 1000);
  if (message !== undefined) upstream.message = message;
  if (typeof inner.code === 'string' && inner.code.length > 0) upstream.code = inner.code;
  const status = safeStatus(inner.code) ?? safeStatus(inner.status);
  if (status !== undefined) upstream.status = status;
  if (typeof inner.type === 'string' && inner.type.length > 0) upstream.type = inner.type;
  return upstream;
}

/** Azure's `content_filter_result`: the categories that were filtered, e.g. `content_filter: hate`. */
function azureBlockReason(inner: OpenAIInnerErrorType): string | undefined {
  const result = inner.innererror?.content_filter_result;
  if (result === null || result === undefined) return undefined;
  const filtered = Object.keys(result)
    .slice(0, 20)
    .filter((category) => safeGet(safeGet(result, category), 'filtered') === true);
  return filtered.length > 0 ? `content_filter: ${filtered.join(', ')}` : 'content_filter';
}

/** OpenRouter's moderation refusal: `metadata.reasons` (categories) or `metadata.flagged_input`. */
function moderationBlockReason(inner: OpenAIInnerErrorType): string | undefined {
  const metadata = inner.metadata;
  if (metadata === null || metadata === undefined) return undefined;
  const reasons = (metadata.reasons ?? []).filter((reason) => typeof reason === 'string').slice(0, 10);
  if (reasons.length > 0) return `moderation: ${reasons.join(', ').slice(0, 200)}`;
  return typeof metadata.flagged_input === 'string' ? 'moderation' : undefined;
}

/**
 * An `APIError` with an HTTP status, or a stream error event (status undefined, inner error set):
 * its `status`, `headers`, `error` (the body's `error` member) and message.
 */
function fromApiError(error: unknown, now: number, streamEvent: boolean): ProviderErrorMetadata {
  return answeredFailureMetadata(
    {
      status: streamEvent ? undefined : safeStatus(safeGet(error, 'status')),
      headers: safeGet(error, 'headers'),
      error: safeGet(error, 'error'),
      message: messageOf(error, MAX_MESSAGE_LENGTH),
    },
    constructorName(error),
    error,
    now,
    streamEvent,
  );
}

/** The rules for an answered failure, shared by the SDK path and {@link readOpenAIHttpFailure}. */
function answeredFailureMetadata(
  failure: StainlessAnswer,
  sdkErrorType: string | undefined,
  source: unknown,
  now: number,
  streamEvent: boolean,
): ProviderErrorMetadata {
  const { status, headers, error: innerValue, message: sdkMessage } = failure;
  const inner = readInnerError(innerValue);

  let message =
    text(inner?.message) ??
    (inner?.message !== undefined ? text(jsonText(inner.message)) : undefined) ??
    text(safeGet(inner, 'detail')) ??
    messageWithoutBody(sdkMessage, status);
  let providerCode = typeof inner?.code === 'string' && inner.code.length > 0 ? inner.code : undefined;
  let providerType = text(inner?.type, 200) ?? text(inner?.innererror?.code, 200);
  let statusCode = status;

  const upstream = readUpstream(inner?.metadata?.raw);
  if (upstream !== undefined) {
    const providerName = text(inner?.metadata?.provider_name, 100);
    if (upstream.message !== undefined && upstream.message !== message) {
      message = `${message} (${providerName ?? 'upstream'}: ${upstream.message})`;
    }
    providerCode ??= upstream.code;
    providerType ??= upstream.type;
  }
  // In a 200 stream an OpenRouter error chunk carries the upstream HTTP status as `error.code`.
  if (streamEvent) statusCode = safeStatus(inner?.code) ?? upstream?.status;
  if (statusCode !== undefined && statusCode < 400) statusCode = undefined;

  const metadata: ProviderErrorMetadata = {
    provider: OPENAI_PROVIDER,
    message: message.slice(0, MAX_MESSAGE_LENGTH),
    origin: streamEvent ? 'stream_event' : 'http',
  };
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  if (statusCode !== undefined) metadata.statusCode = statusCode;
  // Azure OpenAI sends its request id as `apim-request-id`.
  readAnsweredHeaders(metadata, source, headers, now, {
    requestIdHeaders: OPENAI_REQUEST_ID_HEADERS,
    rateLimitHeaders: OPENAI_RATE_LIMIT_HEADERS,
  });
  if (providerCode !== undefined) metadata.providerCode = providerCode.slice(0, 200);
  if (providerType !== undefined) metadata.providerType = providerType;
  const param = text(inner?.param, 200);
  if (param !== undefined) metadata.providerParam = param;
  if (inner !== undefined) {
    const blockReason = azureBlockReason(inner) ?? moderationBlockReason(inner);
    if (blockReason !== undefined) metadata.blockReason = blockReason;
    // OpenRouter's ModerationErrorMetadata (`reasons`, `flagged_input`) is its structured signal
    // that moderation refused the input; `flagged_input` (prompt text) is never copied.
    if (metadata.providerType === undefined && blockReason?.startsWith('moderation')) {
      metadata.providerType = 'moderation';
    }
  }
  // The SDK's parsed body is written as JSON text on first read only (the error retains no more than the SDK error).
  if (innerValue !== undefined) attachRawJsonBody(metadata, innerValue);
  else {
    const raw = textBodyOf(sdkMessage, status);
    if (raw !== undefined && raw.length > 0) attachRawBody(metadata, raw);
  }
  return metadata;
}

/**
 * Reads an OpenAI (or OpenAI-compatible: Azure OpenAI, OpenRouter, DeepSeek, Together) HTTP
 * failure seen by any transport: the AI SDK's `APICallError`, LangChain, a raw `fetch`. The body
 * is read the way the openai SDK reads it (`APIError.generate`: the inner error is the body's
 * `error` member; without JSON the message is "<status> <body text>"), then the same rules as
 * {@link openaiExtractor} apply. Total: any status, headers or body.
 */
export function readOpenAIHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  // openai keeps the body's `error` member as `APIError.error` (APIError.generate, every major);
  // openai 7 first puts a JSON object body without one under `error` (`makeStatusError`), so a
  // compatible server's own shape (`detail`, `errors`, a bare `message`) is read, not dropped.
  const answer = stainlessAnswerOf(response, (json) => {
    const inner = safeGet(json, 'error');
    return inner == null && json !== null && typeof json === 'object' ? json : inner;
  });
  return answeredFailureMetadata(
    answer,
    options.sdkErrorType,
    undefined,
    options.now ?? Date.now(),
    answer.status === undefined,
  );
}

/**
 * The stream helpers' (`chat.completions.stream()`, `responses.stream()`) wording when the events
 * they received do not add up to an answer: "missing finish_reason for choice 0" (a stream that
 * ended early), "stream ended without producing a ChatCompletion", "missing output at index 0",
 * "Cannot complete response with unfinished output items." (openai 4–7, lib/ChatCompletionStream
 * and lib/responses/ResponseStream).
 */
const STREAM_ASSEMBLY_MESSAGE =
  /^(?:missing (?:finish_reason|role|output|content|message|function_call)|stream ended without producing|Cannot complete response with|Invalid response output index|Duplicate response output index|Chat completion stream contains|Response snapshot has|Lifecycle (?:events|response))/;

/**
 * The client's own words when it is built without a key (nothing was sent): openai 7 "Missing
 * credentials. Please pass an `apiKey`, ..." (also its Azure and Bedrock clients), openai 4-6 "The
 * OPENAI_API_KEY environment variable is missing or empty; ...". Passed to classify as
 * `sdkCondition: 'missing_credentials'`.
 */
const MISSING_CREDENTIALS_MESSAGE =
  /^(?:Missing credentials\. Please pass|The (?:OPENAI|AZURE_OPENAI)_API_KEY environment variable is missing or empty)/;

// The SDK's own wording for a bad SSE payload (openai 7, src/core/streaming.ts).
const MALFORMED_SSE_MESSAGE = 'Error reading response: malformed server-sent event JSON.';
// Frames that prove a SyntaxError came from the SDK parsing a response: its parse helper
// (`defaultParseResponse`, every major) or a file of the openai package (streaming.js on 4-6).
const SDK_PARSE_FRAME = /defaultParseResponse|[\\/]openai[\\/](?:internal|core|streaming|lib)/;

/**
 * A body the SDK could not parse: a raw `SyntaxError` whose stack passes through the SDK's
 * response parser (a `JSON.parse` failure in the caller's own code is left alone), openai 7's
 * malformed-SSE `SyntaxError`, or node-fetch's `FetchError` of type `invalid-json` (openai 4).
 */
function isMalformedBody(error: unknown): boolean {
  if (constructorName(error) === 'FetchError') return safeGet(error, 'type') === 'invalid-json';
  if (safeGet(error, 'name') !== 'SyntaxError') return false;
  if (messageOf(error, 200) === MALFORMED_SSE_MESSAGE) return true;
  const stack = safeString(safeGet(error, 'stack'), 8192);
  return stack !== undefined && SDK_PARSE_FRAME.test(stack);
}

function extract(error: unknown, context: StainlessContext, depth = 0): ProviderErrorMetadata | undefined {
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return undefined;

  if (isOpenAIApiError(error)) {
    const status = safeStatus(safeGet(error, 'status'));
    if (status !== undefined) return fromApiError(error, context.now, false);
    const inner = safeGet(error, 'error');
    if (inner !== undefined && inner !== null) return fromApiError(error, context.now, true);
    return stainlessTransportMetadata(error, OPENAI_PROVIDER, context.signal);
  }

  if (isOtherOpenAIError(error)) {
    // The stream helpers (`chat.completions.stream()`, runners) wrap any other error in a plain
    // `OpenAIError` with the original as `cause`: read the cause first.
    const cause = safeGet(error, 'cause');
    if (cause !== undefined && cause !== null && cause !== error && depth < 3) {
      const fromCause = extract(cause, context, depth + 1);
      if (fromCause !== undefined) return fromCause;
    }
    const names = [constructorName(error), ...prototypeNames(error)];
    const message = messageOf(error, MAX_MESSAGE_LENGTH) || 'OpenAI SDK error';
    const sdkErrorType = constructorName(error) ?? 'OpenAIError';
    if (names.includes('ContentFilterFinishReasonError')) {
      return {
        provider: OPENAI_PROVIDER,
        sdkErrorType,
        message,
        origin: 'blocked_response',
        blockReason: 'content_filter',
      };
    }
    if (STREAM_ASSEMBLY_MESSAGE.test(message)) {
      // The helper could not assemble an answer from what the stream delivered: it was cut
      // short or malformed on the wire, not misused by the caller.
      return {
        provider: OPENAI_PROVIDER,
        sdkErrorType,
        message,
        origin: 'malformed_response',
        networkPhase: 'stream',
        sdkCondition: 'stream_incomplete',
      };
    }
    if (MISSING_CREDENTIALS_MESSAGE.test(message)) {
      return sdkConditionMetadata(error, OPENAI_PROVIDER, message, 'missing_credentials');
    }
    return { provider: OPENAI_PROVIDER, sdkErrorType, message, origin: 'validation' };
  }

  // Another SDK's own error class (groq-sdk's or @anthropic-ai/sdk's APIConnectionError, the AWS
  // SDK's SyntaxError with `$metadata`, Mistral's errors) is left to its extractor.
  if (isSdkWrapper(error)) return undefined;

  if (isMalformedBody(error)) {
    return {
      provider: OPENAI_PROVIDER,
      sdkErrorType: constructorName(error) ?? 'SyntaxError',
      message: messageOf(error, MAX_MESSAGE_LENGTH) || 'The response body could not be parsed.',
      origin: 'malformed_response',
    };
  }
  // A raw transport drop (undici `TypeError: terminated`, node-fetch `Premature close`) carries no
  // SDK's mark: render's built-in transport reader reads it the same way without naming an SDK
  // that may not have thrown it. Wrapped in an `OpenAIError` by a stream helper, it is the SDK's.
  return depth > 0 ? stainlessRawDropMetadata(error, OPENAI_PROVIDER, context) : undefined;
}

/**
 * Reads every error the openai SDK (majors 4 to 7) throws, including errors from Azure OpenAI
 * and OpenAI-compatible servers (OpenRouter, DeepSeek, Together) reached through it.
 * Duck-typed, total, non-mutating; returns `undefined` for errors that are not the SDK's.
 */
export const openaiExtractor: Extractor = defineExtractor({
  provider: OPENAI_PROVIDER,
  extract: (error, context) => extract(error, readStainlessContext(context)),
});

function firstBlockedChoice(result: unknown): string | undefined {
  const completion = v.safeParse(ChatCompletionLike, result);
  if (completion.success) {
    for (const choice of completion.output.choices.slice(0, 128)) {
      if (choice.finish_reason === 'content_filter') {
        const filtered = safeGet(choice, 'content_filter_results');
        const categories =
          filtered !== null && typeof filtered === 'object'
            ? Object.keys(filtered)
                .slice(0, 20)
                .filter((category) => safeGet(safeGet(filtered, category), 'filtered') === true)
            : [];
        return categories.length > 0 ? `content_filter: ${categories.join(', ')}` : 'content_filter';
      }
    }
    return undefined;
  }
  const response = v.safeParse(ResponseLike, result);
  if (response.success && response.output.incomplete_details?.reason === 'content_filter')
    return 'content_filter';
  return undefined;
}

/**
 * A successful answer that the provider withheld: a chat completion with a choice whose
 * `finish_reason` is `content_filter` (OpenAI, Azure OpenAI), or a Responses API result whose
 * `incomplete_details.reason` is `content_filter`. Returns metadata with origin
 * `blocked_response` (classified as `content_policy`), or `undefined` for any other value.
 * Total: never throws.
 */
export function detectOpenAIBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  try {
    if (result === null || typeof result !== 'object') return undefined;
    const blockReason = firstBlockedChoice(result);
    if (blockReason === undefined) return undefined;
    const metadata: ProviderErrorMetadata = {
      provider: OPENAI_PROVIDER,
      message: `The provider withheld the answer: its content filter stopped the output (${blockReason}).`,
      origin: 'blocked_response',
      blockReason,
    };
    const requestId = text(safeGet(result, '_request_id'), 200);
    if (requestId !== undefined) metadata.requestId = requestId;
    return metadata;
  } catch {
    return undefined;
  }
}
