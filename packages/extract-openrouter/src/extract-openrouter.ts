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
  readHeader,
  retryAfterFromHeaders,
  safeGet,
  safeStatus,
  safeString,
} from '@faultline/classify/toolkit';
import { OpenrouterErrorObject } from './openrouter-error-shape.ts';

/** The provider key faultline uses for OpenRouter (providers.json). */
export const OPENROUTER_PROVIDER = 'openrouter';

/**
 * The names of the errors this extractor reads. TEMPLATE: the errors of the package's own
 * client; for an SDK, the names of its error classes (evidence, never the only test: check
 * the fields too, and never use `instanceof` across copies of the SDK).
 */
const API_ERROR_NAMES = new Set(['OpenrouterApiError']);
const CONNECTION_ERROR_NAMES = new Set(['OpenrouterConnectionError']);

function nameOf(error: unknown): string | undefined {
  return safeString(safeGet(error, 'name'), 200) ?? constructorName(error);
}

/** The fields of the error object, copied into a plain object first so the reader never touches a hostile one. */
function errorObjectOf(bodyText: string | undefined): OpenrouterErrorObject | undefined {
  const inner = safeGet(parseJsonSafely(bodyText), 'error');
  if (inner === null || typeof inner !== 'object') return undefined;
  const parsed = OpenrouterErrorObject.safeParse({
    message: safeGet(inner, 'message'),
    type: safeGet(inner, 'type'),
    code: safeGet(inner, 'code'),
    param: safeGet(inner, 'param'),
  });
  return parsed.success ? parsed.data : undefined;
}

function fromConnectionError(error: object, context: ExtractContext): ProviderErrorMetadata {
  const transport = inspectTransportError(safeGet(error, 'cause'), context.signal);
  const metadata: ProviderErrorMetadata = {
    provider: OPENROUTER_PROVIDER,
    sdkErrorType: nameOf(error) ?? 'Error',
    message: transport?.message || messageOf(error, 1000) || 'No answer from OpenRouter',
    origin: transport?.origin ?? 'network',
    networkPhase: transport?.networkPhase ?? 'unknown',
  };
  if (transport?.networkCode !== undefined) metadata.networkCode = transport.networkCode;
  return metadata;
}

/** An answered failure, whichever transport saw it: the client's API error or a raw HTTP response. */
interface AnsweredFailure {
  readonly status: number | undefined;
  readonly headers: unknown;
  readonly bodyText: string | undefined;
  readonly sdkErrorType: string;
  /** The transport's own message, used when the body carries none (an HTML 404). */
  readonly message: string;
}

/** The rules for an answered failure, shared by {@link openrouterExtractor} and {@link readOpenrouterHttpFailure}. */
function answeredMetadata(failure: AnsweredFailure, now: number): ProviderErrorMetadata {
  const { status, headers, bodyText } = failure;
  const inner = errorObjectOf(bodyText);
  const metadata: ProviderErrorMetadata = {
    provider: OPENROUTER_PROVIDER,
    sdkErrorType: failure.sdkErrorType,
    // The provider's own words; without a JSON body (an HTML 404) the transport's message says it all.
    message: inner?.message ?? (failure.message || `HTTP ${status ?? 'error'}`),
    origin: 'http',
  };
  if (status !== undefined) metadata.statusCode = status;
  if (inner?.code !== undefined && inner.code !== null) metadata.providerCode = String(inner.code);
  if (typeof inner?.type === 'string' && inner.type !== '') metadata.providerType = inner.type;
  if (typeof inner?.param === 'string' && inner.param !== '') metadata.providerParam = inner.param;
  const requestId = readHeader(headers, 'x-request-id') ?? readHeader(headers, 'request-id');
  if (requestId !== undefined && requestId !== '') metadata.requestId = requestId;
  const retryAfter = retryAfterFromHeaders(headers, now);
  if (retryAfter !== undefined) metadata.retryAfterSeconds = retryAfter;
  // In memory only (non-enumerable): never in JSON, a report or a log.
  if (bodyText !== undefined && bodyText !== '') attachRawBody(metadata, bodyText);
  return metadata;
}

function fromApiError(error: object, context: ExtractContext): ProviderErrorMetadata {
  return answeredMetadata(
    {
      status: safeStatus(safeGet(error, 'status')),
      headers: safeGet(error, 'headers'),
      bodyText: safeString(safeGet(error, 'body'), MAX_RAW_BODY_LENGTH),
      sdkErrorType: nameOf(error) ?? 'Error',
      message: messageOf(error, 2000),
    },
    context.now?.() ?? Date.now(),
  );
}

/**
 * Reads a OpenRouter HTTP failure seen by any transport (the AI SDK's `APICallError`, LangChain, a
 * raw `fetch`, the CLI) with the same rules as {@link openrouterExtractor}. Total: any status,
 * headers or body; an unknown option key is a TypeError at the call.
 */
export function readOpenrouterHttpFailure(
  response: HttpFailure,
  options: HttpFailureReadOptions = {},
): ProviderErrorMetadata {
  checkOptionKeys('readHttpFailure', options, HTTP_FAILURE_READ_OPTION_KEYS);
  const status = safeStatus(safeGet(response, 'status'));
  return answeredMetadata(
    {
      status,
      headers: safeGet(response, 'headers'),
      bodyText: safeString(safeGet(response, 'body'), MAX_RAW_BODY_LENGTH),
      sdkErrorType: options.sdkErrorType ?? 'HttpFailure',
      message: `HTTP ${status ?? 'error'}`,
    },
    options.now ?? Date.now(),
  );
}

/**
 * Reads the errors OpenRouter's client throws into provider-blind metadata; classify decides the
 * reason (vocabularies live in packages/classify/src/vocabulary.ts, never here). Returns `undefined` for
 * anything else, so unrelated errors go to the next extractor. Total: `defineExtractor` turns a
 * throw into `undefined`, and every read goes through classify's safe readers.
 */
export const openrouterExtractor: Extractor = defineExtractor({
  provider: OPENROUTER_PROVIDER,
  extract(error, context) {
    if (error === null || typeof error !== 'object') return undefined;
    const name = nameOf(error);
    if (name === undefined) return undefined;
    if (CONNECTION_ERROR_NAMES.has(name)) return fromConnectionError(error, context);
    if (API_ERROR_NAMES.has(name) && safeStatus(safeGet(error, 'status')) !== undefined) {
      return fromApiError(error, context);
    }
    return undefined;
  },
});
