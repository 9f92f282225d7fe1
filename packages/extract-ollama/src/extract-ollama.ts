import type {
  Extractor,
  HttpFailure,
  HttpFailureReadOptions,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  attachRawBody,
  checkOptionKeys,
  defineExtractor,
  describeTextBody,
  HTTP_FAILURE_READ_OPTION_KEYS,
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
import { OllamaErrorBody, OllamaErrorObject } from './ollama-error-shape.ts';

/** The provider key faultline uses for Ollama (providers.json). */
export const OLLAMA_PROVIDER = 'ollama';

/** What ollama-js says when a stream ends without a `done` line (its own words, in both 0.5 and 0.6). */
const STREAM_INCOMPLETE_MESSAGE = 'Did not receive done or success response in stream.';

/**
 * Where ollama-js throws an `{"error"}` stream line: its `AbortableAsyncIterator`'s
 * `[Symbol.asyncIterator]` re-throws the line's words as a plain `Error`, with nothing but the
 * message and the stack to tell it from any other. The first frame is that method in the package's
 * own `dist` (as npm, pnpm and yarn install it); a bundle that moves the SDK into the app's own file
 * leaves the error unclaimed (render reads it as unknown), never misread.
 */
const STREAM_ITERATOR_FRAME =
  /^\s*at \[Symbol\.asyncIterator\] \(.*[\\/]ollama[\\/]dist[\\/][^\\/]+\.[cm]?js:\d+:\d+\)$/;

function hasKey(value: object, key: string): boolean {
  try {
    return key in value;
  } catch {
    return false;
  }
}

/** ollama-js's `ResponseError`: `name`, `error` (the body's `error`, or its whole text) and `status_code`. */
function isResponseError(error: object): boolean {
  if (safeStatus(safeGet(error, 'status_code')) === undefined || !hasKey(error, 'error')) return false;
  return safeGet(error, 'name') === 'ResponseError' || prototypeNames(error).includes('ResponseError');
}

/** A plain `Error` (no subclass, no SDK fields) whose first frame is ollama-js's stream iterator. */
function isStreamIteratorError(error: object): boolean {
  if (safeGet(error, 'name') !== 'Error') return false;
  const names = prototypeNames(error);
  if (names.length > 0 && names[0] !== 'Error') return false;
  const stack = safeString(safeGet(error, 'stack'), 4000);
  if (stack === undefined) return false;
  const firstFrame = stack.split('\n').find((line) => /^\s*at /.test(line));
  return firstFrame !== undefined && STREAM_ITERATOR_FRAME.test(firstFrame);
}

/** ollama-js's own words for a stream that ended without its `done` part (a plain `Error`). */
function isStreamIncomplete(error: object): boolean {
  return safeGet(error, 'name') === 'Error' && messageOf(error, 200) === STREAM_INCOMPLETE_MESSAGE;
}

/**
 * What an answered failure consists of, whichever transport saw it: ollama-js's `ResponseError`
 * (the status and the body's `error`, already taken out of the JSON, or the whole text body) or a
 * raw HTTP response read by {@link readOllamaHttpFailure}.
 */
interface AnsweredFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  /** The body's `error` field (a string or an object), when the body was Ollama's JSON. */
  readonly error: unknown;
  /** The body as text, when it was not JSON (or its JSON had no `error`). */
  readonly text: string | undefined;
  readonly sdkErrorType: string | undefined;
}

/** The rules for an answered failure, shared by {@link ollamaExtractor} and {@link readOllamaHttpFailure}. */
function answeredMetadata(failure: AnsweredFailure, now: number): ProviderErrorMetadata {
  const { status, headers, error } = failure;
  let message: string | undefined;
  let inner: OllamaErrorObject | undefined;
  if (typeof error === 'string') {
    message = error;
  } else if (error !== null && typeof error === 'object') {
    const parsed = v.safeParse(OllamaErrorObject, {
      message: safeGet(error, 'message'),
      type: safeGet(error, 'type'),
      code: safeGet(error, 'code'),
      param: safeGet(error, 'param'),
    });
    if (parsed.success) {
      inner = parsed.output;
      message = inner.message;
    }
  }
  if (message === undefined || message.trim() === '') {
    message =
      failure.text === undefined ? `HTTP ${status ?? 'error'}` : describeTextBody(failure.text, status);
  }
  const metadata: ProviderErrorMetadata = {
    provider: OLLAMA_PROVIDER,
    message: message.slice(0, 4096),
    origin: 'http',
  };
  if (status !== undefined) metadata.statusCode = status;
  if (failure.sdkErrorType !== undefined) metadata.sdkErrorType = failure.sdkErrorType;
  if (inner?.code !== undefined && inner.code !== null && inner.code !== '')
    metadata.providerCode = String(inner.code);
  if (typeof inner?.type === 'string' && inner.type !== '') metadata.providerType = inner.type;
  if (typeof inner?.param === 'string' && inner.param !== '') metadata.providerParam = inner.param;
  const requestId = readHeader(headers, 'x-request-id') ?? readHeader(headers, 'request-id');
  if (requestId !== undefined && requestId !== '') metadata.requestId = requestId.slice(0, 200);
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  // In memory only (non-enumerable): never in JSON, a report or a log.
  const raw = failure.text ?? (typeof error === 'string' ? error : undefined);
  if (raw !== undefined && raw !== '') attachRawBody(metadata, raw);
  return metadata;
}

/**
 * Reads an Ollama HTTP failure seen by any transport (the AI SDK's `APICallError`, LangChain, a
 * raw `fetch`, the CLI) with the same rules as {@link ollamaExtractor}: the body's `error` (a
 * string, or a proxy's `{ message, type, code }` object), else its text. A response without a
 * status is an `{"error"}` line inside a stream that began with 200. Total: any status, headers
 * or body.
 */
export function readOllamaHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const text = typeof bodyValue === 'string' ? bodyValue.slice(0, MAX_RAW_BODY_LENGTH) : '';
  const parsed = v.safeParse(OllamaErrorBody, parseJsonSafely(text));
  const error = parsed.success ? parsed.output.error : undefined;
  const metadata = answeredMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      error,
      text: error === undefined ? text : undefined,
      sdkErrorType: options.sdkErrorType,
    },
    options.now ?? Date.now(),
  );
  if (error !== undefined && text !== '') attachRawBody(metadata, text);
  if (status === undefined) metadata.origin = 'stream_event';
  return metadata;
}

function responseErrorMetadata(error: object, now: number): ProviderErrorMetadata {
  const status = safeStatus(safeGet(error, 'status_code'));
  const field = safeGet(error, 'error');
  // ollama-js keeps the JSON body's `error` when the answer said application/json, else the text.
  // Which one it was is not recorded: a string that parses as Ollama's JSON body is read as one.
  const text = typeof field === 'string' ? field.slice(0, MAX_RAW_BODY_LENGTH) : undefined;
  const looksLikeText = text !== undefined && /^\s*(?:<|\{)/.test(text);
  let inner: unknown = field;
  if (looksLikeText) {
    const parsed = v.safeParse(OllamaErrorBody, parseJsonSafely(text));
    inner = parsed.success ? parsed.output.error : undefined;
  }
  return answeredMetadata(
    {
      status,
      headers: undefined,
      error: inner,
      text: looksLikeText && inner === undefined ? text : undefined,
      sdkErrorType: 'ResponseError',
    },
    now,
  );
}

function streamIteratorMetadata(error: object): ProviderErrorMetadata {
  const message = messageOf(error, 4096);
  if (message === STREAM_INCOMPLETE_MESSAGE) {
    return {
      provider: OLLAMA_PROVIDER,
      sdkErrorType: 'Error',
      message: 'Ollama ended the stream without its final ("done") line.',
      origin: 'malformed_response',
      networkPhase: 'stream',
      sdkCondition: 'stream_incomplete',
    };
  }
  // An `{"error":"..."}` line after the 200: the provider's words, read as a stream error event.
  const metadata = readOllamaHttpFailure({ status: undefined, body: JSON.stringify({ error: message }) });
  metadata.sdkErrorType = 'Error';
  metadata.networkPhase = 'stream';
  return metadata;
}

/**
 * An `AbortError` from a call through ollama-js. The SDK has no timeout and no abort of its own but
 * the stream iterator's `abort()`: a request ends early only by a signal the app gave the client's
 * `fetch` (or by that `abort()`), so the abort is the signal's, and classify's rule for who fired a
 * signal applies (a `TimeoutError` reason is a timer's, anything else the caller's). Read in this
 * adapter because the built-in transport extractor reads a bare AbortError as an SDK's own timeout.
 */
function abortMetadata(error: object, signal: unknown, streaming: boolean): ProviderErrorMetadata {
  const origin = signalAbortOrigin(error, signal instanceof AbortSignal ? signal : undefined);
  return {
    provider: OLLAMA_PROVIDER,
    sdkErrorType: 'AbortError',
    message: messageOf(error, 500) || 'This operation was aborted',
    origin,
    networkPhase: origin === 'timeout' ? (streaming ? 'stream' : 'before_response') : 'unknown',
  };
}

/**
 * Reads what ollama-js (0.5 and 0.6) throws: `ResponseError` for an answered failure (its `error`
 * is the body's `error` words, or the whole text body; `status_code` the status; ollama-js keeps
 * no headers), the plain `Error` its stream iterator throws for an `{"error"}` line after the 200,
 * its own "Did not receive done" when a stream ends early, and a fetch signal's `AbortError`.
 * Everything else (undici's `TypeError: fetch failed`, a cut stream's `terminated`, a
 * `TimeoutError`) is left to render's built-in transport extractor. Classify decides the reason from the words (vocabularies
 * live in packages/classify, never here).
 */
export const ollamaExtractor: Extractor = defineExtractor({
  provider: OLLAMA_PROVIDER,
  extract(error, context) {
    if (error === null || typeof error !== 'object') return undefined;
    if (isResponseError(error)) return responseErrorMetadata(error, context.now?.() ?? Date.now());
    if (isStreamIncomplete(error) || isStreamIteratorError(error)) return streamIteratorMetadata(error);
    // Only with the signal the caller gave: without one, whose abort it was is unknown, and the
    // transport extractor's reading (a classified failure, never an untouched rejection) holds.
    const signal = safeGet(context, 'signal');
    if (safeGet(error, 'name') === 'AbortError' && signal instanceof AbortSignal) {
      return abortMetadata(error, signal, safeGet(context, 'streaming') === true);
    }
    return undefined;
  },
});
