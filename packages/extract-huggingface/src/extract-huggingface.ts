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
  retryAfterFromHeaders,
  safeGet,
  safeStatus,
  safeString,
} from '@faultline/classify/toolkit';
import * as v from 'valibot';
import { HuggingfaceErrorBody } from './huggingface-error-shape.ts';

/** The provider key faultline uses for Hugging Face (providers.json). */
export const HUGGINGFACE_PROVIDER = 'huggingface';

/**
 * The `name`s @huggingface/inference (4.x) gives its errors that carry an answer: `ProviderApiError`
 * (the inference request) and `HubApiError` (the Hub's model-to-provider lookup). Each keeps
 * `httpResponse: { requestId, status, body }` (the body parsed when it was JSON) and never the headers.
 */
const HTTP_ERROR_NAMES = new Set(['ProviderApiError', 'HubApiError']);

/** What the SDK prefixes every answered failure's message with; the provider's words follow it. */
const SDK_PREFIX = /^Failed to perform inference:\s*/;

/** The SDK's own words for a model no enabled provider serves (`InputError`): the model, not the request. */
const NO_PROVIDER_FOR_MODEL =
  /^(?:No Inference Provider available for model|We have not been able to find inference provider information for model)/;

function nameOf(error: object): string | undefined {
  return safeString(safeGet(error, 'name'), 200);
}

/** An answered failure, whichever transport saw it: the SDK's `httpResponse` or a raw HTTP response. */
interface AnsweredFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  /** The body: parsed JSON (the SDK parses it), or text. */
  readonly body: unknown;
  readonly requestId: string | undefined;
  readonly sdkErrorType: string | undefined;
  /** The SDK's own message, used when the body says nothing. */
  readonly fallbackMessage: string | undefined;
}

/** The rules for an answered failure, shared by {@link huggingfaceExtractor} and {@link readHuggingfaceHttpFailure}. */
function answeredMetadata(failure: AnsweredFailure, now: number): ProviderErrorMetadata {
  const { status, body } = failure;
  const text = typeof body === 'string' ? body.slice(0, MAX_RAW_BODY_LENGTH) : undefined;
  const json = text === undefined ? body : parseJsonSafely(text);
  const parsed =
    json !== null && typeof json === 'object' ? v.safeParse(HuggingfaceErrorBody, json) : undefined;
  const fields = parsed?.success === true ? parsed.output : undefined;
  const inner = typeof fields?.error === 'object' ? fields.error : undefined;
  const words =
    (typeof fields?.error === 'string' ? fields.error : inner?.message) ?? fields?.detail ?? fields?.message;
  let message = words !== undefined && words.trim() !== '' ? words : undefined;
  // A body that is not the provider's JSON; an empty one says nothing, so the SDK's words stand.
  if (message === undefined && text !== undefined && fields === undefined && text.trim() !== '')
    message = describeTextBody(text, status, 300);
  message ??= failure.fallbackMessage || `HTTP ${status ?? 'error'}`;
  const metadata: ProviderErrorMetadata = {
    provider: HUGGINGFACE_PROVIDER,
    message: message.slice(0, 4096),
    origin: 'http',
  };
  if (status !== undefined) metadata.statusCode = status;
  if (failure.sdkErrorType !== undefined) metadata.sdkErrorType = failure.sdkErrorType;
  if (inner?.code !== undefined && inner.code !== null && inner.code !== '')
    metadata.providerCode = String(inner.code);
  const type = inner?.type ?? fields?.error_type;
  if (typeof type === 'string' && type !== '') metadata.providerType = type;
  if (typeof inner?.param === 'string' && inner.param !== '') metadata.providerParam = inner.param;
  if (failure.requestId !== undefined && failure.requestId !== '')
    metadata.requestId = failure.requestId.slice(0, 200);
  // A header's wait first; a loading model's own estimate (`estimated_time`, seconds) otherwise.
  const retryAfter = retryAfterFromHeaders(failure.headers, now);
  const estimate = fields?.estimated_time;
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  else if (estimate !== undefined && Number.isFinite(estimate) && estimate > 0)
    metadata.retryAfterSeconds = Math.ceil(estimate);
  // In memory only (non-enumerable): never in JSON, a report or a log.
  const raw = text ?? (json === undefined || json === null ? undefined : safeJson(json));
  if (raw !== undefined && raw !== '') attachRawBody(metadata, raw);
  return metadata;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)?.slice(0, MAX_RAW_BODY_LENGTH);
  } catch {
    return undefined;
  }
}

/**
 * Reads a Hugging Face HTTP failure seen by any transport (the AI SDK's `APICallError`, LangChain, a
 * raw `fetch`, the CLI) with the same rules as {@link huggingfaceExtractor}: the body's `error` (a
 * string, or the router's `{ message, type, code }`), `detail` or `message`, `estimated_time` for a
 * loading model, else its text. A response without a status is an `{"error"}` event inside a stream
 * that began with 200. Total: any status, headers or body.
 */
export function readHuggingfaceHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const status = safeStatus(safeGet(response, 'status'));
  const bodyValue = safeGet(response, 'body');
  const headers = safeGet(response, 'headers');
  const requestId = safeString(readRequestId(headers), 200);
  const metadata = answeredMetadata(
    {
      status,
      headers,
      body: typeof bodyValue === 'string' ? bodyValue : '',
      requestId,
      sdkErrorType: options.sdkErrorType,
      fallbackMessage: undefined,
    },
    options.now ?? Date.now(),
  );
  if (status === undefined) metadata.origin = 'stream_event';
  return metadata;
}

function readRequestId(headers: unknown): unknown {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = safeGet(headers, 'get');
  if (typeof get === 'function') {
    try {
      return get.call(headers, 'x-request-id') ?? undefined;
    } catch {
      return undefined;
    }
  }
  return safeGet(headers, 'x-request-id');
}

/** `ProviderApiError` / `HubApiError`: the answer the SDK kept (`httpResponse`), never `httpRequest` (the prompt). */
function httpErrorMetadata(error: object, now: number): ProviderErrorMetadata | undefined {
  const response = safeGet(error, 'httpResponse');
  if (response === null || typeof response !== 'object') return undefined;
  const status = safeStatus(safeGet(response, 'status'));
  if (status === undefined) return undefined;
  const name = nameOf(error) ?? 'Error';
  const metadata = answeredMetadata(
    {
      // A 200 here is an `{"error"}` event after the stream's headers: the event's words decide.
      status: status === 200 ? undefined : status,
      headers: undefined,
      body: safeGet(response, 'body'),
      requestId: safeString(safeGet(response, 'requestId'), 200),
      sdkErrorType: name,
      fallbackMessage: messageOf(error, 2000).replace(SDK_PREFIX, ''),
    },
    now,
  );
  if (status === 200) {
    metadata.origin = 'stream_event';
    metadata.networkPhase = 'stream';
  }
  return metadata;
}

/**
 * Reads what @huggingface/inference (4.x) throws: `ProviderApiError` and `HubApiError` by the answer
 * they keep (status, request id, the parsed body; a 200 is an `{"error"}` event mid-stream),
 * `ProviderOutputError` (an answer the SDK could not read) and the `InputError` that says no enabled
 * provider serves the model. Everything else (undici's `TypeError: fetch failed`, a cut stream's
 * `terminated`, an `AbortError` or `TimeoutError` from the call's `signal`) is left to render's
 * built-in transport extractor. Classify decides the reason from the words (vocabularies live in
 * packages/classify, never here).
 */
export const huggingfaceExtractor: Extractor = defineExtractor({
  provider: HUGGINGFACE_PROVIDER,
  extract(error, context) {
    if (error === null || typeof error !== 'object') return undefined;
    const name = nameOf(error);
    if (name === undefined) return undefined;
    const classes = prototypeNames(error);
    if (HTTP_ERROR_NAMES.has(name) && classes.some((each) => each.startsWith('InferenceClient'))) {
      return httpErrorMetadata(error, context.now?.() ?? Date.now());
    }
    if (name === 'ProviderOutputError' && classes.includes('InferenceClientProviderOutputError')) {
      return {
        provider: HUGGINGFACE_PROVIDER,
        sdkErrorType: name,
        message: messageOf(error, 2000) || 'The provider answered in a shape the SDK could not read',
        origin: 'malformed_response',
      };
    }
    if (name === 'InputError' && classes.includes('InferenceClientInputError')) {
      const message = messageOf(error, 2000);
      if (!NO_PROVIDER_FOR_MODEL.test(message)) return undefined;
      return {
        provider: HUGGINGFACE_PROVIDER,
        sdkErrorType: name,
        message,
        origin: 'validation',
        sdkCondition: 'unknown_model',
      };
    }
    return undefined;
  },
});
