import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import {
  constructorName,
  defineExtractor,
  type ExtractContext,
  inspectTransportError,
  messageOf,
  safeGet,
} from '@faultline/classify/toolkit';
import { describeThrown, isErrorLike } from './thrown-value.ts';

/** What render tells extractors beyond classify's context. */
export interface RenderExtractContext extends ExtractContext {
  /** True while a stream is being read: transport drops are then mid-stream (`networkPhase: 'stream'`). */
  readonly streaming?: boolean | undefined;
}

/** Node/undici/node-fetch transport failures, timeouts and aborts, read from the cause chain. */
export const transportExtractor: Extractor = defineExtractor({
  provider: 'node',
  extract(error, context) {
    const streaming = (context as RenderExtractContext).streaming === true;
    const failure = inspectTransportError(error, context.signal, streaming);
    if (failure === undefined) return undefined;
    const metadata: ProviderErrorMetadata = {
      provider: 'node',
      message: failure.message,
      origin: failure.origin,
      networkPhase: failure.networkPhase,
    };
    if (failure.networkCode !== undefined) metadata.networkCode = failure.networkCode;
    const type = constructorName(error);
    if (type !== undefined) metadata.sdkErrorType = type;
    return metadata;
  },
});

/** A zod error (v3 or v4, any copy): the input or a response failed its schema. */
export const zodExtractor: Extractor = defineExtractor({
  provider: 'zod',
  extract(error) {
    const issues = safeGet(error, 'issues');
    if (safeGet(error, 'name') !== 'ZodError' || !Array.isArray(issues)) return undefined;
    const parts: string[] = [];
    for (const issue of issues.slice(0, 3)) {
      const path = safeGet(issue, 'path');
      const where =
        Array.isArray(path) && path.length > 0 ? path.map((key) => String(key)).join('.') : '(root)';
      parts.push(`${where}: ${messageOf(issue, 200)}`);
    }
    return {
      provider: 'zod',
      sdkErrorType: 'ZodError',
      message: `Validation failed: ${parts.join('; ')}${issues.length > 3 ? ` (+${issues.length - 3} more)` : ''}`,
      origin: 'validation',
    };
  },
});

/** V8's JSON.parse messages all name JSON ("Unexpected end of JSON input", "… is not valid JSON"). */
const JSON_PARSE_MESSAGE = /\bJSON\b/;

/**
 * While a stream is read, a `SyntaxError` from JSON.parse is the wire's fault, not the caller's:
 * the SDKs parse each event with a bare `JSON.parse` and let its SyntaxError through (groq-sdk,
 * openai's and anthropic's Stainless streams). It is a malformed answer mid-stream (interrupted).
 * The message is not kept: V8 quotes the start of the text it could not parse, which is the raw
 * provider body.
 */
export const streamParseExtractor: Extractor = defineExtractor({
  provider: 'node',
  extract(error, context) {
    if ((context as RenderExtractContext).streaming !== true || !isErrorLike(error)) return undefined;
    let isSyntaxError = false;
    try {
      isSyntaxError = error instanceof SyntaxError || safeGet(error, 'name') === 'SyntaxError';
    } catch {
      return undefined;
    }
    if (!isSyntaxError || !JSON_PARSE_MESSAGE.test(messageOf(error, 300))) return undefined;
    return {
      provider: 'node',
      sdkErrorType: 'SyntaxError',
      message: 'A stream event could not be parsed as JSON.',
      origin: 'malformed_response',
      networkPhase: 'stream',
    };
  },
});

const LOCAL_BUG_NAMES = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError']);

/**
 * A programming error (TypeError, ReferenceError, RangeError, SyntaxError) thrown by our own code.
 * Runs after the transport extractor, so undici's `TypeError: fetch failed` never gets here.
 */
export const localBugExtractor: Extractor = defineExtractor({
  provider: 'local',
  extract(error) {
    if (!isErrorLike(error)) return undefined;
    let name: unknown;
    try {
      name =
        error instanceof TypeError
          ? 'TypeError'
          : error instanceof ReferenceError
            ? 'ReferenceError'
            : error instanceof RangeError
              ? 'RangeError'
              : error instanceof SyntaxError
                ? 'SyntaxError'
                : safeGet(error, 'name');
    } catch {
      name = safeGet(error, 'name');
    }
    if (typeof name !== 'string' || !LOCAL_BUG_NAMES.has(name)) return undefined;
    return { provider: 'local', sdkErrorType: name, message: messageOf(error), origin: 'local' };
  },
});

/** The built-in extractors, in the order they run (after any registered ones). */
export const builtInExtractors: readonly Extractor[] = Object.freeze([
  transportExtractor,
  zodExtractor,
  streamParseExtractor,
  localBugExtractor,
]);

/** Metadata for a value no extractor recognised: no provider signal, so classify says `unknown`. */
export function fallbackMetadata(error: unknown): ProviderErrorMetadata {
  return { provider: 'unknown', message: describeThrown(error), origin: 'unknown' };
}

function runExtractor(extractor: unknown, error: unknown, context: RenderExtractContext) {
  try {
    const extract = safeGet(extractor, 'extract');
    if (typeof extract !== 'function') return undefined;
    const metadata = extract.call(extractor, error, context) as unknown;
    if (metadata === null || typeof metadata !== 'object') return undefined;
    return metadata as ProviderErrorMetadata;
  } catch {
    return undefined;
  }
}

/**
 * Runs the registered extractors, then the built-in ones, and returns the first metadata any of
 * them gives (or the fallback). Total: a throwing or malformed extractor is skipped.
 */
export function extractMetadata(
  error: unknown,
  extractors: readonly Extractor[] | undefined,
  context: RenderExtractContext,
): ProviderErrorMetadata {
  if (Array.isArray(extractors)) {
    for (const extractor of extractors.slice(0, 100)) {
      const metadata = runExtractor(extractor, error, context);
      if (metadata !== undefined) return metadata;
    }
  }
  for (const extractor of builtInExtractors) {
    const metadata = runExtractor(extractor, error, context);
    if (metadata !== undefined) return metadata;
  }
  return fallbackMetadata(error);
}
