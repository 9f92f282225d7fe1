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
  HTTP_FAILURE_READ_OPTION_KEYS,
  inspectTransportError,
  MAX_PARSE_LENGTH,
  parseDurationSeconds,
  parseJsonSafely,
  retryAfterFromHeaders,
  safeGet,
  safeStatus,
} from '@faultline/classify/toolkit';
import * as v from 'valibot';
import {
  BadRequestDetail,
  DETAIL_TYPES,
  ErrorInfoDetail,
  GenerateContentAnswer,
  GoogleErrorBody,
  type GoogleRpcStatus,
  QuotaFailureDetail,
  RetryInfoDetail,
} from './google-genai-error-shape.ts';

/** The provider key every metadata from this package carries. */
export const GOOGLE_GENAI_PROVIDER = 'google-genai';

/**
 * genai 2 and 3 turn an error chunk inside a stream into `ApiError` with this message prefix:
 * `got status: UNAVAILABLE. {"error":{…}}` (docs/contributing/sdk-surfaces.md section 3, observed).
 */
const STREAM_PREFIX = /^got status: ([A-Za-z_ ]{1,64})\. /;

// Memory (a FaultlineError retains no more than the SDK error): each quota id is a fresh
// string out of parsing the SDK's message (~70 B each, held by the error's metadata), while a burst
// of failures names the same few quotas. Equal ids share one string. A Map and not a library: a
// bounded memo of immutable strings, cleared when full.
const SHARED_QUOTA_IDS: Map<string, string> = new Map();
const MAX_SHARED_QUOTA_IDS = 256;

function sharedQuotaId(id: string): string {
  const known = SHARED_QUOTA_IDS.get(id);
  if (known !== undefined) return known;
  if (SHARED_QUOTA_IDS.size >= MAX_SHARED_QUOTA_IDS) SHARED_QUOTA_IDS.clear();
  SHARED_QUOTA_IDS.set(id, id);
  return id;
}

/** Longest message read from an `ApiError`; longer ones are not parsed (the status still counts). */
const MAX_MESSAGE_LENGTH = MAX_PARSE_LENGTH;

/**
 * `Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model`:
 * Vertex AI names the spent quota metric only in its message (no QuotaFailure detail). The metric
 * is an identifier, read as a quota id so that classify can tell its window (per minute or per day).
 */
const VERTEX_QUOTA_METRIC =
  /quota exceeded for (?:metric: )?([a-z0-9.-]+\.googleapis\.com\/[A-Za-z0-9_/-]+)/gi;

/** What the `ApiError` message holds once parsed. */
interface ParsedApiErrorMessage {
  /** The JSON text (the raw body), when the message carried one. */
  readonly bodyText?: string;
  readonly status?: GoogleRpcStatus;
  /** The canonical status word of a `got status: X.` prefix: the error came inside a stream. */
  readonly streamStatus?: string;
}

function readMessage(error: unknown): string | undefined {
  const message = safeGet(error, 'message');
  return typeof message === 'string' ? message : undefined;
}

function parseApiErrorMessage(message: string): ParsedApiErrorMessage {
  let text = message;
  let streamStatus: string | undefined;
  const prefix = STREAM_PREFIX.exec(text);
  if (prefix) {
    streamStatus = prefix[1];
    text = text.slice(prefix[0].length);
  }
  if (text.length > MAX_MESSAGE_LENGTH) return streamStatus === undefined ? {} : { streamStatus };
  let parsed = parseJsonSafely(text);
  // Vertex answers some calls with a one-element array of errors.
  if (Array.isArray(parsed)) parsed = parsed[0];
  const body = v.safeParse(GoogleErrorBody, parsed);
  return {
    ...(body.success ? { bodyText: text.trim(), status: body.output.error } : {}),
    ...(streamStatus === undefined ? {} : { streamStatus }),
  };
}

/** `@type` is `type.googleapis.com/google.rpc.ErrorInfo`; match on the message name. */
function detailsOfType(details: readonly unknown[] | undefined, typeName: string): unknown[] {
  if (details === undefined) return [];
  return details.slice(0, 50).filter((detail) => {
    const type = safeGet(detail, '@type');
    return typeof type === 'string' && (type === typeName || type.endsWith(`/${typeName}`));
  });
}

/** A canonical `google.rpc.Code` name such as `RESOURCE_EXHAUSTED` (not an HTTP reason phrase). */
function canonicalCode(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Z][A-Z_]{2,63}$/.test(value) ? value : undefined;
}

function looksLikeMarkup(text: string): boolean {
  return /^\s*</.test(text);
}

/**
 * Is this an `ApiError` of @google/genai (any major, any copy)? Duck-typed: `name` "ApiError"
 * (or, as evidence only, the constructor name) with a numeric `status`, and a message in one of
 * the two shapes the SDK writes. No `instanceof`.
 */
function isGenaiApiError(error: unknown, message: string | undefined): boolean {
  const name = safeGet(error, 'name');
  if (name !== 'ApiError' && constructorName(error) !== 'ApiError') return false;
  if (typeof safeGet(error, 'status') !== 'number') return false;
  if (message === undefined) return false;
  return /^\s*[[{]/.test(message) || STREAM_PREFIX.test(message);
}

function extractApiError(error: unknown, message: string): ProviderErrorMetadata {
  return apiErrorMetadata(safeStatus(safeGet(error, 'status')), message, 'ApiError');
}

/**
 * The rules for an `ApiError`'s message (the body's JSON text, or genai's wrapping of a non-JSON
 * body), shared by the SDK path and {@link readGoogleGenaiHttpFailure}.
 */
function apiErrorMetadata(
  httpStatus: number | undefined,
  message: string,
  sdkErrorType: string,
): ProviderErrorMetadata {
  const parsed = parseApiErrorMessage(message);
  const status = parsed.status;
  const statusCode = httpStatus ?? safeStatus(status?.code);
  const details = status?.details;

  const innerMessage = status?.message;
  let text: string;
  if (innerMessage === undefined) {
    text = message.slice(0, 4096);
  } else if (looksLikeMarkup(innerMessage) || innerMessage.trim() === '') {
    // A non-JSON body (a proxy's HTML page) or an empty one: genai wraps it as
    // {"error":{"message":"<html>…","code":502,"status":"Bad Gateway"}}. The markup says nothing
    // classify can use and may name paths that look like model names; keep the status line only.
    text = `HTTP ${statusCode ?? '?'}${status?.status ? ` ${status.status}` : ''} (${innerMessage.trim() === '' ? 'empty body' : 'non-JSON body'})`;
  } else {
    text = innerMessage.slice(0, 4096);
  }

  const metadata: ProviderErrorMetadata = {
    provider: GOOGLE_GENAI_PROVIDER,
    sdkErrorType,
    message: text,
    origin: parsed.streamStatus === undefined ? 'http' : 'stream_event',
  };
  if (statusCode !== undefined) metadata.statusCode = statusCode;
  const providerType = canonicalCode(status?.status) ?? canonicalCode(parsed.streamStatus);
  if (providerType !== undefined) metadata.providerType = providerType;

  for (const detail of detailsOfType(details, DETAIL_TYPES.errorInfo)) {
    const info = v.safeParse(ErrorInfoDetail, detail);
    if (info.success && info.output.reason !== undefined) {
      metadata.providerCode = info.output.reason.slice(0, 200);
      break;
    }
  }

  const quotaIds: string[] = [];
  for (const detail of detailsOfType(details, DETAIL_TYPES.quotaFailure)) {
    const quota = v.safeParse(QuotaFailureDetail, detail);
    if (!quota.success) continue;
    for (const violation of quota.output.violations?.slice(0, 50) ?? []) {
      if (violation.quotaId !== undefined) quotaIds.push(sharedQuotaId(violation.quotaId.slice(0, 200)));
    }
  }
  if (quotaIds.length === 0 && innerMessage !== undefined && !looksLikeMarkup(innerMessage)) {
    for (const match of innerMessage.slice(0, 8192).matchAll(VERTEX_QUOTA_METRIC)) {
      if (match[1] !== undefined && quotaIds.length < 50) quotaIds.push(sharedQuotaId(match[1]));
    }
  }
  // An exact-size copy: an array grown by pushing reserves spare slots, held for the error's life.
  if (quotaIds.length > 0) metadata.quotaIds = quotaIds.slice();

  for (const detail of detailsOfType(details, DETAIL_TYPES.retryInfo)) {
    const retry = v.safeParse(RetryInfoDetail, detail);
    const seconds = retry.success ? parseDurationSeconds(retry.output.retryDelay) : undefined;
    if (seconds !== undefined) {
      metadata.retryAfterSeconds = seconds;
      break;
    }
  }

  for (const detail of detailsOfType(details, DETAIL_TYPES.badRequest)) {
    const badRequest = v.safeParse(BadRequestDetail, detail);
    const field = badRequest.success ? badRequest.output.fieldViolations?.[0]?.field : undefined;
    if (field !== undefined) {
      metadata.providerParam = field.slice(0, 200);
      break;
    }
  }

  // The raw body stays in memory only (non-enumerable): the JSON text, or the wrapped markup.
  const raw = innerMessage !== undefined && looksLikeMarkup(innerMessage) ? innerMessage : parsed.bodyText;
  if (raw !== undefined) attachRawBody(metadata, raw);
  return metadata;
}

/**
 * Reads a Gemini API or Vertex AI HTTP failure seen by any transport: the AI SDK's
 * `APICallError`, LangChain, a raw `fetch`. The body is read as @google/genai reads it (a JSON
 * body is the `ApiError` message; any other body is wrapped as
 * `{"error":{"message":<text>,"code":<status>}}`), then the same rules as
 * {@link googleGenaiExtractor} apply. Total: any status, headers or body.
 */
export function readGoogleGenaiHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const body = typeof bodyValue === 'string' ? bodyValue : '';
  let json = parseJsonSafely(body);
  if (Array.isArray(json)) json = json[0];
  const message = v.safeParse(GoogleErrorBody, json).success
    ? body
    : JSON.stringify({ error: { message: body.slice(0, MAX_MESSAGE_LENGTH), code: status } });
  const metadata = apiErrorMetadata(status, message, options.sdkErrorType ?? 'ApiError');
  if (status === undefined) metadata.origin = 'stream_event';
  // Gemini's RetryInfo outranks the headers; a proxy's Retry-After still counts without it.
  if (metadata.retryAfterSeconds === undefined) {
    const retryAfterSeconds = retryAfterFromHeaders(safeGet(response, 'headers'), options.now);
    if (retryAfterSeconds !== undefined) metadata.retryAfterSeconds = retryAfterSeconds;
  }
  return metadata;
}

/**
 * genai 1.x with `httpOptions.retryOptions` throws a plain `Error` that keeps only the status
 * text: `Retryable HTTP Error: Service Unavailable` (408/429/5xx, after the last attempt) or
 * `Non-retryable exception Bad Request sending request` (any other status; p-retry's AbortError
 * unwrapped). The body is lost. Source: genai-v1 dist/node/index.mjs `ApiClient.apiCall`.
 */
const GENAI_V1_RETRY_MESSAGE =
  /^(?:Retryable HTTP Error: (.{1,80})|Non-retryable exception (.{1,80}) sending request)$/;

/** HTTP reason phrases (RFC 9110 and common extensions), to recover the status genai 1.x dropped. */
const STATUS_BY_REASON_PHRASE: Readonly<Record<string, number>> = {
  'bad request': 400,
  unauthorized: 401,
  'payment required': 402,
  forbidden: 403,
  'not found': 404,
  'method not allowed': 405,
  'not acceptable': 406,
  'request timeout': 408,
  conflict: 409,
  gone: 410,
  'payload too large': 413,
  'content too large': 413,
  'unsupported media type': 415,
  'unprocessable entity': 422,
  'unprocessable content': 422,
  'too early': 425,
  'too many requests': 429,
  'unavailable for legal reasons': 451,
  'internal server error': 500,
  'not implemented': 501,
  'bad gateway': 502,
  'service unavailable': 503,
  'gateway timeout': 504,
};

function extractRetryWrapperError(error: unknown, message: string): ProviderErrorMetadata | undefined {
  const match = GENAI_V1_RETRY_MESSAGE.exec(message);
  if (!match) return undefined;
  // Only a plain Error (p-retry hands back the Error genai built): never a subclass of another SDK.
  const name = safeGet(error, 'name');
  if (name !== 'Error' && name !== undefined) return undefined;
  const statusText = (match[1] ?? match[2] ?? '').trim();
  const statusCode = STATUS_BY_REASON_PHRASE[statusText.toLowerCase()];
  const metadata: ProviderErrorMetadata = {
    provider: GOOGLE_GENAI_PROVIDER,
    sdkErrorType: 'Error',
    message,
    origin: 'http',
  };
  if (statusCode !== undefined) metadata.statusCode = statusCode;
  return metadata;
}

/**
 * The extractor for @google/genai (1.x, 2.x, 3.x; Gemini API and Vertex AI). Claims only what
 * provably came from the SDK: its `ApiError`, for HTTP errors and for error chunks inside a
 * stream. Raw transport errors (undici's `TypeError: fetch failed`, `terminated`, a DOMException
 * `AbortError`) carry nothing that names genai, so it returns `undefined` for them; the bound
 * `withClassifiedErrors` adds {@link googleGenaiTransportExtractor} for those.
 */
export const googleGenaiExtractor: Extractor = defineExtractor({
  provider: GOOGLE_GENAI_PROVIDER,
  extract(error) {
    const message = readMessage(error);
    if (message === undefined) return undefined;
    if (isGenaiApiError(error, message)) return extractApiError(error, message);
    return extractRetryWrapperError(error, message);
  },
});

/**
 * Raw transport failures thrown by @google/genai, which never wraps them: refused connections and
 * DNS failures (`TypeError: fetch failed` with `cause.code`), dropped sockets (`terminated`,
 * `UND_ERR_SOCKET`), and its timeout, which is a DOMException `AbortError` exactly like the
 * caller's own abort: `context.signal?.aborted` tells them apart.
 *
 * Also a `SyntaxError` thrown by undici's `Response.json()` on a 200 whose body is not JSON
 * (origin `malformed_response`), and genai's own plain `Error`s for a stream body that ends
 * part-way through an event or has no body at all (see {@link truncatedStream}).
 *
 * Nothing in such an error says it came from genai, so this extractor is only used where the
 * caller has said so: inside this package's `withClassifiedErrors`, after
 * {@link googleGenaiExtractor}. A `TypeError` from the caller's own code is still left alone.
 */
export const googleGenaiTransportExtractor: Extractor = defineExtractor({
  provider: GOOGLE_GENAI_PROVIDER,
  extract(error, context) {
    // render passes `streaming: true` while a guarded stream is read: a drop is then mid-stream.
    const streaming = safeGet(context, 'streaming') === true;
    const failure = inspectTransportError(error, context.signal, streaming);
    if (failure === undefined) return malformedBody(error) ?? truncatedStream(error, streaming);
    const metadata: ProviderErrorMetadata = {
      provider: GOOGLE_GENAI_PROVIDER,
      message: failure.message,
      origin: failure.origin,
      networkPhase:
        failure.origin === 'timeout' && failure.networkPhase === 'unknown' && abortedWhileReadingBody(error)
          ? 'response_body'
          : failure.networkPhase,
    };
    const name = safeGet(error, 'name');
    const type = constructorName(error) ?? (typeof name === 'string' ? name.slice(0, 200) : undefined);
    if (type !== undefined) metadata.sdkErrorType = type;
    if (failure.networkCode !== undefined) metadata.networkCode = failure.networkCode;
    return metadata;
  },
});

/**
 * genai's timeout aborts its own AbortController, and the DOMException `AbortError` reaches the
 * caller two ways (observed with genai 1, 2 and 3 on Node 20):
 * - while `fetch()` is still waiting for the response, undici's `fetch` wrapper rejects and
 *   re-captures the stack (`Error.captureStackTrace`): the first frame is in undici, the next
 *   ones in genai's `runFetch`. No response byte arrived: a timeout.
 * - while the body (or the stream) is being read, the reader rejects with the signal's reason
 *   untouched: its stack is still where it was made, `new DOMException` in
 *   `AbortController.abort` called from a timer. The status had arrived: the answer was cut.
 * Anything else (a stack in another format) keeps the phase unknown, read as a timeout.
 */
function abortedWhileReadingBody(error: unknown): boolean {
  const stack = safeGet(error, 'stack');
  if (typeof stack !== 'string') return false;
  const frames = stack
    .slice(0, 2000)
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 3);
  return (
    frames.length > 0 &&
    frames.some((frame) => /AbortController\.abort/.test(frame)) &&
    !/undici/.test(frames[0] ?? '')
  );
}

/**
 * A 200 whose body is not JSON (a proxy's HTML page, a cut body): genai calls undici's
 * `Response.json()`, which throws a raw `SyntaxError` whose stack starts in undici's
 * `parseJSONFromBytes` (observed with genai 1, 2 and 3). A `SyntaxError` from the caller's own
 * `JSON.parse` has no undici frame and is left alone.
 */
function malformedBody(error: unknown): ProviderErrorMetadata | undefined {
  if (safeGet(error, 'name') !== 'SyntaxError') return undefined;
  const stack = safeGet(error, 'stack');
  if (typeof stack !== 'string') return undefined;
  const top = stack.slice(0, 2000).split('\n').slice(0, 4).join('\n');
  if (!/parseJSONFromBytes|undici/.test(top)) return undefined;
  return {
    provider: GOOGLE_GENAI_PROVIDER,
    sdkErrorType: 'SyntaxError',
    // Not the SyntaxError's own message: V8 quotes the start of the body in it.
    message: 'The response body could not be read as JSON.',
    origin: 'malformed_response',
  };
}

/**
 * genai's stream reader (`processStreamResponse`, genai 1, 2 and 3) throws a plain `Error` of its
 * own when the body ends in the middle of an event, `"Incomplete JSON segment at the end"` (a
 * connection closed cleanly part-way through a chunk), and `"Response body is empty"` when there
 * is no body to read. The answer stopped short: a network interruption, mid-stream when a guarded
 * stream was being read. Only these exact messages on a plain `Error` are claimed.
 */
function truncatedStream(error: unknown, streaming: boolean): ProviderErrorMetadata | undefined {
  const name = safeGet(error, 'name');
  if (name !== 'Error') return undefined;
  const message = safeGet(error, 'message');
  if (message !== 'Incomplete JSON segment at the end' && message !== 'Response body is empty')
    return undefined;
  return {
    provider: GOOGLE_GENAI_PROVIDER,
    sdkErrorType: 'Error',
    message:
      message === 'Response body is empty'
        ? 'The stream had no body to read.'
        : 'The stream ended part-way through a chunk.',
    origin: 'network',
    networkPhase: streaming ? 'stream' : 'response_body',
  };
}

/** Finish reasons that mean the answer was withheld by a safety or policy filter. */
const BLOCKING_FINISH_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Reads a generate-content answer that came back with a success status and says whether Gemini
 * withheld it: `promptFeedback.blockReason` (SAFETY, OTHER, BLOCKLIST, PROHIBITED_CONTENT,
 * IMAGE_SAFETY, …) or every candidate ending with a blocking `finishReason` (SAFETY, RECITATION,
 * PROHIBITED_CONTENT, BLOCKLIST, SPII, IMAGE_SAFETY). Returns metadata with origin
 * `blocked_response` (classify makes it `content_policy`), or `undefined` for a normal answer.
 * Works on a unary result, on one stream chunk, and on an array of collected chunks. Total: never throws.
 */
export function detectGeminiBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  try {
    if (result === null || typeof result !== 'object') return undefined;
    if (Array.isArray(result)) {
      // The chunks of a stream collected into an array (bounded).
      for (const chunk of result.slice(0, 10_000)) {
        if (Array.isArray(chunk)) continue;
        const metadata = detectGeminiBlockedAnswer(chunk);
        if (metadata !== undefined) return metadata;
      }
      return undefined;
    }
    const answer = v.safeParse(GenerateContentAnswer, {
      promptFeedback: safeGet(result, 'promptFeedback'),
      candidates: safeGet(result, 'candidates'),
    });
    if (!answer.success) return undefined;
    const promptBlock = answer.output.promptFeedback?.blockReason;
    if (promptBlock !== undefined && promptBlock !== '' && promptBlock !== 'BLOCKED_REASON_UNSPECIFIED') {
      const detail = answer.output.promptFeedback?.blockReasonMessage;
      return blocked(
        promptBlock,
        `Gemini blocked the prompt (blockReason ${promptBlock})${detail ? `: ${detail.slice(0, 1000)}` : '.'}`,
      );
    }
    const candidates = answer.output.candidates ?? [];
    if (candidates.length === 0) return undefined;
    const reasons = candidates.map((candidate) => candidate.finishReason);
    if (reasons.every((reason) => reason !== undefined && BLOCKING_FINISH_REASONS.has(reason))) {
      const reason = reasons[0] as string;
      const detail = candidates[0]?.finishMessage;
      return blocked(
        reason,
        `Gemini withheld the answer (finishReason ${reason})${detail ? `: ${detail.slice(0, 1000)}` : '.'}`,
      );
    }
    return undefined;
  } catch {
    return undefined;
  }
}

function blocked(reason: string, message: string): ProviderErrorMetadata {
  const code = reason.slice(0, 100);
  return {
    provider: GOOGLE_GENAI_PROVIDER,
    origin: 'blocked_response',
    message,
    blockReason: code,
    providerCode: code,
  };
}
