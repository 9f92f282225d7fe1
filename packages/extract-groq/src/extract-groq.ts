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
import { GroqErrorObject } from './groq-error-shape.ts';

/** The provider key faultline uses for Groq. */
export const GROQ_PROVIDER = 'groq';

/**
 * groq-sdk errors (every major): `X > APIError > GroqError > Error`, with the Stainless own keys
 * `status`, `headers` and `error` (present, possibly undefined, even on connection errors).
 * The `GroqError` base class name on the prototype chain, or a Stainless-shaped error carrying
 * Groq's own `x-groq-region` response header, marks a Groq error; openai and anthropic errors
 * have the same shape with other base classes and are left to their extractors.
 */
function isGroqError(error: object): boolean {
  const stainless = safeHasOwn(error, 'status') && safeHasOwn(error, 'headers') && safeHasOwn(error, 'error');
  if (!stainless) return false;
  if (prototypeNames(error).includes('GroqError')) return true;
  return readHeader(safeGet(error, 'headers'), 'x-groq-region') !== undefined;
}

/** The error object, at either depth: `{ error: {...} }` (HTTP) or `{...}` (stream event). */
function innerErrorObject(body: unknown): unknown {
  const nested = safeGet(body, 'error');
  if (nested !== null && typeof nested === 'object') return nested;
  return body;
}

/** A plain snapshot of the fields we read, so that zod never touches a hostile object. */
function snapshot(value: unknown): GroqErrorObject | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const plain = {
    message: safeGet(value, 'message'),
    type: safeGet(value, 'type'),
    code: safeGet(value, 'code'),
    param: safeGet(value, 'param'),
    failed_generation: safeGet(value, 'failed_generation'),
  };
  const parsed = GroqErrorObject.safeParse(plain);
  if (!parsed.success) return undefined;
  const data = parsed.data;
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

function rawBodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  try {
    const text = JSON.stringify(body);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

const MAX_TEXT_BODY = 64 * 1024;

/** A short description of a non-JSON body: an HTML page's title, or its kind. */
function describeTextBody(body: string, status: number): string {
  const trimmed = body.trim();
  if (trimmed.length === 0) return `HTTP ${status} with an empty body`;
  const title =
    /<title[^>]*>([^<]{1,200})<\/title>/i.exec(trimmed)?.[1] ??
    /<h1[^>]*>([^<]{1,200})<\/h1>/i.exec(trimmed)?.[1];
  if (title !== undefined) return title.trim();
  return `HTTP ${status} with a ${trimmed.startsWith('<') ? 'HTML' : 'text'} body`;
}

function nameOf(value: unknown): string | undefined {
  const name = safeString(safeGet(value, 'name'), 200);
  return name !== undefined && name !== 'Error' ? name : constructorName(value);
}

/** A Stainless connection-class error (no status): abort, timeout, or a transport failure. */
function transportMetadata(
  error: object,
  names: string[],
  signal: AbortSignal | undefined,
  streaming: boolean,
): Pick<ProviderErrorMetadata, 'origin' | 'networkPhase' | 'networkCode' | 'message'> {
  const message = messageOf(error, 1000);
  if (names.includes('APIUserAbortError') || /^Request was aborted\.?$/.test(message)) {
    // The SDK says "aborted" whichever signal fired: classify's rule for who fired decides.
    return {
      origin: signalAbortOrigin(error, signal),
      networkPhase: 'unknown',
      message: message || 'Request was aborted.',
    };
  }
  if (names.includes('APIConnectionTimeoutError') || /^Request timed out\.?$/.test(message)) {
    // groq-sdk's timeout covers only the wait for the response headers.
    return {
      origin: 'timeout',
      networkPhase: streaming ? 'stream' : 'before_response',
      message: message || 'Request timed out.',
    };
  }
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, signal, streaming);
  if (transport !== undefined) {
    return {
      origin: transport.origin,
      networkPhase: transport.networkPhase,
      ...(transport.networkCode !== undefined ? { networkCode: transport.networkCode } : {}),
      message: message || transport.message,
    };
  }
  return { origin: 'network', networkPhase: 'unknown', message: message || 'Connection error.' };
}

/**
 * groq-sdk's own words (0.37 to 1.6, observed) when the client is built without a key:
 * "The GROQ_API_KEY environment variable is missing or empty; either provide it, or ...".
 * Recognised here and passed to classify as `sdkCondition: 'missing_credentials'`.
 */
const MISSING_API_KEY = /^The GROQ_API_KEY environment variable is missing or empty/;

function extractGroq(error: unknown, context: { signal?: AbortSignal; now?: () => number }) {
  if (error === null || typeof error !== 'object') return undefined;
  if (!isGroqError(error)) {
    // A plain GroqError (not an APIError) thrown by the client constructor.
    const message = messageOf(error, 1000);
    if (MISSING_API_KEY.test(message) && prototypeNames(error).includes('GroqError')) {
      return {
        provider: GROQ_PROVIDER,
        sdkErrorType: 'GroqError',
        message,
        origin: 'validation',
        sdkCondition: 'missing_credentials',
      } as const;
    }
    return undefined;
  }

  const names = prototypeNames(error);
  const status = safeStatus(safeGet(error, 'status'));
  const body = safeGet(error, 'error');
  const sdkErrorType = names.find((name) => name !== 'Error' && name !== 'GroqError') ?? nameOf(error);
  const now = context.now?.() ?? Date.now();
  const failure = { status, headers: safeGet(error, 'headers'), body, sdkErrorType, source: error };
  const inner = snapshot(innerErrorObject(body));
  if (status !== undefined || inner !== undefined || (typeof body === 'string' && body.trim() !== '')) {
    return answeredMetadata(failure, now);
  }
  // render passes `streaming: true` while a stream is read.
  const streaming = safeGet(context, 'streaming') === true;
  const metadata: ProviderErrorMetadata = {
    provider: GROQ_PROVIDER,
    ...transportMetadata(error, names, context.signal, streaming),
  };
  return finishMetadata(metadata, failure, inner, undefined, now);
}

/**
 * What a failure consists of, whichever transport saw it: groq-sdk's `APIError` (`status`,
 * `headers`, `error` = the JSON body, its message) or a raw HTTP response read by
 * {@link readGroqHttpFailure}.
 */
interface GroqFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  /** The parsed JSON body (HTTP) or the inner error object / string (stream event). */
  readonly body: unknown;
  readonly sdkErrorType: string | undefined;
  /** The SDK's error (its message, `request_id`); for a raw response, its message-like view. */
  readonly source: unknown;
}

/** The rules for an answered failure, shared by the SDK path and {@link readGroqHttpFailure}. */
function answeredMetadata(failure: GroqFailure, now: number): ProviderErrorMetadata {
  const { status, body, source: error } = failure;
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

  let textBody: string | undefined;
  if (metadata.message === '') {
    if (inner?.message !== undefined) {
      metadata.message = inner.message;
    } else if (status !== undefined) {
      // Without a JSON body groq-sdk's message is `${status} ${body text}` (an HTML page, a proxy's
      // words) or `${status} status code (no body)`: the text stays in rawBody only.
      const sdkMessage = messageOf(error, MAX_TEXT_BODY);
      const rest = sdkMessage.startsWith(`${status} `)
        ? sdkMessage.slice(String(status).length + 1)
        : sdkMessage;
      if (/^status code \(no body\)$/.test(rest)) {
        metadata.message = sdkMessage;
      } else {
        textBody = rest;
        metadata.message = describeTextBody(rest, status);
      }
    } else {
      metadata.message = messageOf(error, 2000) || 'Groq error';
    }
  }
  return finishMetadata(metadata, failure, inner, textBody, now);
}

function finishMetadata(
  metadata: ProviderErrorMetadata,
  failure: GroqFailure,
  inner: GroqErrorObject | undefined,
  textBody: string | undefined,
  now: number,
): ProviderErrorMetadata {
  const { headers, body, source: error } = failure;
  if (failure.sdkErrorType !== undefined) metadata.sdkErrorType = failure.sdkErrorType;
  if (inner !== undefined) readErrorFields(metadata, inner);

  const requestId =
    readHeader(headers, 'x-request-id') ??
    safeString(safeGet(error, 'request_id'), 200) ??
    safeString(safeGet(error, 'requestID'), 200);
  if (requestId !== undefined && requestId !== '') metadata.requestId = requestId;
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  const shouldRetry = readHeader(headers, 'x-should-retry');
  if (shouldRetry === 'true' || shouldRetry === 'false') metadata.shouldRetryHint = shouldRetry === 'true';

  const raw = rawBodyText(body) ?? textBody;
  if (raw !== undefined && raw !== '') attachRawBody(metadata, raw);
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
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const text = typeof bodyValue === 'string' ? bodyValue : '';
  const json = parseJsonSafely(text);
  const sdkText =
    json === undefined && text.trim().length > 0 ? text.slice(0, MAX_TEXT_BODY) : 'status code (no body)';
  return answeredMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      body: json,
      sdkErrorType: options.sdkErrorType,
      // The message groq-sdk would have given the error.
      source: { message: `${status ?? ''} ${sdkText}`.trim() },
    },
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
  const raw = rawBodyText(chunk);
  if (raw !== undefined && raw !== '') attachRawBody(metadata, raw);
  return metadata;
}
