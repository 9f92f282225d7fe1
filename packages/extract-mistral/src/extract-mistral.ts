import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
  RateLimitBudget,
} from '@faultline/classify';
import {
  attachRawBody,
  checkOptionKeys,
  constructorName,
  defineExtractor,
  describeTextBody,
  HTTP_FAILURE_READ_OPTION_KEYS,
  inspectTransportError,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  type RateLimitHeaderNames,
  readHeader,
  readRateLimitBudget,
  retryAfterFromHeaders,
  safeGet,
  safeStatus,
  safeString,
  signalAbortOrigin,
  X_RATELIMIT_HEADERS,
} from '@faultline/classify/toolkit';
import * as v from 'valibot';
import { MistralErrorBody, MistralValidationIssue } from './mistral-error-shape.ts';

/** The provider key faultline uses for Mistral. */
export const MISTRAL_PROVIDER = 'mistral';

/** The headers Mistral states a key's rate-limit budget in (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as durations: "1s", "6m0s", "20ms"). */
export const MISTRAL_RATE_LIMIT_HEADERS: RateLimitHeaderNames = X_RATELIMIT_HEADERS;

/**
 * The rate-limit budget an answer's headers state, from the headers or from what holds them (a
 * `Response`, the SDK's `withResponse()` result, an SDK error); `undefined` when none is there.
 */
export function readMistralRateLimit(source: unknown, now: number = Date.now()): RateLimitBudget | undefined {
  return readRateLimitBudget(source, MISTRAL_RATE_LIMIT_HEADERS, now);
}

/** What render passes beyond classify's context (read duck-typed: render is not imported here). */
interface Context {
  readonly signal?: AbortSignal | undefined;
  readonly now?: (() => number) | undefined;
}

function hasKey(value: object, key: string): boolean {
  try {
    return key in value;
  } catch {
    return false;
  }
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

type MistralKind = 'http' | 'client' | 'sdk-validation' | 'stream-chunk';

/** The SDK's HTTP error classes (models/errors, 1.x and 2.x); ResponseValidationError is another SDK's name too. */
const HTTP_ERROR_NAMES = new Set(['MistralError', 'SDKError', 'HTTPValidationError', 'ObservabilityError']);

/**
 * Which Mistral SDK error this is, if any. Speakeasy classes: `SDKError`/`HTTPValidationError`/
 * `ResponseValidationError` (> `MistralError`: `statusCode`, raw string `body`, `headers`,
 * `contentType`, `rawResponse`), the `HTTPClientError` family, `SDKValidationError`, and the raw
 * `ZodError` the SDK lets escape when a stream event does not parse.
 */
function kindOf(error: object): MistralKind | undefined {
  const names = prototypeNames(error);
  const name = safeString(safeGet(error, 'name'), 100);
  const status = safeStatus(safeGet(error, 'statusCode'));
  // Without the class chain (a bundled, minified copy), the fields of every Speakeasy SDK's HTTP error
  // and a name only this SDK gives: another Speakeasy SDK's error (@openrouter/sdk's
  // TooManyRequestsResponseError ...) is left to its own extractor.
  if (
    names.includes('MistralError') ||
    (status !== undefined &&
      name !== undefined &&
      HTTP_ERROR_NAMES.has(name) &&
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
  if (name === 'ZodError' && isCompletionEventIssueList(safeGet(error, 'issues'))) return 'stream-chunk';
  return undefined;
}

// Fields of the SDK's CompletionEvent (`{ data: CompletionChunk }`) that an error event lacks.
const CHUNK_FIELDS = new Set(['id', 'model', 'choices', 'object', 'created', 'usage']);

/** A ZodError from parsing a stream event: every issue is under `data`, at a chunk field. */
function isCompletionEventIssueList(issues: unknown): boolean {
  if (!Array.isArray(issues) || issues.length === 0) return false;
  let chunkField = false;
  for (const issue of issues.slice(0, 50)) {
    const path = safeGet(issue, 'path');
    if (!Array.isArray(path) || path[0] !== 'data') return false;
    if (typeof path[1] === 'string' && CHUNK_FIELDS.has(path[1])) chunkField = true;
  }
  return chunkField;
}

/** `loc: msg` for each validation issue; `input` (which may echo the prompt) is never read. */
function describeIssues(detail: unknown): string | undefined {
  if (!Array.isArray(detail)) return undefined;
  const parts: string[] = [];
  for (const item of detail.slice(0, 5)) {
    const parsed = v.safeParse(MistralValidationIssue, {
      loc: safeGet(item, 'loc'),
      msg: safeGet(item, 'msg'),
      type: safeGet(item, 'type'),
    });
    if (!parsed.success) continue;
    const where = parsed.output.loc?.map((part) => String(part)).join('.') ?? '(body)';
    parts.push(`${where}: ${parsed.output.msg ?? parsed.output.type ?? 'invalid'}`);
  }
  if (parts.length === 0) return undefined;
  const more = detail.length > 5 ? ` (+${detail.length - 5} more)` : '';
  return `Request validation failed: ${parts.join('; ')}${more}`;
}

function httpMetadata(error: object, context: Context): ProviderErrorMetadata {
  const name = safeString(safeGet(error, 'name'), 100);
  return answeredMetadata(
    {
      status: safeStatus(safeGet(error, 'statusCode')),
      headers: safeGet(error, 'headers'),
      bodyText: safeString(safeGet(error, 'body'), 1024 * 1024) ?? '',
      sdkErrorType: name !== undefined && name !== 'Error' ? name : constructorName(error),
      responseValidation: name === 'ResponseValidationError',
      source: error,
    },
    context.now?.() ?? Date.now(),
  );
}

/**
 * What an answered failure consists of, whichever transport saw it: the SDK's `MistralError`
 * (`statusCode`, `headers`, the raw `body` string) or a raw HTTP response read by
 * {@link readMistralHttpFailure}.
 */
interface AnsweredFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  readonly bodyText: string;
  readonly sdkErrorType: string | undefined;
  /** The SDK said the answer did not match its schema (`ResponseValidationError`). */
  readonly responseValidation: boolean;
  /** The SDK's error (its `cause.issues`, its parsed `detail`); undefined for a raw response. */
  readonly source: unknown;
}

/** The rules for an answered failure, shared by the SDK path and {@link readMistralHttpFailure}. */
function answeredMetadata(failure: AnsweredFailure, now: number): ProviderErrorMetadata {
  const { status, headers, bodyText, sdkErrorType, source: error } = failure;
  const parsed = v.safeParse(MistralErrorBody, parseJsonSafely(bodyText));
  const body = parsed.success ? parsed.output : undefined;

  const responseInvalid = failure.responseValidation || (status !== undefined && status < 400);
  let message: string | undefined;
  if (responseInvalid) {
    const issues = safeGet(safeGet(error, 'cause'), 'issues');
    const described = Array.isArray(issues)
      ? issues
          .slice(0, 3)
          .map((issue) => {
            const path = safeGet(issue, 'path');
            return Array.isArray(path) ? path.map((part) => String(part)).join('.') : '(root)';
          })
          .join(', ')
      : '';
    message = `Mistral answered ${status ?? ''} with a body the SDK could not read${described ? ` (${described})` : ''}`;
  } else if (typeof body?.message === 'string') {
    message = body.message;
  } else {
    message =
      describeIssues(safeGet(body?.message, 'detail')) ??
      describeIssues(body?.detail) ??
      describeIssues(safeGet(error, 'detail')) ??
      (typeof body?.detail === 'string' ? body.detail : undefined);
  }
  if (message === undefined || message === '') {
    // A text body (a proxy's words) stays in rawBody only: it is not the provider's structured message.
    message = body !== undefined ? `HTTP ${status ?? 'error'}` : describeTextBody(bodyText, status, 0);
  }

  const metadata: ProviderErrorMetadata = {
    provider: MISTRAL_PROVIDER,
    message: message.slice(0, 4096),
    origin: responseInvalid ? 'malformed_response' : 'http',
  };
  if (status !== undefined) metadata.statusCode = status;
  if (sdkErrorType !== undefined) metadata.sdkErrorType = sdkErrorType;
  if (body !== undefined) {
    if (body.code !== null && body.code !== undefined && body.code !== '')
      metadata.providerCode = String(body.code);
    if (typeof body.type === 'string' && body.type !== '') metadata.providerType = body.type;
    if (body.param !== null && body.param !== undefined && body.param !== '')
      metadata.providerParam = String(body.param);
  }
  const requestId =
    body?.request_id ?? readHeader(headers, 'x-request-id') ?? readHeader(headers, 'mistral-correlation-id');
  if (requestId !== undefined && requestId !== '') metadata.requestId = requestId.slice(0, 200);
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  const rateLimit = readRateLimitBudget(headers, MISTRAL_RATE_LIMIT_HEADERS, now);
  if (rateLimit !== undefined) metadata.rateLimit = rateLimit;
  if (bodyText !== '') attachRawBody(metadata, bodyText);
  return metadata;
}

/**
 * Reads a Mistral HTTP failure seen by any transport: the AI SDK's `APICallError`, LangChain, a
 * raw `fetch`. The body text is read as @mistralai/mistralai keeps it (`MistralError.body`, parsed
 * leniently: `message`, `detail`, `code`, `type`, `param`), then the same rules as
 * {@link mistralExtractor} apply. Total: any status, headers or body.
 */
export function readMistralHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const bodyValue = safeGet(response, 'body');
  const status = safeStatus(safeGet(response, 'status'));
  const metadata = answeredMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      bodyText: typeof bodyValue === 'string' ? bodyValue.slice(0, 1024 * 1024) : '',
      sdkErrorType: options.sdkErrorType,
      responseValidation: false,
      source: undefined,
    },
    options.now ?? Date.now(),
  );
  // No status: an error event inside a stream that began with 200.
  if (status === undefined) metadata.origin = 'stream_event';
  return metadata;
}

function clientMetadata(error: object, context: Context, streaming: boolean): ProviderErrorMetadata {
  const name = safeString(safeGet(error, 'name'), 100) ?? constructorName(error) ?? 'HTTPClientError';
  const message = messageOf(error, 1000) || name;
  const base = { provider: MISTRAL_PROVIDER, sdkErrorType: name, message };
  // Object.assign, not `{ ...base, origin }`: on Node 20 a spread followed by added keys costs
  // about 1 µs a call (a new hidden class each time); Object.assign about 60 ns. Same keys, same order.
  if (name === 'RequestAbortedError')
    return Object.assign({}, base, { origin: 'abort', networkPhase: 'unknown' } as const);
  if (name === 'RequestTimeoutError') {
    // v2's default 300 s timeout (AbortSignal.timeout) also covers reading a stream.
    return Object.assign({}, base, {
      origin: 'timeout',
      networkPhase: streaming ? 'stream' : 'before_response',
    } as const);
  }
  if (name === 'InvalidRequestError') return Object.assign({}, base, { origin: 'validation' } as const);
  const cause = safeGet(error, 'cause');
  const transport = cause === undefined ? undefined : inspectTransportError(cause, context.signal, streaming);
  if (transport !== undefined) {
    const metadata: ProviderErrorMetadata = Object.assign({}, base, {
      origin: transport.origin,
      networkPhase: transport.networkPhase,
    });
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  return Object.assign({}, base, { origin: 'network', networkPhase: 'unknown' } as const);
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

function streamChunkMetadata(error: object): ProviderErrorMetadata {
  const paths = issuePaths(safeGet(error, 'issues'));
  return {
    provider: MISTRAL_PROVIDER,
    sdkErrorType: 'ZodError',
    // The SDK drops the event itself; most often it is an error event sent mid-stream.
    message: `Mistral sent a stream event the SDK could not read (missing ${paths.join(', ')}); most often an error event mid-stream.`,
    origin: 'malformed_response',
    networkPhase: 'stream',
    sdkCondition: 'stream_incomplete',
  };
}

/**
 * A stream read ended by a signal. The SDK reads a stream from the fetch body, so the abort arrives
 * as a bare DOMException: its own `timeoutMs` gives a `TimeoutError`, a signal an `AbortError`
 * (probed on 1.15 and 2.7). An `AbortError` is therefore a signal's, and classify's rule for who
 * fired a signal applies. A `TimeoutError` is left to the built-in transport extractor.
 */
function streamAbortMetadata(error: object, context: Context): ProviderErrorMetadata | undefined {
  if (safeGet(error, 'name') !== 'AbortError') return undefined;
  const origin = signalAbortOrigin(error, safeGet(context, 'signal') as AbortSignal | undefined);
  return {
    provider: MISTRAL_PROVIDER,
    sdkErrorType: 'AbortError',
    message: messageOf(error, 500) || 'This operation was aborted',
    origin,
    networkPhase: origin === 'timeout' ? 'stream' : 'unknown',
  };
}

function extractMistral(error: unknown, context: Context): ProviderErrorMetadata | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const streaming = safeGet(context, 'streaming') === true;
  const kind = kindOf(error);
  if (kind === undefined) return streaming ? streamAbortMetadata(error, context) : undefined;
  switch (kind) {
    case 'http':
      return httpMetadata(error, context);
    case 'client':
      return clientMetadata(error, context, streaming);
    case 'sdk-validation': {
      const rawMessage = safeString(safeGet(error, 'rawMessage'), 500) ?? '';
      const response = /response/i.test(rawMessage);
      // `rawValue` is the caller's own request (it holds the prompt): only the issue paths are kept.
      const paths = issuePaths(safeGet(safeGet(error, 'cause'), 'issues'));
      return {
        provider: MISTRAL_PROVIDER,
        sdkErrorType: 'SDKValidationError',
        message: `${rawMessage || 'Validation failed'}${paths.length > 0 ? ` at ${paths.join(', ')}` : ''}`,
        origin: response ? 'malformed_response' : 'validation',
      };
    }
    case 'stream-chunk':
      return streamChunkMetadata(error);
  }
}

/**
 * Reads every error @mistralai/mistralai throws (1.x and 2.x): HTTP errors (`SDKError`,
 * `HTTPValidationError`, the raw body parsed leniently), a 200 of the wrong shape
 * (`ResponseValidationError`), `ConnectionError`/`RequestTimeoutError`/`RequestAbortedError`, and
 * the raw `ZodError` a stream error event produces. Returns `undefined` for anything else (a cut
 * stream's raw `TypeError: terminated` is left to the built-in transport extractor).
 */
export const mistralExtractor: Extractor = defineExtractor({
  provider: MISTRAL_PROVIDER,
  extract: extractMistral,
});
