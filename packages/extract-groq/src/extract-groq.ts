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
  defineExtractor,
  type ExtractContext,
  HTTP_FAILURE_READ_OPTION_KEYS,
  messageOf,
  prototypeNames,
  type RateLimitHeaderNames,
  readHeader,
  readRateLimitBudget,
  safeGet,
  safeHasOwn,
  safeStatus,
  safeString,
  X_RATELIMIT_HEADERS,
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
  stainlessTransportMetadata,
  textBodyOf,
} from '@faultline/stainless';
import * as v from 'valibot';
import { GroqErrorObject } from './groq-error-shape.ts';

/** The provider key faultline uses for Groq. */
export const GROQ_PROVIDER = 'groq';

/** The headers Groq states a key's rate-limit budget in (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as durations: "1s", "6m0s", "20ms"). */
export const GROQ_RATE_LIMIT_HEADERS: RateLimitHeaderNames = X_RATELIMIT_HEADERS;

/**
 * The rate-limit budget an answer's headers state, from the headers or from what holds them (a
 * `Response`, the SDK's `withResponse()` result, an SDK error); `undefined` when none is there.
 */
export function readGroqRateLimit(source: unknown, now: number = Date.now()): RateLimitBudget | undefined {
  return readRateLimitBudget(source, GROQ_RATE_LIMIT_HEADERS, now);
}

/**
 * groq-sdk errors (every major): `X > APIError > GroqError > Error`, with the Stainless own keys
 * `status`, `headers` and `error` (present, possibly undefined, even on connection errors).
 * The `GroqError` base class name on the prototype chain, or a Stainless-shaped error carrying
 * Groq's own `x-groq-region` response header, marks a Groq error; openai and anthropic errors
 * have the same shape with other base classes and are left to their extractors.
 */
function isGroqError(error: object): boolean {
  if (!isStainlessApiError(error)) return false;
  if (prototypeNames(error).includes('GroqError')) return true;
  return readHeader(safeGet(error, 'headers'), 'x-groq-region') !== undefined;
}

/** The error object, at either depth: `{ error: {...} }` (HTTP) or `{...}` (stream event). */
function innerErrorObject(body: unknown): unknown {
  const nested = safeGet(body, 'error');
  if (nested !== null && typeof nested === 'object') return nested;
  return body;
}

/** A plain snapshot of the fields we read, so that the schema never touches a hostile object. */
function snapshot(value: unknown): GroqErrorObject | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const plain = {
    message: safeGet(value, 'message'),
    type: safeGet(value, 'type'),
    code: safeGet(value, 'code'),
    param: safeGet(value, 'param'),
    failed_generation: safeGet(value, 'failed_generation'),
  };
  const parsed = v.safeParse(GroqErrorObject, plain);
  if (!parsed.success) return undefined;
  const data = parsed.output;
  if (data.message === undefined && data.type == null && data.code == null) return undefined;
  return data;
}

/** Groq's code, type and param, and whether `failed_generation` was present (never its text). */
function readErrorFields(metadata: ProviderErrorMetadata, inner: GroqErrorObject): void {
  if (inner.code !== null && inner.code !== undefined) metadata.providerCode = String(inner.code);
  if (typeof inner.type === 'string' && inner.type !== '') metadata.providerType = inner.type;
  if (inner.param !== null && inner.param !== undefined && inner.param !== '') {
    metadata.providerParam = String(inner.param);
  }
  const generation = inner.failed_generation;
  if (generation !== undefined && generation !== null) {
    // Evidence that the model's output failed the requested format; its text is model output
    // (it may echo the prompt) and is never recorded.
    const size = typeof generation === 'string' ? generation.length : undefined;
    metadata.message += ` [failed_generation present${size !== undefined ? `: ${size} characters` : ''}, withheld]`;
  }
}

/** Bytes (no JSON text), or a revoked Proxy (`instanceof` throws): left to `jsonText`, as before. */
function hasNoJsonText(body: object): boolean {
  try {
    return ArrayBuffer.isView(body) || body instanceof ArrayBuffer;
  } catch {
    return true;
  }
}

/**
 * Keeps the body as `rawBody`: the SDK's parsed body is written as JSON text on first read only
 * (the error retains no more than the SDK error); a primitive body's JSON text, else `fallback` (a text body), at once.
 */
function attachBody(
  metadata: ProviderErrorMetadata,
  body: unknown,
  fallback?: () => string | undefined,
): void {
  if (typeof body === 'object' && body !== null && !hasNoJsonText(body)) {
    attachRawJsonBody(metadata, body);
    return;
  }
  const raw = (body === undefined || body === null ? undefined : jsonText(body)) ?? fallback?.();
  if (raw !== undefined && raw !== '') attachRawBody(metadata, raw);
}

/** The longest SDK message read: groq-sdk folds a whole text body into it. */
const MAX_TEXT_BODY = 64 * 1024;

/**
 * groq-sdk's own words (0.37 to 1.6, observed) when the client is built without a key:
 * "The GROQ_API_KEY environment variable is missing or empty; either provide it, or ...".
 * Recognised here and passed to classify as `sdkCondition: 'missing_credentials'`.
 */
const MISSING_API_KEY = /^The GROQ_API_KEY environment variable is missing or empty/;

function extractGroq(error: unknown, extractContext: ExtractContext) {
  if (error === null || typeof error !== 'object') return undefined;
  const context = readStainlessContext(extractContext);
  if (!isGroqError(error)) {
    // A plain GroqError (not an APIError) thrown by the client constructor.
    const message = messageOf(error, 1000);
    if (MISSING_API_KEY.test(message) && prototypeNames(error).includes('GroqError')) {
      return sdkConditionMetadata(error, GROQ_PROVIDER, message, 'missing_credentials');
    }
    // A raw transport drop (undici `TypeError: terminated`, node-fetch `Premature close`) carries
    // no SDK's mark: render's built-in transport reader reads it.
    return undefined;
  }

  const status = safeStatus(safeGet(error, 'status'));
  const body = safeGet(error, 'error');
  const failure: StainlessAnswer = {
    status,
    headers: safeGet(error, 'headers'),
    error: body,
    message: messageOf(error, MAX_TEXT_BODY),
  };
  const inner = snapshot(innerErrorObject(body));
  if (status !== undefined || inner !== undefined || (typeof body === 'string' && body.trim() !== '')) {
    return answeredMetadata(failure, stainlessErrorType(error), error, context.now);
  }
  return stainlessTransportMetadata(error, GROQ_PROVIDER, context.signal);
}

/**
 * The rules for an answered failure, shared by the SDK path and {@link readGroqHttpFailure}:
 * groq-sdk's `APIError` (`error` = the whole JSON body for an HTTP error, the inner object or a
 * string for a stream event) or a raw HTTP response read the way the SDK reads it.
 */
function answeredMetadata(
  failure: StainlessAnswer,
  sdkErrorType: string | undefined,
  source: unknown,
  now: number,
): ProviderErrorMetadata {
  const { status, error: body, message: sdkMessage } = failure;
  const inner = snapshot(innerErrorObject(body));
  let metadata: ProviderErrorMetadata;
  if (status !== undefined) {
    metadata = { provider: GROQ_PROVIDER, message: '', origin: 'http', statusCode: status };
  } else if (inner !== undefined) {
    // An error event inside a stream that had started with 200: status is undefined.
    metadata = { provider: GROQ_PROVIDER, message: '', origin: 'stream_event' };
  } else {
    // An error event whose `error` is a bare string (`{"error":"…"}`): groq-sdk throws
    // APIError(undefined, "…"). Its connection errors never carry an `error`, so this is the event.
    metadata = { provider: GROQ_PROVIDER, message: safeString(body, 2000) ?? '', origin: 'stream_event' };
  }
  if (metadata.message === '') {
    metadata.message =
      inner?.message ??
      (status !== undefined
        ? messageWithoutBody(sdkMessage, status)
        : sdkMessage.slice(0, 2000) || 'Groq error');
  }
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  if (inner !== undefined) readErrorFields(metadata, inner);
  readAnsweredHeaders(metadata, source, failure.headers, now, {
    requestIdHeaders: ['x-request-id'],
    rateLimitHeaders: GROQ_RATE_LIMIT_HEADERS,
  });
  // Without a JSON body the SDK's message is "<status> <body text>": the text stays in rawBody only.
  attachBody(metadata, body, () => textBodyOf(sdkMessage, status));
  return metadata;
}

/**
 * Reads a Groq HTTP failure seen by any transport: the AI SDK's `APICallError`, LangChain, a raw
 * `fetch`. The body is read as groq-sdk reads it (`APIError.error` is the whole JSON body; without
 * JSON the message is "<status> <body text>"), then the same rules as {@link groqExtractor} apply.
 * Total: any status, headers or body.
 */
export function readGroqHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  return answeredMetadata(
    stainlessAnswerOf(response, (json) => json),
    options.sdkErrorType,
    undefined,
    options.now ?? Date.now(),
  );
}

/**
 * Reads every error groq-sdk throws (0.x and 1.x): HTTP errors (`error` = the whole body), stream
 * error events (`error` = the inner object), connection errors, timeouts and aborts. Returns
 * `undefined` for anything else (raw `TypeError: terminated` from a cut stream is left to the
 * built-in transport extractor).
 */
export const groqExtractor: Extractor = defineExtractor({
  provider: GROQ_PROVIDER,
  extract: extractGroq,
});

/** `Array.isArray`, which throws on a revoked proxy: true then too (nothing to read). */
function isArrayOrRevoked(value: object): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return true;
  }
}

/**
 * A stream chunk that is really Groq's error object: metadata to throw, `undefined` for anything
 * else. groq-sdk (0.37 and 1.6) throws for an SSE message only when its JSON has an `error` field;
 * a named `event: error` whose data is the bare error object (`{"message","type","code"}`, no
 * wrapper) is yielded as if it were a chunk. A chat chunk always has `choices`, so an object
 * without them that reads as an error object (a message, plus a type or a code) is taken for one.
 * Total: any value is accepted.
 */
export function groqErrorChunkMetadata(chunk: unknown): ProviderErrorMetadata | undefined {
  if (chunk === null || typeof chunk !== 'object' || isArrayOrRevoked(chunk)) return undefined;
  if (safeHasOwn(chunk, 'choices') || safeGet(chunk, 'object') === 'chat.completion.chunk') return undefined;
  const inner = snapshot(chunk);
  if (inner?.message === undefined || (inner.type == null && inner.code == null)) return undefined;
  const metadata: ProviderErrorMetadata = {
    provider: GROQ_PROVIDER,
    message: inner.message,
    origin: 'stream_event',
  };
  readErrorFields(metadata, inner);
  attachBody(metadata, chunk);
  return metadata;
}
