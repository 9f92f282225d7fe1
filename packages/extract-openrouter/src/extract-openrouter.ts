import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  attachRawBody,
  checkOptionKeys,
  constructorName,
  defineExtractor,
  type ExtractContext,
  HTTP_FAILURE_READ_OPTION_KEYS,
  inspectTransportError,
  MAX_RAW_BODY_LENGTH,
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
import * as v from 'valibot';
import { OpenRouterErrorObject, UpstreamError } from './openrouter-error-shape.ts';

/** The provider key faultline uses for OpenRouter (providers.json). */
export const OPENROUTER_PROVIDER = 'openrouter';

const MAX_MESSAGE_LENGTH = 4096;

function hasKey(value: object, key: string): boolean {
  try {
    return key in value;
  } catch {
    return false;
  }
}

function text(value: unknown, max = MAX_MESSAGE_LENGTH): string | undefined {
  const string = safeString(value, max)?.trim();
  return string === undefined || string === '' ? undefined : string;
}

// The SDK's HTTPClientError family (models/errors/httpclienterrors): `name` is a class field, so it
// survives minification; the messages are the SDK's own (lib/sdks.js).
const CLIENT_ERROR_NAMES = new Set([
  'HTTPClientError',
  'ConnectionError',
  'RequestTimeoutError',
  'RequestAbortedError',
  'InvalidRequestError',
  'UnexpectedClientError',
]);
const CLIENT_ERROR_MESSAGE =
  /^(Unable to make request|Request timed out|Request aborted by client|Unexpected HTTP client error|No base URL provided|Create request hook failed)/;

type OpenRouterKind = 'http' | 'client' | 'sdk-validation' | 'stream-chunk';

/** The HTTP error classes of @openrouter/sdk: one per documented status, and the fallback. */
const OWN_HTTP_ERROR_NAME = /^(?:[A-Z][A-Za-z]+ResponseError|OpenRouterDefaultError)$/;

/**
 * Which @openrouter/sdk error this is, if any. Speakeasy classes: the per-status
 * `*ResponseError`s, `OpenRouterDefaultError` and `ResponseValidationError` (> `OpenRouterError`:
 * `statusCode`, the raw `body` string, `headers`, `contentType`, `rawResponse`), the
 * `HTTPClientError` family, `SDKValidationError`, and the raw `ZodError` the SDK lets escape when a
 * stream event does not parse.
 */
function kindOf(error: object): OpenRouterKind | undefined {
  const names = prototypeNames(error);
  const name = safeString(safeGet(error, 'name'), 100);
  const status = safeStatus(safeGet(error, 'statusCode'));
  // Another copy of the SDK (bundled, minified) keeps the fields and the class names: the fields of
  // every Speakeasy SDK's HTTP error, and a name only this SDK gives (Mistral's are SDKError and
  // HTTPValidationError), so another Speakeasy SDK's error is left to its own extractor.
  if (
    names.includes('OpenRouterError') ||
    (status !== undefined &&
      name !== undefined &&
      OWN_HTTP_ERROR_NAME.test(name) &&
      typeof safeGet(error, 'body') === 'string' &&
      hasKey(error, 'rawResponse') &&
      hasKey(error, 'contentType'))
  ) {
    return 'http';
  }
  if (
    names.includes('HTTPClientError') ||
    (name !== undefined && CLIENT_ERROR_NAMES.has(name) && CLIENT_ERROR_MESSAGE.test(messageOf(error, 200)))
  ) {
    return 'client';
  }
  if (name === 'SDKValidationError' && hasKey(error, 'rawValue') && hasKey(error, 'rawMessage')) {
    return 'sdk-validation';
  }
  if (name === 'ZodError' && isStreamEventIssueList(safeGet(error, 'issues'))) return 'stream-chunk';
  return undefined;
}

// Fields of the SDK's ChatStreamChunk (`{ data: chunk }`) an event may fail on.
const CHUNK_FIELDS = new Set(['id', 'model', 'choices', 'object', 'created', 'usage', 'error']);

/** A ZodError from parsing a stream event: every issue is under `data`, at a chunk field. */
function isStreamEventIssueList(issues: unknown): boolean {
  if (!Array.isArray(issues) || issues.length === 0) return false;
  let chunkField = false;
  for (const issue of issues.slice(0, 50)) {
    const path = safeGet(issue, 'path');
    if (!Array.isArray(path) || path[0] !== 'data') return false;
    if (typeof path[1] === 'string' && CHUNK_FIELDS.has(path[1])) chunkField = true;
  }
  return chunkField;
}

/** The dotted paths of the first zod issues (never their messages' received values). */
function issuePaths(issues: unknown): string[] {
  if (!Array.isArray(issues)) return [];
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = safeGet(issue, 'path');
      return Array.isArray(path) ? path.map((part) => String(part)).join('.') : '';
    })
    .filter((path) => path !== '');
}

/** What an upstream provider said, as OpenRouter quotes it in `metadata.raw`. */
interface Upstream {
  message?: string;
  code?: string;
  type?: string;
  status?: number;
}

/** The message of an upstream error object: a string, or a nested object's `message`. */
function upstreamMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return text(value, 1000);
  return text(safeGet(value, 'message'), 1000);
}

/**
 * `metadata.raw`: the upstream provider's error as JSON text, an object, or prose (a relay's words,
 * "error code: 1015"). Read as the upstream's own error: `{error:{...}}` or the inner object,
 * sometimes with its message itself an object.
 */
function readUpstream(raw: unknown): Upstream | undefined {
  const value = typeof raw === 'string' ? (parseJsonSafely(raw) ?? raw) : raw;
  if (typeof value === 'string') {
    const message = text(value, 1000);
    return message === undefined ? undefined : { message };
  }
  const outer = v.safeParse(UpstreamError, value);
  if (!outer.success) return undefined;
  const nested = outer.output.error;
  const innerParse =
    nested !== null && typeof nested === 'object' ? v.safeParse(UpstreamError, nested) : undefined;
  const inner = innerParse?.success === true ? innerParse.output : outer.output;
  const upstream: Upstream = {};
  const message =
    upstreamMessage(inner.message) ??
    (typeof nested === 'string' ? text(nested, 1000) : undefined) ??
    text(inner.detail, 1000);
  if (message !== undefined) upstream.message = message;
  if (typeof inner.code === 'string' && inner.code !== '' && safeStatus(Number(inner.code)) === undefined)
    upstream.code = inner.code;
  const status = safeStatus(inner.code) ?? safeStatus(Number(inner.code)) ?? safeStatus(inner.status);
  if (status !== undefined) upstream.status = status;
  const type = inner.type ?? (typeof inner.status === 'string' ? inner.status : undefined);
  if (type !== undefined && type !== '') upstream.type = type.slice(0, 200);
  return upstream;
}

/**
 * The error object of an OpenRouter body (`body.error`), read leniently: a relay may nest a second
 * `{error}` inside (`{"error":{"error":{...},"code":402}}`), which is the one that speaks.
 */
function errorObjectOf(value: unknown): OpenRouterErrorObject | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const parsed = v.safeParse(OpenRouterErrorObject, value);
  if (!parsed.success) return undefined;
  const nested = parsed.output.error;
  if (parsed.output.message === undefined && nested !== null && typeof nested === 'object') {
    const inner = v.safeParse(OpenRouterErrorObject, nested);
    if (inner.success) return { ...inner.output, code: inner.output.code ?? parsed.output.code };
  }
  return parsed.output;
}

/** Where an OpenRouter error object was found: an HTTP error body, or a chunk of a 200 stream. */
interface ErrorObjectReading {
  readonly status: number | undefined;
  readonly origin: 'http' | 'stream_event';
  /** The message to use when the object has none (the SDK's, a body's title). */
  readonly fallback: string;
}

/**
 * Provider metadata from OpenRouter's error object `{ code, message, metadata }`, wherever it was
 * found: the body of a failed answer, or the `error` member of a stream chunk (`finish_reason:
 * "error"`), where `code` carries the upstream HTTP status. The upstream's own words in
 * `metadata.raw` are appended to OpenRouter's ("Provider returned error (Crucible: Model supports at
 * most 1 image per prompt.)"); the upstream's code and type join the evidence. `flagged_input`
 * (prompt text) and `user_id` are never read.
 */
export function openRouterErrorMetadata(
  errorValue: unknown,
  reading: ErrorObjectReading,
): ProviderErrorMetadata {
  const inner = errorObjectOf(errorValue);
  let message = upstreamMessage(inner?.message) ?? reading.fallback;
  const meta = inner?.metadata;
  let providerCode: string | undefined;
  let providerType: string | undefined =
    text(meta?.error_type, 200) ??
    text(safeGet(meta, 'errorType'), 200) ??
    (inner?.type !== undefined ? text(inner.type, 200) : undefined);
  const code = inner?.code;
  if (typeof code === 'string' && code !== '' && safeStatus(Number(code)) === undefined) providerCode = code;
  let status = reading.status;
  if (reading.origin === 'stream_event') status = safeStatus(code) ?? safeStatus(Number(code));

  const upstream = readUpstream(meta?.raw);
  if (upstream !== undefined) {
    const providerName = text(meta?.provider_name, 100);
    if (upstream.message !== undefined && !message.includes(upstream.message)) {
      message = `${message} (${providerName ?? 'upstream'}: ${upstream.message})`;
    }
    providerCode ??= upstream.code;
    providerType ??= upstream.type;
    if (reading.origin === 'stream_event') status ??= upstream.status;
  }
  if (status !== undefined && status < 400) status = undefined;

  const metadata: ProviderErrorMetadata = {
    provider: OPENROUTER_PROVIDER,
    message: message.slice(0, MAX_MESSAGE_LENGTH),
    origin: reading.origin,
  };
  if (status !== undefined) metadata.statusCode = status;
  if (providerCode !== undefined) metadata.providerCode = providerCode.slice(0, 200);
  // A moderation refusal (403) names the flagged categories: OpenRouter's structured signal that its
  // moderation, not the account, refused the input.
  const reasons = Array.isArray(meta?.reasons)
    ? meta.reasons.filter((reason): reason is string => typeof reason === 'string').slice(0, 10)
    : [];
  if (reasons.length > 0 || typeof meta?.flagged_input === 'string') {
    metadata.blockReason =
      reasons.length > 0 ? `moderation: ${reasons.join(', ').slice(0, 200)}` : 'moderation';
    providerType ??= 'moderation';
  }
  if (providerType !== undefined) metadata.providerType = providerType;
  return metadata;
}

/** A short description of a non-JSON body: an HTML page's title, or its kind. */
function describeTextBody(body: string, status: number | undefined): string {
  const trimmed = body.trim();
  if (trimmed.length === 0) return `HTTP ${status ?? 'error'} with an empty body`;
  const title =
    /<title[^>]*>([^<]{1,200})<\/title>/i.exec(trimmed)?.[1] ??
    /<h1[^>]*>([^<]{1,200})<\/h1>/i.exec(trimmed)?.[1];
  if (title !== undefined) return title.trim();
  if (!trimmed.startsWith('<') && !trimmed.startsWith('{')) return trimmed.slice(0, 500);
  return `HTTP ${status ?? 'error'} with a ${trimmed.startsWith('<') ? 'HTML' : 'JSON'} body`;
}

/**
 * What an answered failure consists of, whichever transport saw it: the SDK's `OpenRouterError`
 * (`statusCode`, `headers`, the raw `body` string) or a raw HTTP response read by
 * {@link readOpenRouterHttpFailure}.
 */
interface AnsweredFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  readonly bodyText: string;
  readonly sdkErrorType: string | undefined;
  /** The SDK said a 2xx answer did not match its schema (`ResponseValidationError`). */
  readonly responseValidation: boolean;
  /** The SDK's error (its `cause.issues`); undefined for a raw response. */
  readonly source: unknown;
}

/** The rules for an answered failure, shared by the SDK path and {@link readOpenRouterHttpFailure}. */
function answeredMetadata(failure: AnsweredFailure, now: number): ProviderErrorMetadata {
  const { status, headers, bodyText, sdkErrorType, source } = failure;
  const body = parseJsonSafely(bodyText);
  const errorValue = safeGet(body, 'error');
  let metadata: ProviderErrorMetadata;
  if (failure.responseValidation || (status !== undefined && status < 400)) {
    // A 200 whose body is an error object (OpenRouter's error after the model began, sent whole)
    // speaks for itself; any other 2xx the SDK could not read is a malformed answer.
    if (errorValue !== null && typeof errorValue === 'object') {
      metadata = openRouterErrorMetadata(errorValue, {
        status: undefined,
        origin: 'stream_event',
        fallback: 'OpenRouter answered 200 with an error',
      });
    } else {
      const paths = issuePaths(safeGet(safeGet(source, 'cause'), 'issues'));
      metadata = {
        provider: OPENROUTER_PROVIDER,
        message: `OpenRouter answered ${status ?? ''} with a body the SDK could not read${paths.length > 0 ? ` (${paths.join(', ')})` : ''}`,
        origin: 'malformed_response',
      };
      if (status !== undefined && status >= 400) metadata.statusCode = status;
    }
  } else if (errorValue !== null && typeof errorValue === 'object') {
    metadata = openRouterErrorMetadata(errorValue, {
      status,
      origin: 'http',
      fallback: `HTTP ${status ?? 'error'}`,
    });
  } else {
    // Not OpenRouter's JSON (a proxy's HTML page, a bare string): its title or text is what there is.
    const words = typeof body === 'string' ? (text(body, 1000) ?? '') : describeTextBody(bodyText, status);
    metadata = { provider: OPENROUTER_PROVIDER, message: words.slice(0, MAX_MESSAGE_LENGTH), origin: 'http' };
    if (status !== undefined) metadata.statusCode = status;
  }
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  const requestId =
    readHeader(headers, 'x-generation-id') ??
    readHeader(headers, 'x-request-id') ??
    readHeader(headers, 'cf-ray');
  if (requestId !== undefined && requestId !== '') metadata.requestId = requestId.slice(0, 200);
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  // In memory only (non-enumerable): never in JSON, a report or a log.
  if (bodyText !== '') attachRawBody(metadata, bodyText);
  return metadata;
}

/**
 * The SDK's per-status classes (`ServiceUnavailableResponseError` for every 503,
 * `TooManyRequestsResponseError` for every 429 ...) are named after the status by the SDK's
 * generator: the name restates `statusCode` and says nothing the answer said, so it is reported as
 * their base class. Read as words, it would contradict the body (a 503 "no available model provider"
 * is not the provider being busy).
 */
const STATUS_CLASS = /^[A-Z][A-Za-z]+ResponseError$/;

function httpMetadata(error: object, context: ExtractContext): ProviderErrorMetadata {
  const name = safeString(safeGet(error, 'name'), 100);
  const sdkErrorType =
    name !== undefined && STATUS_CLASS.test(name)
      ? 'OpenRouterError'
      : name !== undefined && name !== 'Error'
        ? name
        : constructorName(error);
  return answeredMetadata(
    {
      status: safeStatus(safeGet(error, 'statusCode')),
      headers: safeGet(error, 'headers'),
      bodyText: safeString(safeGet(error, 'body'), MAX_RAW_BODY_LENGTH) ?? '',
      sdkErrorType,
      responseValidation: name === 'ResponseValidationError',
      source: error,
    },
    context.now?.() ?? Date.now(),
  );
}

/**
 * Reads an OpenRouter HTTP failure seen by any transport: the AI SDK's `APICallError`, LangChain, a
 * raw `fetch`. The body text is read as @openrouter/sdk keeps it (`OpenRouterError.body`, parsed
 * leniently: `error.code`, `message`, `metadata.raw`, `metadata.reasons`), then the same rules as
 * {@link openrouterExtractor} apply. Without a status it is an error sent inside a 200 stream.
 * Total: any status, headers or body; an unknown option key is a TypeError at the call.
 */
export function readOpenRouterHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const bodyValue = safeGet(response, 'body');
  const status = safeStatus(safeGet(response, 'status'));
  const bodyText =
    typeof bodyValue === 'string'
      ? bodyValue.slice(0, MAX_RAW_BODY_LENGTH)
      : bodyValue !== null && typeof bodyValue === 'object'
        ? (safeJson(bodyValue) ?? '')
        : '';
  if (status === undefined) {
    // No status: an error event inside a stream that began with 200.
    const errorValue = safeGet(parseJsonSafely(bodyText), 'error');
    const metadata = openRouterErrorMetadata(errorValue, {
      status: undefined,
      origin: 'stream_event',
      fallback: text(bodyText, 1000) ?? 'OpenRouter sent an error mid-stream',
    });
    if (options.sdkErrorType !== undefined) metadata.sdkErrorType = options.sdkErrorType;
    if (bodyText !== '') attachRawBody(metadata, bodyText);
    return metadata;
  }
  return answeredMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      bodyText,
      sdkErrorType: options.sdkErrorType,
      responseValidation: false,
      source: undefined,
    },
    options.now ?? Date.now(),
  );
}

function safeJson(value: object): string | undefined {
  try {
    return JSON.stringify(value)?.slice(0, MAX_RAW_BODY_LENGTH);
  } catch {
    return undefined;
  }
}

function clientMetadata(error: object, context: ExtractContext, streaming: boolean): ProviderErrorMetadata {
  const name = safeString(safeGet(error, 'name'), 100) ?? constructorName(error) ?? 'HTTPClientError';
  const message = messageOf(error, 1000) || name;
  const base = { provider: OPENROUTER_PROVIDER, sdkErrorType: name, message };
  if (name === 'RequestAbortedError') {
    // The SDK raises it for any signal given to the call: who fired it decides.
    const origin = signalAbortOrigin(error, context.signal);
    return { ...base, origin, networkPhase: origin === 'timeout' ? 'before_response' : 'unknown' };
  }
  if (name === 'RequestTimeoutError') {
    // The SDK's own `timeoutMs` (AbortSignal.timeout), used only when no signal is given.
    return { ...base, origin: 'timeout', networkPhase: streaming ? 'stream' : 'before_response' };
  }
  if (name === 'InvalidRequestError') return { ...base, origin: 'validation' };
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, context.signal, streaming);
  if (transport !== undefined) {
    const metadata: ProviderErrorMetadata = {
      ...base,
      origin: transport.origin,
      networkPhase: transport.networkPhase,
    };
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return { ...base, origin: 'network', networkPhase: 'unknown' };
}

function streamChunkMetadata(error: object): ProviderErrorMetadata {
  const paths = issuePaths(safeGet(error, 'issues'));
  const errorEvent = paths.some((path) => path.startsWith('data.error'));
  return {
    provider: OPENROUTER_PROVIDER,
    sdkErrorType: 'ZodError',
    // The SDK drops the event with its words: only the failing paths are left.
    message: errorEvent
      ? `OpenRouter sent an error event mid-stream that the SDK could not read (${paths.join(', ')}); its words are lost.`
      : `OpenRouter sent a stream event the SDK could not read (${paths.join(', ')}).`,
    origin: 'malformed_response',
    networkPhase: 'stream',
    sdkCondition: 'stream_incomplete',
  };
}

/**
 * A stream read ended by a signal: the SDK reads a stream from the fetch body, so the abort arrives
 * as a bare DOMException `AbortError`; who fired the signal decides (classify's rule). A
 * `TimeoutError` is left to the built-in transport extractor.
 */
function streamAbortMetadata(error: object, context: ExtractContext): ProviderErrorMetadata | undefined {
  if (safeGet(error, 'name') !== 'AbortError') return undefined;
  const origin = signalAbortOrigin(error, context.signal);
  return {
    provider: OPENROUTER_PROVIDER,
    sdkErrorType: 'AbortError',
    message: messageOf(error, 500) || 'This operation was aborted',
    origin,
    networkPhase: origin === 'timeout' ? 'stream' : 'unknown',
  };
}

function extractOpenRouter(error: unknown, context: ExtractContext): ProviderErrorMetadata | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const streaming = context.streaming === true;
  const kind = kindOf(error);
  if (kind === undefined) return streaming ? streamAbortMetadata(error, context) : undefined;
  switch (kind) {
    case 'http':
      return httpMetadata(error, context);
    case 'client':
      return clientMetadata(error, context, streaming);
    case 'sdk-validation': {
      const rawMessage = safeString(safeGet(error, 'rawMessage'), 500) ?? '';
      // `rawValue` is the caller's own request (it holds the prompt): only the issue paths are kept.
      const paths = issuePaths(safeGet(safeGet(error, 'cause'), 'issues'));
      return {
        provider: OPENROUTER_PROVIDER,
        sdkErrorType: 'SDKValidationError',
        message: `${rawMessage || 'Validation failed'}${paths.length > 0 ? ` at ${paths.join(', ')}` : ''}`,
        origin: /response/i.test(rawMessage) ? 'malformed_response' : 'validation',
      };
    }
    case 'stream-chunk':
      return streamChunkMetadata(error);
  }
}

/**
 * Reads every error @openrouter/sdk throws (1.x and 0.x): the HTTP errors (`BadRequestResponseError`
 * ... `OpenRouterDefaultError`, the raw body read as OpenRouter's `{error:{code,message,metadata}}`
 * with the upstream's words in `metadata.raw`), a 2xx of the wrong shape (`ResponseValidationError`),
 * `ConnectionError`/`RequestTimeoutError`/`RequestAbortedError`, and the raw `ZodError` an error
 * event the SDK cannot parse produces mid-stream. Returns `undefined` for anything else (a cut
 * stream's raw `TypeError: terminated` is left to the built-in transport extractor).
 */
export const openrouterExtractor: Extractor = defineExtractor({
  provider: OPENROUTER_PROVIDER,
  extract: extractOpenRouter,
});
