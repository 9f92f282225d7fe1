import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  attachRawBody,
  constructorName,
  defineExtractor,
  inspectTransportError,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  readHeader,
  retryAfterFromHeaders,
  safeGet,
  safeHasOwn,
  safeStatus,
  safeString,
  signalAbortOrigin,
} from '@faultline/classify/toolkit';
import {
  ChatCompletionLike,
  OpenAIInnerError,
  type OpenAIInnerError as OpenAIInnerErrorType,
  ResponseLike,
  UpstreamErrorBody,
} from './openai-error-shape.ts';

/** The provider key this package reports. */
export const OPENAI_PROVIDER = 'openai';

// The messages the SDK gives its transport errors; identical in openai 4, 5, 6 and 7 (src/core/error.ts).
const ABORT_MESSAGE = 'Request was aborted.';
const TIMEOUT_MESSAGE = 'Request timed out.';
const CONNECTION_MESSAGE = 'Connection error.';

const MAX_MESSAGE_LENGTH = 2000;

/** Own keys that mark an error as some SDK's wrapper rather than a raw transport error. */
const OTHER_SDK_KEYS = ['status', 'headers', 'statusCode', '$metadata', 'rawResponse'];

/**
 * An openai `APIError` (any major, any copy): its own keys `status`, `headers` and `error` are
 * present (undefined on transport errors) together with `code`, `param` and `type`, which the
 * openai SDK copies from the inner error. groq-sdk and @anthropic-ai/sdk errors have the first
 * three but not `code` and `param`, so they are left to their own extractors.
 */
function isOpenAIApiError(error: unknown): boolean {
  const stainless = safeHasOwn(error, 'status') && safeHasOwn(error, 'headers') && safeHasOwn(error, 'error');
  if (!stainless) return false;
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

/**
 * A message for an error whose body had no `message`. The SDK's own message is "<status> <body>"
 * (or "<status> status code (no body)"); the body itself is never copied into the metadata: an
 * HTML page is reduced to its title, a JSON body without a message to a fixed phrase, and a text
 * body to its first line.
 */
function messageFromSdkText(sdkMessage: string, status: number | undefined): string {
  const prefix = status === undefined ? '' : `${status} `;
  const rest = sdkMessage.startsWith(prefix) ? sdkMessage.slice(prefix.length) : sdkMessage;
  const body = rest.trim();
  if (body.length === 0 || body.startsWith('status code')) return sdkMessage.slice(0, 200);
  if (body.startsWith('<')) {
    const title =
      /<title[^>]*>([^<]{1,200})<\/title>/i.exec(body)?.[1] ??
      /<h1[^>]*>([^<]{1,200})<\/h1>/i.exec(body)?.[1];
    const heading = title?.trim() || 'HTML error page';
    return heading.startsWith(prefix) ? heading : `${prefix}${heading}`;
  }
  if (body.startsWith('{') || body.startsWith('[')) return `${prefix}error body without a message`.trim();
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  return `${prefix}${firstLine.slice(0, 200)}`;
}

function safeStringify(value: unknown): string | undefined {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}

function readInnerError(value: unknown): OpenAIInnerErrorType | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const parsed = OpenAIInnerError.safeParse(value);
  return parsed.success ? parsed.data : undefined;
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
  const parsed = UpstreamErrorBody.safeParse(value);
  if (!parsed.success) return undefined;
  const inner: OpenAIInnerErrorType =
    'error' in parsed.data && parsed.data.error !== null && typeof parsed.data.error === 'object'
      ? (parsed.data.error as OpenAIInnerErrorType)
      : (parsed.data as OpenAIInnerErrorType);
  const upstream: Upstream = {};
  const message = text(inner.message, 1000) ?? text(safeStringify(inner.message), 1000);
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

function requestIdOf(error: unknown, headers: unknown): string | undefined {
  return (
    text(safeGet(error, 'requestID'), 200) ??
    text(safeGet(error, 'request_id'), 200) ??
    text(readHeader(headers, 'x-request-id'), 200) ??
    text(readHeader(headers, 'apim-request-id'), 200)
  );
}

function shouldRetryHintOf(headers: unknown): boolean | undefined {
  const value = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/**
 * What an answered failure consists of, whichever transport saw it: the openai SDK's `APIError`
 * (its `status`, `headers`, `error` and message) or a raw HTTP response read by
 * {@link readOpenAIHttpFailure}.
 */
interface AnsweredFailure {
  /** The HTTP status; undefined for a stream error event. */
  readonly status: number | undefined;
  readonly headers: unknown;
  /** The body's `error` member (what the SDK keeps as `APIError.error`). */
  readonly innerValue: unknown;
  /** The SDK's message: "<status> <message or body text>" or "<status> status code (no body)". */
  readonly sdkMessage: string;
  readonly sdkErrorType: string | undefined;
  /** The SDK's own request id fields, read before the headers. */
  readonly source: unknown;
}

/** An `APIError` with an HTTP status, or a stream error event (status undefined, inner error set). */
function fromApiError(error: unknown, now: number, streamEvent: boolean): ProviderErrorMetadata {
  return answeredFailureMetadata(
    {
      status: streamEvent ? undefined : safeStatus(safeGet(error, 'status')),
      headers: safeGet(error, 'headers'),
      innerValue: safeGet(error, 'error'),
      sdkMessage: messageOf(error, MAX_MESSAGE_LENGTH),
      sdkErrorType: constructorName(error),
      source: error,
    },
    now,
    streamEvent,
  );
}

/** The rules for an answered failure, shared by the SDK path and {@link readOpenAIHttpFailure}. */
function answeredFailureMetadata(
  failure: AnsweredFailure,
  now: number,
  streamEvent: boolean,
): ProviderErrorMetadata {
  const { status, headers, innerValue, sdkMessage } = failure;
  const inner = readInnerError(innerValue);

  let message =
    text(inner?.message) ??
    (inner?.message !== undefined ? text(safeStringify(inner.message)) : undefined) ??
    text(safeGet(inner, 'detail')) ??
    messageFromSdkText(sdkMessage, status);
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
  if (failure.sdkErrorType !== undefined) metadata.sdkErrorType = failure.sdkErrorType;
  if (statusCode !== undefined) metadata.statusCode = statusCode;
  const requestId = requestIdOf(failure.source, headers);
  if (requestId !== undefined) metadata.requestId = requestId;
  const retryAfterSeconds = retryAfterFromHeaders(headers, now);
  if (retryAfterSeconds !== undefined) metadata.retryAfterSeconds = retryAfterSeconds;
  if (providerCode !== undefined) metadata.providerCode = providerCode.slice(0, 200);
  if (providerType !== undefined) metadata.providerType = providerType;
  const param = text(inner?.param, 200);
  if (param !== undefined) metadata.providerParam = param;
  const shouldRetryHint = shouldRetryHintOf(headers);
  if (shouldRetryHint !== undefined) metadata.shouldRetryHint = shouldRetryHint;
  if (inner !== undefined) {
    const blockReason = azureBlockReason(inner) ?? moderationBlockReason(inner);
    if (blockReason !== undefined) metadata.blockReason = blockReason;
    // OpenRouter's ModerationErrorMetadata (`reasons`, `flagged_input`) is its structured signal
    // that moderation refused the input; `flagged_input` (prompt text) is never copied.
    if (metadata.providerType === undefined && blockReason?.startsWith('moderation')) {
      metadata.providerType = 'moderation';
    }
  }
  const raw = innerValue !== undefined ? safeStringify(innerValue) : sdkMessage;
  if (raw !== undefined && raw.length > 0) attachRawBody(metadata, raw);
  return metadata;
}

/** Longest body text folded into the SDK-style message (the SDK folds it whole; the reader bounds it). */
const MAX_BODY_TEXT = 64 * 1024;

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
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const body = typeof bodyValue === 'string' ? bodyValue : '';
  const json = parseJsonSafely(body);
  const innerValue = json === undefined ? undefined : safeGet(json, 'error');
  // The SDK folds the body text into its message unless the body is JSON without an `error`.
  const bodyText = json === undefined || innerValue !== undefined ? body.slice(0, MAX_BODY_TEXT) : '';
  const sdkMessage =
    `${status ?? ''} ${bodyText.trim().length > 0 ? bodyText : 'status code (no body)'}`.trim();
  return answeredFailureMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      innerValue: innerValue === null ? undefined : innerValue,
      sdkMessage,
      sdkErrorType: options.sdkErrorType,
      source: undefined,
    },
    options.now ?? Date.now(),
    status === undefined,
  );
}

/** `APIConnectionError`, `APIConnectionTimeoutError`, `APIUserAbortError` (status undefined, no body). */
function fromTransportApiError(error: unknown, signal: AbortSignal | undefined): ProviderErrorMetadata {
  const names = [constructorName(error), ...prototypeNames(error)];
  const message = messageOf(error, MAX_MESSAGE_LENGTH);
  const base = { provider: OPENAI_PROVIDER, sdkErrorType: constructorName(error) ?? 'APIError' };
  if (names.includes('APIUserAbortError') || message === ABORT_MESSAGE) {
    // The SDK says "aborted" whichever signal fired (openai 7 keeps `signal.reason` as the cause):
    // classify's rule for who fired a signal decides.
    if (signalAbortOrigin(error, signal) === 'timeout') {
      return { ...base, message: message || ABORT_MESSAGE, origin: 'timeout', networkPhase: 'unknown' };
    }
    return { ...base, message: message || ABORT_MESSAGE, origin: 'abort' };
  }
  if (names.includes('APIConnectionTimeoutError') || message === TIMEOUT_MESSAGE) {
    if (signal?.aborted === true) return { ...base, message: message || ABORT_MESSAGE, origin: 'abort' };
    // The SDK's timeout only covers the wait for the response headers (fetchWithTimeout).
    return {
      ...base,
      message: message || TIMEOUT_MESSAGE,
      origin: 'timeout',
      networkPhase: 'before_response',
    };
  }
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, signal);
  if (transport !== undefined) {
    const metadata: ProviderErrorMetadata = {
      ...base,
      message: transport.message ? `${message || CONNECTION_MESSAGE} (${transport.message})` : message,
      origin: transport.origin,
      networkPhase: transport.networkPhase,
    };
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return { ...base, message: message || CONNECTION_MESSAGE, origin: 'network', networkPhase: 'unknown' };
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

function extract(
  error: unknown,
  signal: AbortSignal | undefined,
  now: number,
  streaming: boolean,
  depth = 0,
): ProviderErrorMetadata | undefined {
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return undefined;

  if (isOpenAIApiError(error)) {
    const status = safeStatus(safeGet(error, 'status'));
    if (status !== undefined) return fromApiError(error, now, false);
    const inner = safeGet(error, 'error');
    if (inner !== undefined && inner !== null) return fromApiError(error, now, true);
    return fromTransportApiError(error, signal);
  }

  if (isOtherOpenAIError(error)) {
    // The stream helpers (`chat.completions.stream()`, runners) wrap any other error in a plain
    // `OpenAIError` with the original as `cause`: read the cause first.
    const cause = safeGet(error, 'cause');
    if (cause !== undefined && cause !== null && cause !== error && depth < 3) {
      const fromCause = extract(cause, signal, now, streaming, depth + 1);
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
      return {
        provider: OPENAI_PROVIDER,
        sdkErrorType,
        message,
        origin: 'validation',
        sdkCondition: 'missing_credentials',
      };
    }
    return { provider: OPENAI_PROVIDER, sdkErrorType, message, origin: 'validation' };
  }

  // Another SDK's own error class (groq-sdk's or @anthropic-ai/sdk's APIConnectionError, the AWS
  // SDK's SyntaxError with `$metadata`, Mistral's errors) is left to its extractor, even when its
  // cause chain is a transport failure too.
  if (OTHER_SDK_KEYS.some((key) => safeHasOwn(error, key))) return undefined;

  if (isMalformedBody(error)) {
    return {
      provider: OPENAI_PROVIDER,
      sdkErrorType: constructorName(error) ?? 'SyntaxError',
      message: messageOf(error, MAX_MESSAGE_LENGTH) || 'The response body could not be parsed.',
      origin: 'malformed_response',
    };
  }

  // Raw transport errors the SDK lets through: undici `TypeError: terminated` (body or stream cut),
  // node-fetch `Premature close`. Aborts and timeouts are left to the built-in extractors.
  const transport = inspectTransportError(error, signal, streaming);
  if (transport !== undefined && transport.origin === 'network') {
    const metadata: ProviderErrorMetadata = {
      provider: OPENAI_PROVIDER,
      message: transport.message || messageOf(error, MAX_MESSAGE_LENGTH) || 'Network error',
      origin: 'network',
      networkPhase: transport.networkPhase,
    };
    const sdkErrorType = constructorName(error);
    if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return undefined;
}

/**
 * Reads every error the openai SDK (majors 4 to 7) throws, including errors from Azure OpenAI
 * and OpenAI-compatible servers (OpenRouter, DeepSeek, Together) reached through it.
 * Duck-typed, total, non-mutating; returns `undefined` for errors that are not the SDK's.
 */
export const openaiExtractor: Extractor = defineExtractor({
  provider: OPENAI_PROVIDER,
  extract(error, context) {
    let now = Date.now();
    try {
      if (context.now !== undefined) now = context.now();
    } catch {
      now = Date.now();
    }
    // render's context says whether a stream was being read (its guardStream does).
    const streaming = safeGet(context, 'streaming') === true;
    return extract(error, context.signal, now, streaming);
  },
});

function firstBlockedChoice(result: unknown): string | undefined {
  const completion = ChatCompletionLike.safeParse(result);
  if (completion.success) {
    for (const choice of completion.data.choices.slice(0, 128)) {
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
  const response = ResponseLike.safeParse(result);
  if (response.success && response.data.incomplete_details?.reason === 'content_filter')
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
