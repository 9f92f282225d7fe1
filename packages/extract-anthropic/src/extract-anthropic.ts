import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  attachRawBody,
  causeChain,
  constructorName,
  defineExtractor,
  inspectTransportError,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  readHeader,
  retryAfterFromHeaders,
  safeGet,
  safeStatus,
  safeString,
  signalAbortOrigin,
} from '@faultline/classify/toolkit';
import {
  type AnthropicErrorBody,
  AnthropicMessageResult,
  parseAnthropicErrorBody,
} from './anthropic-error-shape.ts';

/** The provider key every metadata from this package carries. */
export const ANTHROPIC_PROVIDER = 'anthropic';

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

/**
 * A Stainless `APIError` (every major of @anthropic-ai/sdk): `status`, `headers` and `error` are
 * always assigned by the constructor, even when undefined (connection errors).
 */
function isStainlessShape(error: unknown): boolean {
  return hasKey(error, 'status') && hasKey(error, 'headers') && hasKey(error, 'error');
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

function stringifySafely(value: unknown): string | undefined {
  // Bytes are never a message: JSON-encoding a 50 MB buffer costs seconds and hundreds of MB.
  if (
    typeof value === 'object' &&
    value !== null &&
    (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
  ) {
    return undefined;
  }
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** `"502 <html>…"`: the text body the SDK folds into the message when the body is not JSON. */
function textBodyFromMessage(message: string, status: number | undefined): string | undefined {
  if (status === undefined) return undefined;
  const prefix = `${status} `;
  if (!message.startsWith(prefix)) return undefined;
  const rest = message.slice(prefix.length);
  return rest === 'status code (no body)' ? undefined : rest;
}

/**
 * A message for an error whose body gave no Anthropic message. The SDK's own message is
 * "<status> <body>" (or "<status> status code (no body)"); the body is never copied into the
 * metadata: an HTML page is reduced to its title, other JSON to a fixed phrase, text to its first line.
 */
function messageWithoutBody(sdkMessage: string, status: number | undefined): string {
  const prefix = status === undefined ? '' : `${status} `;
  const rest = (sdkMessage.startsWith(prefix) ? sdkMessage.slice(prefix.length) : sdkMessage).trim();
  if (rest.length === 0 || rest.startsWith('status code')) return sdkMessage.slice(0, 200);
  if (rest.startsWith('<')) {
    const title =
      /<title[^>]*>([^<]{1,200})<\/title>/i.exec(rest)?.[1] ??
      /<h1[^>]*>([^<]{1,200})<\/h1>/i.exec(rest)?.[1];
    const heading = title?.trim() || 'HTML error page';
    return heading.startsWith(prefix) ? heading : `${prefix}${heading}`;
  }
  if (rest.startsWith('{') || rest.startsWith('[')) return `${prefix}error body without a message`.trim();
  return `${prefix}${(rest.split(/\r?\n/, 1)[0] ?? '').slice(0, 200)}`;
}

function sdkErrorTypeOf(error: unknown, names: string[]): string | undefined {
  const name = constructorName(error) ?? names[0];
  if (name !== undefined && name !== 'Object') return name;
  const own = safeGet(error, 'name');
  return typeof own === 'string' && own.length > 0 && own.length < 200 ? own : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) {
    const text = safeString(value, 256);
    if (text !== undefined && text.length > 0) return text;
  }
  return undefined;
}

function shouldRetryHint(headers: unknown): boolean | undefined {
  const value = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/**
 * What an answered failure consists of, whichever transport saw it: the SDK's `APIError` (its
 * `headers`, `error`, message and own fields) or a raw HTTP response read by
 * {@link readAnthropicHttpFailure}.
 */
interface AnsweredFailure {
  readonly headers: unknown;
  /** The SDK's message: "<status> <body text>" or "<status> status code (no body)". */
  readonly sdkMessage: string;
  readonly sdkErrorType: string | undefined;
  /** The SDK's own fields (`requestID`, `type`, `errorCode`, `apiMessage`, `error`); undefined for a raw response. */
  readonly source: unknown;
}

/** Metadata for an error the provider answered (HTTP status or an in-stream error event). */
function providerMetadata(
  error: unknown,
  body: AnthropicErrorBody | undefined,
  origin: 'http' | 'stream_event',
  status: number | undefined,
  names: string[],
  now: number,
): ProviderErrorMetadata {
  return answeredMetadata(
    {
      headers: safeGet(error, 'headers'),
      sdkMessage: messageOf(error),
      sdkErrorType: sdkErrorTypeOf(error, names),
      source: error,
    },
    body,
    origin,
    status,
    now,
  );
}

/** The rules for an answered failure, shared by the SDK path and {@link readAnthropicHttpFailure}. */
function answeredMetadata(
  failure: AnsweredFailure,
  body: AnthropicErrorBody | undefined,
  origin: 'http' | 'stream_event',
  status: number | undefined,
  now: number,
): ProviderErrorMetadata {
  const { headers, sdkMessage, source: error } = failure;
  const innerMessage = body?.error.message;
  const apiMessage =
    safeString(innerMessage) ??
    (innerMessage !== undefined ? safeString(stringifySafely(innerMessage)) : undefined) ??
    safeString(safeGet(error, 'apiMessage'));
  const metadata: ProviderErrorMetadata = {
    provider: ANTHROPIC_PROVIDER,
    message:
      apiMessage !== undefined && apiMessage.trim().length > 0
        ? apiMessage
        : messageWithoutBody(sdkMessage, status),
    origin,
  };
  if (failure.sdkErrorType !== undefined) metadata.sdkErrorType = failure.sdkErrorType;
  if (status !== undefined) metadata.statusCode = status;
  const requestId = firstString(
    safeGet(error, 'requestID'),
    safeGet(error, 'request_id'),
    body?.request_id,
    readHeader(headers, 'request-id'),
  );
  if (requestId !== undefined) metadata.requestId = requestId;
  const providerType = firstString(body?.error.type, safeGet(error, 'type'));
  if (providerType !== undefined) metadata.providerType = providerType;
  const providerCode = firstString(body?.error.details?.error_code, safeGet(error, 'errorCode'));
  if (providerCode !== undefined) metadata.providerCode = providerCode;
  const retryAfterSeconds = retryAfterFromHeaders(headers, now);
  if (retryAfterSeconds !== undefined) metadata.retryAfterSeconds = retryAfterSeconds;
  const hint = shouldRetryHint(headers);
  if (hint !== undefined) metadata.shouldRetryHint = hint;
  const errorField = safeGet(error, 'error');
  const raw =
    body !== undefined
      ? stringifySafely(body)
      : errorField !== null && typeof errorField === 'object'
        ? stringifySafely(errorField)
        : textBodyFromMessage(sdkMessage, status);
  if (raw !== undefined) attachRawBody(metadata, raw);
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
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const text = typeof bodyValue === 'string' ? bodyValue : '';
  const body = parseAnthropicErrorBody(parseJsonSafely(text));
  const sdkMessage =
    `${status ?? ''} ${text.trim().length > 0 ? text.slice(0, MAX_BODY_TEXT) : 'status code (no body)'}`.trim();
  return answeredMetadata(
    {
      headers: safeGet(response, 'headers'),
      sdkMessage,
      sdkErrorType: options.sdkErrorType,
      source: undefined,
    },
    body,
    status === undefined ? 'stream_event' : 'http',
    status,
    options.now ?? Date.now(),
  );
}

/** Longest body text folded into the SDK-style message (the SDK folds it whole; the reader bounds it). */
const MAX_BODY_TEXT = 64 * 1024;

/** Metadata for an error the SDK raised without an answer (connection, timeout, abort). */
function transportMetadata(
  error: unknown,
  names: string[],
  signal: AbortSignal | undefined,
  streaming: boolean,
): ProviderErrorMetadata {
  const sdkErrorType = sdkErrorTypeOf(error, names);
  const message = messageOf(error);
  const base = (origin: ProviderErrorMetadata['origin']): ProviderErrorMetadata => {
    const metadata: ProviderErrorMetadata = { provider: ANTHROPIC_PROVIDER, message, origin };
    if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
    return metadata;
  };
  const allNames = [sdkErrorType ?? '', ...names];
  if (allNames.includes('APIUserAbortError') || message === 'Request was aborted.') {
    // The SDK says "aborted" whichever signal fired: classify's rule for who fired decides.
    return { ...base(signalAbortOrigin(error, signal)), networkPhase: 'unknown' };
  }
  if (allNames.includes('APIConnectionTimeoutError') || message === 'Request timed out.') {
    return { ...base('timeout'), networkPhase: 'before_response' };
  }
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, signal, streaming);
  if (transport !== undefined) {
    const metadata: ProviderErrorMetadata = {
      ...base(transport.origin),
      networkPhase: transport.networkPhase,
    };
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return { ...base('network'), networkPhase: 'unknown' };
}

/** A raw transport error that the SDK let through unwrapped (undici `terminated`, node-fetch `Premature close`). */
function rawTransportMetadata(
  error: unknown,
  signal: AbortSignal | undefined,
  streaming: boolean,
): ProviderErrorMetadata | undefined {
  const transport = inspectTransportError(error, signal, streaming);
  if (transport === undefined) return undefined;
  const metadata: ProviderErrorMetadata = {
    provider: ANTHROPIC_PROVIDER,
    message: transport.message || messageOf(error),
    origin: transport.origin,
    networkPhase: transport.networkPhase,
  };
  if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
  const sdkErrorType = constructorName(error);
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  return metadata;
}

/**
 * Reads whatever `@anthropic-ai/sdk` (0.3x to 1.x) throws: the Stainless `APIError` family (HTTP
 * errors, in-stream `event: error`, connection errors, timeouts, user aborts) and the raw
 * transport errors it lets through (undici `TypeError: terminated`, node-fetch `Premature close`).
 * Duck-typed; returns `undefined` for errors of other SDKs and for errors of the caller's code.
 */
export const anthropicExtractor: Extractor = defineExtractor({
  provider: ANTHROPIC_PROVIDER,
  extract(error, context) {
    if (error === null || typeof error !== 'object') return undefined;
    const now = context.now?.() ?? Date.now();
    const names = prototypeNames(error);
    // render's guardStream says when the error was thrown while reading a stream.
    const streaming = safeGet(context, 'streaming') === true;
    if (names.some((name) => FOREIGN_SDK_BASES.has(name))) return undefined;

    if (!isStainlessShape(error)) {
      // Every major throws a plain Error when no key or token is configured, before any request.
      const plainMessage = messageOf(error, 1000);
      if (MISSING_CREDENTIALS.test(plainMessage)) {
        const metadata: ProviderErrorMetadata = {
          provider: ANTHROPIC_PROVIDER,
          message: plainMessage,
          origin: 'validation',
          sdkCondition: 'missing_credentials',
        };
        const sdkErrorType = sdkErrorTypeOf(error, names);
        if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
        return metadata;
      }
      // A raw `TypeError: terminated` or `Premature close` from a cut body or stream. Anthropic
      // SDK errors that are not API errors (e.g. a consumed stream) carry the AnthropicError base.
      if (names.includes('AnthropicError')) {
        const transport = rawTransportMetadata(error, context.signal, streaming);
        if (transport !== undefined) return transport;
        const metadata: ProviderErrorMetadata = {
          provider: ANTHROPIC_PROVIDER,
          message: messageOf(error),
          origin: 'validation',
        };
        const sdkErrorType = sdkErrorTypeOf(error, names);
        if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
        return metadata;
      }
      return rawTransportMetadata(error, context.signal, streaming);
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

    if (status !== undefined) return providerMetadata(error, body, 'http', status, names, now);
    if (body !== undefined) return providerMetadata(error, body, 'stream_event', undefined, names, now);
    if (sseBody !== undefined) {
      const metadata = providerMetadata(error, sseBody, 'stream_event', undefined, names, now);
      return metadata;
    }
    return transportMetadata(error, names, context.signal, streaming);
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
    const parsed = AnthropicMessageResult.safeParse(result);
    if (!parsed.success || parsed.data.stop_reason !== 'refusal') return undefined;
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
