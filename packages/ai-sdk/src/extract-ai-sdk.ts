import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import {
  attachRawBody,
  type ExtractContext,
  inspectTransportError,
  messageOf,
  parseJsonSafely,
  safeGet,
  safeStatus,
  safeString,
} from '@faultline/classify/toolkit';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { AI_SDK_EXTRACTOR_OPTION_KEYS } from './option-keys.ts';
import { type AiSdkProvider, HTTP_FAILURE_READERS, providerFromId, providerFromUrl } from './provider-of.ts';

/** The provider key of metadata this package builds itself (not from a provider's body). */
export const AI_SDK_PROVIDER = 'ai-sdk';

/** How deep nested `RetryError`s / causes are followed. */
const MAX_DEPTH = 4;

/**
 * The AI SDK's error name without its `AI_` prefix (`AI_APICallError` → `APICallError`), when
 * the value carries the AI SDK's marker (`Symbol.for('vercel.ai.error')`, every copy and major)
 * or a name of that form. Never `instanceof`: one app can hold several copies of `ai`.
 */
export function aiSdkErrorName(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const name = safeString(safeGet(error, 'name'), 100);
  if (name === undefined || !/^AI_[A-Za-z]+Error$/.test(name)) return undefined;
  return name.slice(3);
}

/** Options of {@link createAiSdkExtractor}. */
export interface AiSdkExtractorOptions {
  /**
   * The AI SDK's provider id (`model.provider`, e.g. `openai.chat`) or a faultline provider name:
   * which body rules read an `APICallError`. Without it (or when it is not one of the six), the
   * request URL decides, and an unknown URL is read with OpenAI's rules (the body most
   * OpenAI-compatible providers answer with).
   */
  readonly provider?: string | undefined;
}

interface Context {
  readonly signal?: AbortSignal | undefined;
  readonly now?: (() => number) | undefined;
}

function base(
  sdkErrorType: string,
  message: string,
  origin: ProviderErrorMetadata['origin'],
): ProviderErrorMetadata {
  return { provider: AI_SDK_PROVIDER, sdkErrorType, message, origin };
}

function now(context: Context): number {
  try {
    return context.now?.() ?? Date.now();
  } catch {
    return Date.now();
  }
}

/**
 * The JSON of the first error event of an event-stream body. ai 6's providers turn a stream
 * whose first event is an error into an `APICallError` whose `responseBody` is the stream's text
 * (`event: error` / `data: {"error":…}`): the provider's body rules read the event's JSON.
 */
function errorEventOfStreamBody(body: string): string | undefined {
  if (!/^\s*(?:event|data|id|retry|:)/.test(body)) return undefined;
  for (const line of body.slice(0, 256 * 1024).split(/\r?\n/, 200)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    const json = parseJsonSafely(data);
    if (json !== undefined && (safeGet(json, 'error') !== undefined || safeGet(json, 'type') === 'error'))
      return data;
  }
  return undefined;
}

/** Whether response headers say the body was an event stream (SSE, or AWS's event stream). */
function isEventStream(headers: unknown): boolean {
  if (headers === null || typeof headers !== 'object') return false;
  for (const key of ['content-type', 'Content-Type']) {
    const value = safeString(safeGet(headers, key), 200);
    if (value !== undefined)
      return /^\s*(text\/event-stream|application\/vnd\.amazon\.eventstream)\b/i.test(value);
  }
  return false;
}

/** Providers whose error body wraps the error object in an envelope (`{ error }`, Anthropic's `{ type, error }`). */
const ENVELOPED: ReadonlySet<AiSdkProvider> = new Set(['openai', 'groq', 'anthropic', 'google-genai']);

/**
 * ai 6's OpenAI-style providers throw an error event of a 200 stream as an `APICallError` whose
 * `responseBody` is the event's bare error object (`{"message","type","code"}`), without the
 * `{"error": …}` envelope the provider sent: put it back, so the provider's reader sees its shape.
 */
function bareErrorInEnvelope(body: string, provider: AiSdkProvider): string {
  if (!ENVELOPED.has(provider)) return body;
  const json = parseJsonSafely(body);
  if (!isPlainObject(json) || safeGet(json, 'error') !== undefined) return body;
  if (typeof safeGet(json, 'message') !== 'string') return body;
  if (safeGet(json, 'type') === undefined && safeGet(json, 'code') === undefined) return body;
  return stringifySafely(provider === 'anthropic' ? { type: 'error', error: json } : { error: json }) ?? body;
}

/** `APICallError`: a provider's HTTP answer (read with its body rules), or a transport failure. */
function fromApiCallError(
  error: object,
  hint: AiSdkProvider | undefined,
  context: Context,
  streaming: boolean,
): ProviderErrorMetadata {
  const url = safeString(safeGet(error, 'url'), 8192);
  const status = safeStatus(safeGet(error, 'statusCode'));
  const provider = hint ?? providerFromUrl(url) ?? 'openai';
  if (status !== undefined && status >= 400 && isEventStream(safeGet(error, 'responseHeaders'))) {
    // The provider answered with a stream (a 200 whose headers these are) and the error came as
    // an event in it: the status is one the provider package made up for the event
    // (@ai-sdk/anthropic gives a rate_limit_error event 500). The event's own words decide.
    const bodyValue = safeGet(error, 'responseBody');
    if (typeof bodyValue === 'string') {
      const metadata = HTTP_FAILURE_READERS[provider](
        {
          status: undefined,
          body: bareErrorInEnvelope(errorEventOfStreamBody(bodyValue) ?? bodyValue, provider),
        },
        { now: now(context), sdkErrorType: 'APICallError' },
      );
      return Object.assign({}, metadata, { origin: 'stream_event' as const });
    }
  }
  if (status !== undefined && status >= 400) {
    const bodyValue = safeGet(error, 'responseBody');
    const body = typeof bodyValue === 'string' ? bodyValue : undefined;
    return HTTP_FAILURE_READERS[provider](
      {
        status,
        headers: safeGet(error, 'responseHeaders'),
        body:
          body === undefined
            ? undefined
            : bareErrorInEnvelope(errorEventOfStreamBody(body) ?? body, provider),
        url,
      },
      { now: now(context), sdkErrorType: 'APICallError' },
    );
  }
  if (status !== undefined) {
    // A success status whose body is the provider's error object (`{"error": {...}}`: OpenRouter
    // sends a failure that came after the model was reached in the 200's body): the provider said
    // why, in the same words an error event carries, so its reader reads it as one. The body's
    // `error` member, or the error the provider package parsed out of it (`data`:
    // @openrouter/ai-sdk-provider keeps no responseBody then).
    const bodyValue = safeGet(error, 'responseBody');
    const errorMember =
      typeof bodyValue === 'string' ? safeGet(parseJsonSafely(bodyValue), 'error') : undefined;
    const data = safeGet(error, 'data');
    const errorBody = isPlainObject(errorMember)
      ? (bodyValue as string)
      : isPlainObject(data) && (safeGet(data, 'message') !== undefined || safeGet(data, 'code') !== undefined)
        ? stringifySafely({ error: data })
        : undefined;
    if (errorBody !== undefined) {
      const metadata = HTTP_FAILURE_READERS[provider](
        { status: undefined, body: errorBody },
        { now: now(context), sdkErrorType: 'APICallError' },
      );
      return Object.assign({}, metadata, { origin: 'stream_event' as const });
    }
    // A success status whose body the provider package could not read ("Invalid JSON response"):
    // the answer arrived unreadable. The body stays in memory only.
    const metadata: ProviderErrorMetadata = {
      provider,
      sdkErrorType: 'APICallError',
      message: 'The provider answered with a body the AI SDK could not read.',
      origin: 'malformed_response',
      statusCode: status,
      networkPhase: 'response_body',
    };
    const body = safeString(safeGet(error, 'responseBody'), 64 * 1024);
    if (body !== undefined && body.length > 0) attachRawBody(metadata, body);
    return metadata;
  }
  // No status: `handleFetchError` wrapped a transport failure (`Cannot connect to API: …`), its
  // original as `cause`.
  const transport = inspectTransportError(safeGet(error, 'cause') ?? error, context.signal, streaming);
  const message = messageOf(error, 1000) || 'The AI SDK could not reach the provider.';
  const metadata: ProviderErrorMetadata = {
    provider,
    sdkErrorType: 'APICallError',
    message: transport?.message ? `${message.slice(0, 500)} (${transport.message})` : message,
    origin: transport?.origin ?? 'network',
    networkPhase: transport?.networkPhase ?? 'unknown',
  };
  if (transport?.networkCode !== undefined) metadata.networkCode = transport.networkCode;
  return metadata;
}

const ERROR_PART_MARKER = Symbol.for('faultline.ai-sdk.error-part');

/**
 * The `error` of a stream's `{ type: 'error', error }` part, thrown so that a stream guard can
 * classify it: the part's value is its `cause`. Provider packages put what the provider sent
 * there (a plain error object from the event, or the AI SDK's `TypeValidationError` holding the
 * event it could not read), not an Error.
 */
export class AiSdkErrorPart extends Error {
  readonly [ERROR_PART_MARKER] = true;
  /** The provider chunk the part came from, when the stream carried raw chunks (`includeRawChunks`). */
  readonly rawChunk: unknown;
  constructor(value: unknown, rawChunk?: unknown) {
    super('The stream delivered an error part.', { cause: value });
    this.name = 'AiSdkErrorPart';
    this.rawChunk = rawChunk;
  }
}

/**
 * The exception type an AWS event-stream chunk names: its one member whose name ends in
 * `Exception` (`{ throttlingException: { message } }`), as `ThrottlingException`. The Bedrock
 * provider package hands on only the member's value, so its type survives in the raw chunk alone.
 */
function exceptionTypeOf(rawChunk: unknown): string | undefined {
  if (!isPlainObject(rawChunk)) return undefined;
  const names = Object.keys(rawChunk).filter((key) => /^[a-z][A-Za-z]{0,60}Exception$/.test(key));
  if (names.length !== 1) return undefined;
  const name = names[0] as string;
  return `${name[0]?.toUpperCase()}${name.slice(1)}`;
}

function isErrorPart(value: unknown): boolean {
  return value !== null && typeof value === 'object' && safeGet(value, ERROR_PART_MARKER) === true;
}

function isPlainObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  try {
    const prototype = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  } catch {
    return false;
  }
}

function stringifySafely(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' && text.length <= 256 * 1024 ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The event body a provider sent for an error part: a plain object (the event's `error` member, or
 * the whole event), or the event a `TypeValidationError`/`JSONParseError` could not read (`value`).
 * Re-wrapped the way the provider's stream sends it, so that its reader sees its own event shape.
 */
function errorEventBody(value: unknown, provider: AiSdkProvider): string | undefined {
  let event: unknown = value;
  const name = aiSdkErrorName(value);
  if (name === 'TypeValidationError') event = safeGet(value, 'value');
  else if (name !== undefined) return undefined;
  if (!isPlainObject(event)) return undefined;
  if (provider === 'bedrock') {
    // @ai-sdk/amazon-bedrock passes the exception frame's payload without its type; of the
    // ConverseStream exceptions only ModelStreamErrorException carries `originalStatusCode`.
    const modelStreamError =
      safeGet(event, 'originalStatusCode') !== undefined && safeGet(event, '__type') === undefined;
    return stringifySafely(modelStreamError ? { __type: 'ModelStreamErrorException', ...event } : event);
  }
  if (safeGet(event, 'error') !== undefined) return stringifySafely(event);
  // The provider package kept only the event's `error` member.
  if (name === 'TypeValidationError') return undefined;
  return stringifySafely(provider === 'anthropic' ? { type: 'error', error: event } : { error: event });
}

/** Metadata for an error part's value (see {@link AiSdkErrorPart}). */
function fromErrorPart(
  value: unknown,
  hint: AiSdkProvider | undefined,
  context: Context,
): ProviderErrorMetadata | undefined {
  const provider = hint ?? 'openai';
  const body = errorEventBody(value, provider);
  if (body !== undefined) {
    const metadata = HTTP_FAILURE_READERS[provider](
      { status: undefined, body },
      { now: now(context), sdkErrorType: aiSdkErrorName(value) ?? 'ErrorPart' },
    );
    return Object.assign({}, metadata, { origin: 'stream_event' as const });
  }
  return extractAiSdk(value, hint, { ...context, streaming: true } as Context, 1);
}

/** Metadata for a value the AI SDK threw, or `undefined` when it is not the AI SDK's. */
// The Vercel AI Gateway's provider (`@ai-sdk/gateway`, what a model id string resolves to in `ai`)
// throws its own classes (GatewayRateLimitError, GatewayModelNotFoundError, GatewayInternalServerError,
// GatewayFailedDependencyError, ...: marker `Symbol.for('vercel.ai.gateway.error')`, no `AI_` name),
// each holding the APICallError it read as `cause`. `ai` replaces a GatewayAuthenticationError with an
// error of that name (in production an AISDKError named `GatewayError`) that keeps neither.
const GATEWAY_MARKER = Symbol.for('vercel.ai.gateway.error');

function gatewayErrorName(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const name = safeString(safeGet(error, 'name'), 100);
  if (safeGet(error, GATEWAY_MARKER) === true) return name ?? 'GatewayError';
  return name !== undefined && /^Gateway[A-Za-z]*Error$/.test(name) ? name : undefined;
}

/**
 * A Gateway error: the APICallError it wraps is read as any provider's (the gateway answers with
 * OpenAI's body shape, `{"error": {message, type, param}}`, so OpenAI's rules read it); without one,
 * its status and `type` are read as that body; `ai`'s replacement of an authentication failure
 * (the SDK's own words, no status) is a 401.
 */
function fromGatewayError(
  error: object,
  name: string,
  hint: AiSdkProvider | undefined,
  context: Context,
  depth: number,
): ProviderErrorMetadata | undefined {
  const provider = hint ?? 'openai';
  const cause = safeGet(error, 'cause');
  const fromCause = extractAiSdk(cause, provider, context, depth + 1);
  if (fromCause !== undefined) return fromCause;
  const streaming = safeGet(context, 'streaming') === true;
  const transport = cause === undefined ? undefined : inspectTransportError(cause, context.signal, streaming);
  if (transport !== undefined) {
    const metadata: ProviderErrorMetadata = {
      provider,
      sdkErrorType: name,
      message: transport.message || messageOf(error, 500),
      origin: transport.origin,
      networkPhase: transport.networkPhase,
    };
    if (transport.networkCode !== undefined) metadata.networkCode = transport.networkCode;
    return metadata;
  }
  const message = messageOf(error, 1000);
  const status =
    safeStatus(safeGet(error, 'statusCode')) ??
    (name === 'GatewayAuthenticationError' || (name === 'GatewayError' && /^unauthenticated\b/i.test(message))
      ? 401
      : undefined);
  if (status === undefined || status < 400) return undefined;
  const type = safeString(safeGet(error, 'type'), 100);
  const body = stringifySafely({ error: type === undefined ? { message } : { message, type } });
  return HTTP_FAILURE_READERS[provider]({ status, body }, { now: now(context), sdkErrorType: name });
}

function extractAiSdk(
  error: unknown,
  hint: AiSdkProvider | undefined,
  context: Context,
  depth: number,
): ProviderErrorMetadata | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (isErrorPart(error)) {
    const value = safeGet(error, 'cause');
    const exceptionType = exceptionTypeOf(safeGet(error, 'rawChunk'));
    const typed =
      exceptionType !== undefined && isPlainObject(value) && safeGet(value, '__type') === undefined
        ? { __type: exceptionType, ...value }
        : value;
    return fromErrorPart(typed, hint, context);
  }
  const name = aiSdkErrorName(error);
  if (name === undefined) {
    const gateway = gatewayErrorName(error);
    return gateway === undefined
      ? undefined
      : fromGatewayError(error as object, gateway, hint, context, depth);
  }
  const value = error as object;
  const streaming = safeGet(context, 'streaming') === true;
  switch (name) {
    case 'APICallError':
      return fromApiCallError(value, hint, context, streaming);
    case 'RetryError': {
      // The AI SDK's own retries ended: the last attempt's error decides, and the attempts it made
      // (`errors.length`) are kept. `reason: 'abort'` ends on the caller's abort (the last error).
      const errors = safeGet(value, 'errors');
      const attempts = Array.isArray(errors) ? errors.length : undefined;
      const last = safeGet(value, 'lastError') ?? (Array.isArray(errors) ? errors.at(-1) : undefined);
      let inner = extractAiSdk(last, hint, context, depth + 1);
      if (inner === undefined) {
        // `reason: 'abort'`: the last error is an AbortError (the caller's, or a deadline's).
        const transport = inspectTransportError(last, context.signal, streaming);
        if (transport === undefined) return undefined;
        inner = {
          ...base('RetryError', transport.message || messageOf(last, 500), transport.origin),
          networkPhase: transport.networkPhase,
        };
      }
      return attempts === undefined ? inner : Object.assign({}, inner, { sdkAttempts: attempts });
    }
    case 'StreamProviderError': {
      // ai 7: an error event a provider sent after its stream started. `data` is the provider's own
      // payload (read with its body rules, as an error part of ai 5 and 6 is); without it, the
      // `type`, `code` and `message` the provider package kept. Its `statusCode` is at best
      // inferred by the package, so the provider's words decide before it.
      const data = safeGet(value, 'data');
      const fromData = isPlainObject(data) ? fromErrorPart(data, hint, context) : undefined;
      if (fromData !== undefined) return fromData;
      const fromCause = extractAiSdk(safeGet(value, 'cause'), hint, context, depth + 1);
      if (fromCause !== undefined) return fromCause;
      const event: Record<string, unknown> = { message: messageOf(value, 1000) };
      const type = safeString(safeGet(value, 'type'), 100);
      const code = safeGet(value, 'code');
      if (type !== undefined) event.type = type;
      if (typeof code === 'string' || typeof code === 'number') event.code = code;
      const metadata = fromErrorPart(event, hint, context);
      const status = safeStatus(safeGet(value, 'statusCode'));
      if (metadata === undefined || metadata.statusCode !== undefined || status === undefined)
        return metadata;
      return Object.assign({}, metadata, { statusCode: status });
    }
    case 'NoObjectGeneratedError': {
      const finishReason = safeString(safeGet(value, 'finishReason'), 50);
      if (finishReason === 'content-filter') {
        return {
          ...base(
            name,
            'The provider withheld the object: its content filter stopped the output.',
            'blocked_response',
          ),
          blockReason: 'content_filter',
        };
      }
      const cause = safeGet(value, 'cause');
      const fromCause = extractAiSdk(cause, hint, context, depth + 1);
      if (fromCause !== undefined && fromCause.origin !== 'malformed_response') return fromCause;
      // The model answered, but its output is not an object of the schema (invalid JSON, a schema
      // mismatch, or cut by the output-token limit): the request must change (schema, prompt or
      // maxOutputTokens); the same request may fail the same way. Model output is never copied.
      const why =
        finishReason === 'length'
          ? 'its output reached the output token limit before the object was complete'
          : 'its output did not parse as an object of the schema';
      return base(name, `No object generated: ${why}.`, 'validation');
    }
    case 'NoOutputGeneratedError': {
      const cause = safeGet(value, 'cause');
      const fromCause = extractAiSdk(cause, hint, context, depth + 1);
      if (fromCause !== undefined) return fromCause;
      if (cause !== undefined) return undefined;
      // streamText's `text`, `steps`, `finishReason` ... reject with a bare NoOutputGeneratedError
      // when no step finished: the call failed, and its error went only to the stream's error part
      // (`onError`, `fullStream`), not here. Nothing says what failed: never read as an
      // interruption, which an idempotent caller would retry (a spent quota looks like this).
      return base(
        name,
        "The AI SDK produced no output; the failure went to the stream's error part (read fullStream with guardAiSdkStream, or use faultlineMiddleware).",
        'unknown',
      );
    }
    case 'NoContentGeneratedError': {
      const fromCause = extractAiSdk(safeGet(value, 'cause'), hint, context, depth + 1);
      if (fromCause !== undefined) return fromCause;
      // The model's answer ended without output (an empty answer).
      return {
        ...base(name, 'The provider ended the answer without producing any output.', 'malformed_response'),
        networkPhase: 'response_body',
      };
    }
    case 'InvalidResponseDataError':
    case 'EmptyResponseBodyError':
    case 'JSONParseError':
    case 'TypeValidationError':
    case 'InvalidStreamPartError':
      // The provider's answer (or a stream part) did not have the shape its provider package
      // reads. The messages quote the data (model output): a fixed message instead.
      return {
        ...base(name, `The provider's answer could not be read (${name}).`, 'malformed_response'),
        networkPhase: streaming ? 'stream' : 'response_body',
      };
    case 'LoadAPIKeyError':
      // The AI SDK's own errors are recognised here, the adapter that knows it, and passed to
      // classify as a structured condition (never as a phrase in classify's lists).
      return { ...base(name, messageOf(value, 500), 'validation'), sdkCondition: 'missing_credentials' };
    case 'LoadSettingError':
      // A provider setting (region, base URL, project) is missing: no URL can be built.
      return { ...base(name, messageOf(value, 500), 'validation'), sdkCondition: 'missing_region' };
    case 'NoSuchModelError':
    case 'NoSuchProviderError': {
      const modelId = safeString(safeGet(value, 'modelId'), 200);
      return {
        ...base(name, `No such model${modelId === undefined ? '' : `: ${modelId}`} (${name}).`, 'validation'),
        sdkCondition: 'unknown_model',
      };
    }
    case 'DownloadError': {
      // Fetching a file the prompt links to failed: the input must change.
      const status = safeStatus(safeGet(value, 'statusCode'));
      return base(
        name,
        `A file the prompt links to could not be downloaded${status ? ` (HTTP ${status})` : ''}.`,
        'validation',
      );
    }
    default:
      // The caller's request or tools (InvalidPromptError, InvalidArgumentError,
      // UnsupportedFunctionalityError, InvalidToolInputError, NoSuchToolError, ToolCallRepairError,
      // InvalidDataContentError, MessageConversionError, ...): nothing was wrong on the provider's
      // side. Their messages may quote the prompt or tool input: only the type is kept.
      return base(name, `The AI SDK rejected the call (${name}).`, 'validation');
  }
}

/**
 * An extractor for what the Vercel AI SDK (`ai` 5 and 6, every `@ai-sdk/*` provider) throws:
 * `APICallError` read with its provider's body rules (`read<Provider>HttpFailure`, the same rules
 * as the provider SDK's extractor), `RetryError` unwrapped to its last attempt (the attempts kept
 * as `sdkAttempts`), and the AI SDK's own errors under the taxonomy. Returns `undefined` for
 * anything else (the caller's `AbortError` stays the caller's).
 */
export function createAiSdkExtractor(options: AiSdkExtractorOptions = {}): Extractor {
  checkOptionKeys('createAiSdkExtractor', options, AI_SDK_EXTRACTOR_OPTION_KEYS);
  const hint = providerFromId(options.provider);
  // Not `defineExtractor`: it stamps its own provider key on every result, and an APICallError
  // read by the URL's provider must keep that provider. Total all the same.
  return Object.freeze({
    provider: hint ?? AI_SDK_PROVIDER,
    extract(error: unknown, context: ExtractContext = {}): ProviderErrorMetadata | undefined {
      try {
        const metadata = extractAiSdk(error, hint, context, 0);
        if (metadata === undefined || hint === undefined || metadata.provider !== AI_SDK_PROVIDER)
          return metadata;
        return Object.assign({}, metadata, { provider: hint });
      } catch {
        return undefined;
      }
    },
  });
}

/** {@link createAiSdkExtractor} without a provider hint: the request URL picks the body rules. */
export const aiSdkExtractor: Extractor = createAiSdkExtractor();

/**
 * An answer the provider withheld: a result or `finish` part whose finish reason is
 * `content-filter` (`result.finishReason` of generateText/generateObject, `finishReason` of a
 * model's V2 result, `finishReason.unified` of a V3 one). Metadata with origin `blocked_response`
 * (classified `content_policy`), else `undefined`. Total.
 */
export function detectAiSdkBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const finishReason = safeGet(result, 'finishReason');
  const unified = typeof finishReason === 'string' ? finishReason : safeGet(finishReason, 'unified');
  if (unified !== 'content-filter') return undefined;
  const raw =
    safeString(safeGet(finishReason, 'raw'), 100) ?? safeString(safeGet(result, 'rawFinishReason'), 100);
  return {
    ...base(
      'ContentFilter',
      `The provider withheld the answer: it finished with "content-filter"${raw === undefined ? '' : ` (${raw})`}.`,
      'blocked_response',
    ),
    blockReason: raw ?? 'content-filter',
  };
}
