import type { HttpFailure, ProviderErrorMetadata } from '@faultline/classify';
import {
  constructorName,
  type ExtractContext,
  inspectTransportError,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  type RateLimitHeaderNames,
  readHeader,
  readRateLimitBudget,
  retryAfterFromHeaders,
  safeGet,
  safeHasOwn,
  safeStatus,
  safeString,
  signalAbortOrigin,
} from '@faultline/classify/toolkit';

/*
 * What every Stainless-generated SDK (openai 4–7, @anthropic-ai/sdk 0.3x–1.x, groq-sdk 0.x–1.x)
 * throws, read once. The SDKs share one generated core (`core/error`, `client`: `APIError.generate`,
 * `makeMessage`, `makeRequest`, `fetchWithTimeout`); what differs between them (which base class,
 * what `APIError.error` holds, the body's own fields, the request-id header) stays in each adapter.
 * Sources: docs/contributing/sdk-surfaces.md section 2, and the SDKs' own files named below.
 */

/** The SDKs' own messages for their transport errors, the same in every tested major (core/error). */
export const STAINLESS_MESSAGES = {
  abort: 'Request was aborted.',
  timeout: 'Request timed out.',
  connection: 'Connection error.',
} as const;

/** The longest SDK message read (the SDK folds a whole text body into it). */
const MAX_MESSAGE_LENGTH = 2000;
/** Longest body text folded into an SDK-style message by a reader (the SDK folds it whole). */
const MAX_BODY_TEXT = 64 * 1024;

/**
 * A Stainless `APIError` (every class of the family, any major, any copy): the constructor assigns
 * `status`, `headers` and `error`, even when they are undefined (connection errors). They are
 * looked up along the prototype chain, so a view made with `Object.create(error)` still reads as
 * the SDK's. Which SDK threw it is for the adapter to tell (its base class, its own fields, its
 * headers).
 */
export function isStainlessApiError(error: unknown): boolean {
  return hasKey(error, 'status') && hasKey(error, 'headers') && hasKey(error, 'error');
}

/** `key in value`, false for primitives and for a Proxy whose `has` trap throws. */
function hasKey(value: unknown, key: string): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    return key in value;
  } catch {
    return false;
  }
}

/**
 * The SDK's class name for the report: the constructor's (`RateLimitError`), else the first named
 * class of the prototype chain, else the error's own `name`. `name` is "Error" on openai, groq and
 * anthropic < 1, so it comes last.
 */
export function stainlessErrorType(error: unknown): string | undefined {
  const own = constructorName(error);
  if (own !== undefined && own !== 'Object') return own;
  const named = prototypeNames(error).find((name) => name !== 'Object');
  if (named !== undefined) return named;
  const name = safeString(safeGet(error, 'name'), 200);
  return name !== undefined && name.length > 0 ? name : undefined;
}

/** The context an extractor is given, read without trusting it (a throwing `now` falls back to the clock). */
export interface StainlessContext {
  readonly signal: AbortSignal | undefined;
  readonly now: number;
  /** render's guardStream says when the error was thrown while a stream was read. */
  readonly streaming: boolean;
}

export function readStainlessContext(context: ExtractContext | undefined): StainlessContext {
  const signal = safeGet(context, 'signal') as AbortSignal | undefined;
  let now = Date.now();
  try {
    const clock = safeGet(context, 'now');
    if (typeof clock === 'function') {
      const value = (clock as () => unknown)();
      if (typeof value === 'number' && Number.isFinite(value)) now = value;
    }
  } catch {
    now = Date.now();
  }
  return { signal, now, streaming: safeGet(context, 'streaming') === true };
}

/**
 * The message the SDK gives an HTTP error (`APIError.makeMessage`, identical in every major):
 * the body's `message` (JSON-encoded when it is not a string), else the error value JSON-encoded,
 * else the body text; prefixed with the status, or `"<status> status code (no body)"`.
 */
export function stainlessMessage(
  status: number | undefined,
  error: unknown,
  text: string | undefined,
): string {
  // The SDK tests truthiness (`error?.message ? … : error ? … : message`), and so does this.
  const inner = safeGet(error, 'message');
  const message = inner
    ? typeof inner === 'string'
      ? inner
      : jsonText(inner)
    : error
      ? jsonText(error)
      : text;
  if (status !== undefined && message) return `${status} ${message}`;
  if (status !== undefined) return `${status} status code (no body)`;
  return message || '(no status code or body)';
}

/** What the SDK builds from an HTTP error response: its `status`, `headers`, `error` and message. */
export interface StainlessAnswer {
  readonly status: number | undefined;
  readonly headers: unknown;
  /** `APIError.error`: what the SDK keeps of the JSON body (the adapter says which part). */
  readonly error: unknown;
  /** The SDK's message for it (`makeMessage`). */
  readonly message: string;
}

/**
 * A raw HTTP failure (the AI SDK's `APICallError`, LangChain, a raw `fetch`) read the way the SDK
 * reads the response (`makeStatusError`: the body is JSON-parsed; if that fails the text becomes
 * the message), so that one set of adapter rules serves the SDK's error and the raw response.
 * `errorOf` picks `APIError.error` from the parsed body: openai keeps `body.error`, anthropic and
 * groq the whole body. Total.
 */
export function stainlessAnswerOf(
  response: HttpFailure,
  errorOf: (json: unknown) => unknown,
): StainlessAnswer {
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const body = typeof bodyValue === 'string' ? bodyValue : '';
  const json = parseJsonSafely(body);
  let error: unknown;
  try {
    error = json === undefined ? undefined : errorOf(json);
  } catch {
    error = undefined;
  }
  const text = json === undefined && body.length > 0 ? body.slice(0, MAX_BODY_TEXT) : undefined;
  return {
    status,
    headers: safeGet(response, 'headers'),
    error: error === null ? undefined : error,
    message: stainlessMessage(status, error, text),
  };
}

/** The text body the SDK folded into its message (`"502 <html>…"`), or undefined when there was none. */
export function textBodyOf(sdkMessage: string, status: number | undefined): string | undefined {
  if (status === undefined) return undefined;
  const prefix = `${status} `;
  if (!sdkMessage.startsWith(prefix)) return undefined;
  const rest = sdkMessage.slice(prefix.length);
  return rest === 'status code (no body)' || rest.trim().length === 0 ? undefined : rest;
}

/**
 * A message for an HTTP error whose body gave the adapter no message. The SDK's own message is
 * `"<status> <body>"` (or `"<status> status code (no body)"`); the body itself is never copied into
 * the metadata: an HTML page is reduced to its title, a JSON body to the message it holds in
 * another shape (`messageInBody`) or else to a fixed phrase, and a text body to its first line.
 */
export function messageWithoutBody(sdkMessage: string, status: number | undefined): string {
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
  if (rest.startsWith('{') || rest.startsWith('[') || rest.startsWith('"')) {
    const found = messageInBody(parseBodyText(rest));
    return found === undefined ? `${prefix}error body without a message`.trim() : `${prefix}${found}`;
  }
  return `${prefix}${(rest.split(/\r?\n/, 1)[0] ?? '').slice(0, 200)}`;
}

/** How many objects, arrays and JSON-holding strings deep `messageInBody` looks. */
const MAX_BODY_DEPTH = 6;
/** The longest string `messageInBody` parses again as JSON (a relay's quoted upstream body). */
const MAX_QUOTED_BODY = 64 * 1024;
/** The longest message `messageInBody` returns. */
const MAX_BODY_MESSAGE = 1000;
/** Where bodies of other shapes than the SDK's keep their message, in the order they are read. */
const MESSAGE_KEYS = [
  'error',
  'message',
  'detail',
  'errors',
  'error_message',
  'msg',
  'base_resp',
  'status_msg',
];

/**
 * JSON text as a value: an object or array (parseJsonSafely's bounds), or a JSON string, which a
 * body double-encoded by its server (or an SDK quoting a string body) is; anything else undefined.
 */
function parseBodyText(text: string): unknown {
  if (!text.startsWith('"')) return parseJsonSafely(text);
  if (text.length > MAX_QUOTED_BODY) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The provider's message in a JSON error body the SDK read none from: a relay's
 * `{"error":"<the upstream body as JSON text>"}` (a relay quoting a relay nests it again), a body
 * that is itself a JSON string, Google's `[{"error":{...}}]`, `errors: [{message}]` (Cloudflare,
 * watsonx), `detail`, `base_resp.status_msg` (MiniMax). A string holding JSON is read as that JSON;
 * the walk is bounded in depth and in what it parses again, so any body costs a few bounded parses.
 * Only these message fields are read: the rest of a body (which may quote the prompt) never is.
 */
export function messageInBody(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_BODY_DEPTH || value === null || value === undefined) return undefined;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed.length === 0) return undefined;
    const quoted = trimmed.length <= MAX_QUOTED_BODY ? parseBodyText(trimmed) : undefined;
    // A string holding JSON is that JSON (whose other fields are not read); any other string is the message.
    return quoted === undefined ? trimmed.slice(0, MAX_BODY_MESSAGE) : messageInBody(quoted, depth + 1);
  }
  if (Array.isArray(value)) return messageInBody(safeGet(value, 0), depth + 1);
  if (typeof value !== 'object') return undefined;
  for (const key of MESSAGE_KEYS) {
    const found = messageInBody(safeGet(value, key), depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * JSON text of a value, or undefined. Bytes are never a message: JSON-encoding a 50 MB buffer
 * costs seconds and hundreds of MB, so typed arrays and buffers give undefined.
 */
export function jsonText(value: unknown): string | undefined {
  try {
    if (
      typeof value === 'object' &&
      value !== null &&
      (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    ) {
      return undefined;
    }
    const text = JSON.stringify(value);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/** A non-blank string, bounded. */
function text(value: unknown, maxLength: number): string | undefined {
  const string = safeString(value, maxLength);
  return string !== undefined && string.trim().length > 0 ? string : undefined;
}

/**
 * The request id: the SDK's own field (`requestID` in openai ≥5 and anthropic ≥0.137, `request_id`
 * in openai 4 and anthropic 0.39; groq has none), then the adapter's own candidates (a body field),
 * then the provider's headers in the order given.
 */
export function stainlessRequestId(
  source: unknown,
  headers: unknown,
  headerNames: readonly string[],
  ...candidates: unknown[]
): string | undefined {
  const own = text(safeGet(source, 'requestID'), 200) ?? text(safeGet(source, 'request_id'), 200);
  if (own !== undefined) return own;
  for (const candidate of candidates) {
    const value = text(candidate, 200);
    if (value !== undefined) return value;
  }
  for (const name of headerNames) {
    const value = text(readHeader(headers, name), 200);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** `x-should-retry: true|false`, which every Stainless SDK obeys over its own retry rule. */
export function shouldRetryHintOf(headers: unknown): boolean | undefined {
  const value = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** What the headers of an answered failure say, for every SDK of the family. */
export interface StainlessHeaderReading {
  /** The provider's request-id headers, in order (`x-request-id`, `request-id`, ...). */
  readonly requestIdHeaders: readonly string[];
  /** Request-id candidates read before the headers (a body field), after the SDK's own fields. */
  readonly requestIdCandidates?: readonly unknown[];
  /** The provider's rate-limit header names, read into `metadata.rateLimit`. */
  readonly rateLimitHeaders?: RateLimitHeaderNames;
}

/**
 * Fills what an answered failure's SDK fields and headers say: the SDK class, the request id,
 * the wait (`retry-after-ms`, `retry-after`, rate-limit resets), the rate-limit budget and
 * `x-should-retry`.
 */
export function readAnsweredHeaders(
  metadata: ProviderErrorMetadata,
  source: unknown,
  headers: unknown,
  now: number,
  reading: StainlessHeaderReading,
): ProviderErrorMetadata {
  const requestId = stainlessRequestId(
    source,
    headers,
    reading.requestIdHeaders,
    ...(reading.requestIdCandidates ?? []),
  );
  if (requestId !== undefined) metadata.requestId = requestId;
  const retryAfterSeconds = retryAfterFromHeaders(headers, now);
  if (retryAfterSeconds !== undefined) metadata.retryAfterSeconds = retryAfterSeconds;
  if (reading.rateLimitHeaders !== undefined) {
    const rateLimit = readRateLimitBudget(headers, reading.rateLimitHeaders, now);
    if (rateLimit !== undefined) metadata.rateLimit = rateLimit;
  }
  const hint = shouldRetryHintOf(headers);
  if (hint !== undefined) metadata.shouldRetryHint = hint;
  return metadata;
}

/**
 * An `APIError` the SDK raised without an answer (`status` undefined, no body): the user abort,
 * the SDK's own timeout, or a connection failure. The same rules for every SDK of the family:
 *
 * - `APIUserAbortError` ("Request was aborted."): the SDK raises it for any signal it was given,
 *   so who fired decides (classify's `signalAbortOrigin`): the caller's own signal is an `abort`,
 *   a deadline's is a `timeout`.
 * - `APIConnectionTimeoutError` ("Request timed out."): the SDK's own timer, which only runs while
 *   the SDK waits for the response headers (`fetchWithTimeout` clears it in its `finally`, every
 *   major): a `timeout` before the response. The SDK checks the caller's signal first and throws
 *   its abort error when that fired (`makeRequest`), so this class always means its timer won.
 * - `APIConnectionError` ("Connection error."): the SDK wraps only its fetch's rejection, before
 *   any response; the cause's code decides the phase (refused, DNS, reset).
 */
export function stainlessTransportMetadata(
  error: unknown,
  provider: string,
  signal: AbortSignal | undefined,
): ProviderErrorMetadata {
  const names = [constructorName(error), ...prototypeNames(error)];
  const message = messageOf(error, MAX_MESSAGE_LENGTH);
  const sdkErrorType = stainlessErrorType(error) ?? 'APIError';
  const base = (origin: ProviderErrorMetadata['origin'], fallback: string): ProviderErrorMetadata => ({
    provider,
    sdkErrorType,
    message: message || fallback,
    origin,
  });
  if (names.includes('APIUserAbortError') || message.startsWith(STAINLESS_MESSAGES.abort)) {
    return { ...base(signalAbortOrigin(error, signal), STAINLESS_MESSAGES.abort), networkPhase: 'unknown' };
  }
  if (names.includes('APIConnectionTimeoutError') || message.startsWith(STAINLESS_MESSAGES.timeout)) {
    return { ...base('timeout', STAINLESS_MESSAGES.timeout), networkPhase: 'before_response' };
  }
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, signal);
  if (transport !== undefined) {
    const metadata = base(transport.origin, STAINLESS_MESSAGES.connection);
    // The SDK's words, then the transport's own ("Connection error. (fetch failed)").
    if (transport.message) metadata.message = `${metadata.message} (${transport.message})`;
    metadata.networkPhase = transport.networkPhase;
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return { ...base('network', STAINLESS_MESSAGES.connection), networkPhase: 'unknown' };
}

/** Own keys that mark an error as some SDK's wrapper rather than a raw transport error. */
const SDK_WRAPPER_KEYS = ['status', 'headers', 'statusCode', '$metadata', 'rawResponse'];

/**
 * True for an error that some SDK built around a failure (a Stainless `APIError` of another
 * family member, the AWS SDK's errors with `$metadata`, Mistral's with `statusCode`): its own
 * extractor reads it, even when its cause chain is a transport failure too.
 */
export function isSdkWrapper(error: unknown): boolean {
  return SDK_WRAPPER_KEYS.some((key) => safeHasOwn(error, key));
}

/**
 * A raw transport drop that every SDK of the family lets through unwrapped: undici's
 * `TypeError: terminated` (a unary body or a stream cut), node-fetch's `Premature close`. Only
 * drops are read here; raw aborts and timeouts are left to render's built-in transport reader,
 * which decides who fired them. Another SDK's own error class (with its own keys) is left alone
 * even when its cause chain is a transport failure too. `undefined` for anything else.
 */
export function stainlessRawDropMetadata(
  error: unknown,
  provider: string,
  context: StainlessContext,
): ProviderErrorMetadata | undefined {
  if (isSdkWrapper(error)) return undefined;
  const transport = inspectTransportError(error, context.signal, context.streaming);
  if (transport === undefined || transport.origin !== 'network') return undefined;
  const metadata: ProviderErrorMetadata = {
    provider,
    message: transport.message || messageOf(error, MAX_MESSAGE_LENGTH) || 'Network error',
    origin: 'network',
    networkPhase: transport.networkPhase,
  };
  const sdkErrorType = constructorName(error);
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
  return metadata;
}

/**
 * The SDK's own condition before any request (a client built without a key), recognised by its
 * adapter from the SDK's own words and passed to classify as a code (`sdkCondition`).
 */
export function sdkConditionMetadata(
  error: unknown,
  provider: string,
  message: string,
  sdkCondition: NonNullable<ProviderErrorMetadata['sdkCondition']>,
): ProviderErrorMetadata {
  const metadata: ProviderErrorMetadata = { provider, message, origin: 'validation', sdkCondition };
  const sdkErrorType = stainlessErrorType(error);
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  return metadata;
}
