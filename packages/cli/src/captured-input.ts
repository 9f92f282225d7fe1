import { parseJsonSafely, readHeader, safeGet, safeNumber, safeString } from '@faultline/classify/toolkit';
import { PROVIDER_NAMES } from './driver/provider-list.ts';
import { CommandFailure } from './terminal.ts';

/** A captured HTTP answer of a provider. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Other names people use for a provider (each provider's own key, from providers.json, works too). */
const providerAliases: Readonly<Record<string, string>> = {
  claude: 'anthropic',
  google: 'google-genai',
  gemini: 'google-genai',
  genai: 'google-genai',
  aws: 'bedrock',
  'aws-bedrock': 'bedrock',
};

/** The provider key for a `--provider` value; a bad name is a one-line input error. */
export function resolveProviderName(name: string): string {
  const wanted = name.trim().toLowerCase();
  const key = PROVIDER_NAMES.includes(wanted) ? wanted : providerAliases[wanted];
  if (key === undefined) {
    throw new CommandFailure(`unknown provider "${name}"; expected one of: ${PROVIDER_NAMES.join(', ')}`);
  }
  return key;
}

/** Parses repeated `--header 'name: value'` options. */
export function parseHeaderLines(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim().toLowerCase();
    if (name === '' || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
      throw new CommandFailure(
        `--header must look like 'name: value' (got ${JSON.stringify(line.slice(0, 60))})`,
      );
    }
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** Parses `--status`: an integer HTTP status between 100 and 599. */
export function parseStatus(value: string): number {
  const status = Number(value);
  if (!/^\d{3}$/.test(value.trim()) || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new CommandFailure(
      `--status must be an HTTP status between 100 and 599 (got ${JSON.stringify(value)})`,
    );
  }
  return status;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which provider wrote this error body (and headers), from its shape alone:
 * Anthropic `{"type":"error","error":{"type":…}}`, Google `{"error":{"code":…,"status":"RESOURCE_EXHAUSTED"}}`,
 * Bedrock `__type` or an `x-amzn-errortype`/`x-amzn-requestid` header, Mistral `{"object":"error",…}`,
 * OpenAI-style `{"error":{"message","type","code"}}` (Groq answers in the same shape: pass `--provider groq`).
 */
export function detectProvider(body: unknown, headers: Record<string, string> = {}): string | undefined {
  if (
    readHeader(headers, 'x-amzn-errortype') !== undefined ||
    readHeader(headers, 'x-amzn-requestid') !== undefined
  ) {
    return 'bedrock';
  }
  if (!isRecord(body)) return undefined;
  if (typeof body.__type === 'string') return 'bedrock';
  const inner = body.error;
  if (body.type === 'error' && isRecord(inner) && typeof inner.type === 'string') return 'anthropic';
  if (body.object === 'error') return 'mistral';
  if (isRecord(inner)) {
    if (
      typeof inner.status === 'string' &&
      /^[A-Z_]+$/.test(inner.status) &&
      typeof inner.code === 'number'
    ) {
      return 'google-genai';
    }
    if (typeof inner.message === 'string' && ('type' in inner || 'code' in inner || 'param' in inner)) {
      return readHeader(headers, 'x-groq-region') !== undefined ? 'groq' : 'openai';
    }
  }
  if (typeof body.message === 'string' && typeof body.type === 'string' && 'code' in body) return 'openai';
  return undefined;
}

/** Parses a log line; invalid JSON is a one-line input error. */
export function parseLogLine(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new CommandFailure('the log line is empty');
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    throw new CommandFailure(`the log line is not valid JSON (${(error as Error).message})`);
  }
}

function looksLikeError(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    ('status' in value ||
      'statusCode' in value ||
      '$metadata' in value ||
      'stack' in value ||
      ('name' in value && 'message' in value) ||
      ('type' in value && 'message' in value && 'stack' in value))
  );
}

/**
 * The serialised error inside a log line: the line itself (winston merges the error's fields into
 * the entry), pino's `err`, or an `error`/`exception` field holding an error (not a body).
 */
export function loggedError(entry: unknown): Record<string, unknown> {
  if (!isRecord(entry))
    throw new CommandFailure('the log line must be a JSON object holding a serialised error');
  if ('status' in entry || 'statusCode' in entry || '$metadata' in entry) return entry;
  for (const key of ['err', 'error', 'exception']) {
    const candidate = entry[key];
    if (looksLikeError(candidate)) return candidate;
  }
  return entry;
}

/** Reads `name: value` pairs from a serialised headers value (plain object, or pairs). */
function plainHeaders(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (Array.isArray(value)) {
    for (const pair of value) {
      if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[1] !== undefined) {
        headers[pair[0].toLowerCase()] = String(pair[1]);
      }
    }
    return headers;
  }
  if (!isRecord(value)) return headers;
  for (const [name, headerValue] of Object.entries(value)) {
    if (typeof headerValue === 'string' || typeof headerValue === 'number') {
      headers[name.toLowerCase()] = String(headerValue);
    } else if (Array.isArray(headerValue)) {
      headers[name.toLowerCase()] = headerValue.map(String).join(', ');
    }
  }
  return headers;
}

/** The JSON text after a Stainless "429 " / Google "got status: X. " prefix in an error message. */
function jsonInMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const start = message.indexOf('{');
  if (start === -1) return undefined;
  const candidate = message.slice(start);
  return parseJsonSafely(candidate) === undefined ? undefined : candidate;
}

/**
 * Rebuilds the provider's HTTP answer from a serialised SDK error (openai/groq/anthropic `status`
 * + `headers` + `error`, Mistral `statusCode` + `body`, Google `status` + JSON `message`, AWS
 * `$metadata.httpStatusCode` + `name`), or undefined when the error carries no HTTP status.
 */
export function responseFromLoggedError(
  error: Record<string, unknown>,
  provider: string | undefined,
): CapturedResponse | undefined {
  const status =
    safeNumber(safeGet(error, 'status')) ??
    safeNumber(safeGet(error, 'statusCode')) ??
    safeNumber(safeGet(safeGet(error, '$metadata'), 'httpStatusCode')) ??
    safeNumber(safeGet(safeGet(error, '$response'), 'statusCode'));
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  const headers = plainHeaders(safeGet(error, 'headers') ?? safeGet(safeGet(error, '$response'), 'headers'));
  const message = safeString(safeGet(error, 'message'));
  let body: string | undefined;
  const rawBody = safeGet(error, 'body');
  if (typeof rawBody === 'string') body = rawBody;
  else if (isRecord(rawBody)) body = JSON.stringify(rawBody);
  const errorField = safeGet(error, 'error');
  if (body === undefined && isRecord(errorField)) {
    // openai keeps the inner `{message,type,code}`; groq and anthropic keep the whole body.
    const wholeBody = 'error' in errorField || errorField.type === 'error' || '__type' in errorField;
    body = JSON.stringify(wholeBody ? errorField : { error: errorField });
  }
  if (body === undefined) body = jsonInMessage(message);
  if (body === undefined && (provider === 'bedrock' || '$metadata' in error)) {
    const name = safeString(safeGet(error, 'name'));
    if (name !== undefined && readHeader(headers, 'x-amzn-errortype') === undefined)
      headers['x-amzn-errortype'] = name;
    body = JSON.stringify({ message: message ?? '' });
  }
  return { status, headers, body: body ?? '' };
}

/** Which provider's SDK threw this serialised error. */
export function detectLoggedProvider(error: Record<string, unknown>): string | undefined {
  if ('$metadata' in error || '$fault' in error) return 'bedrock';
  const name = safeString(safeGet(error, 'name')) ?? safeString(safeGet(error, 'type'));
  if (name === 'ApiError') return 'google-genai';
  if (
    'rawResponse' in error ||
    'contentType' in error ||
    name === 'SDKError' ||
    name === 'HTTPValidationError'
  ) {
    return 'mistral';
  }
  const errorField = safeGet(error, 'error');
  if (isRecord(errorField)) {
    if ('error' in errorField && !('type' in errorField))
      return detectProvider(errorField) === 'openai' ? 'groq' : detectProvider(errorField);
    const detected = detectProvider(errorField) ?? detectProvider({ error: errorField });
    if (detected !== undefined) return detected;
  }
  const fromMessage = jsonInMessage(safeString(safeGet(error, 'message')));
  if (fromMessage !== undefined)
    return detectProvider(parseJsonSafely(fromMessage), plainHeaders(safeGet(error, 'headers')));
  const headers = plainHeaders(safeGet(error, 'headers'));
  if ('request-id' in headers || 'anthropic-ratelimit-requests-limit' in headers) return 'anthropic';
  if ('x-groq-region' in headers) return 'groq';
  return undefined;
}
