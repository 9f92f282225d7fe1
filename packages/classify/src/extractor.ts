import type { ProviderErrorMetadata } from './schemas.ts';

/** What a caller knows that helps an extractor tell cases apart. */
export interface ExtractContext {
  /** The caller's own AbortSignal: when it has fired, an AbortError is the caller's, not a timeout. */
  readonly signal?: AbortSignal | undefined;
  /** Clock for HTTP-date Retry-After values, in epoch milliseconds. */
  readonly now?: (() => number) | undefined;
  /** The error was thrown while a stream was being read (set by stream guards). */
  readonly streaming?: boolean | undefined;
}

/**
 * Turns one SDK's thrown value into provider-blind metadata, or returns `undefined` to leave the
 * value to the next extractor. An extractor never throws and never mutates what it reads.
 */
export interface Extractor {
  readonly provider: string;
  extract(error: unknown, context?: ExtractContext): ProviderErrorMetadata | undefined;
}

export interface ExtractorDefinition {
  readonly provider: string;
  extract(error: unknown, context: ExtractContext): ProviderErrorMetadata | undefined;
}

/**
 * Builds a total extractor: whatever the definition throws (a Proxy trap, a getter) becomes
 * `undefined`, and the result always carries the extractor's own provider key.
 */
export function defineExtractor(definition: ExtractorDefinition): Extractor {
  const provider = definition.provider;
  return Object.freeze({
    provider,
    extract(error: unknown, context: ExtractContext = {}): ProviderErrorMetadata | undefined {
      try {
        const metadata = definition.extract(error, context);
        if (metadata === undefined || metadata === null) return undefined;
        if (metadata.provider !== provider) {
          const copy = { ...metadata, provider };
          const raw = (metadata as { rawBody?: unknown }).rawBody;
          if (typeof raw === 'string') attachRawBody(copy, raw);
          return copy;
        }
        return metadata;
      } catch {
        return undefined;
      }
    },
  });
}

/** The longest raw body kept in memory; longer bodies are cut before anyone parses them. */
export const MAX_RAW_BODY_LENGTH = 64 * 1024;

/**
 * Keeps a provider's raw body on the metadata in memory only: the property is non-enumerable,
 * so `JSON.stringify`, spreads and structured logs never see it. Cut to `MAX_RAW_BODY_LENGTH`.
 */
export function attachRawBody<T extends object>(metadata: T, body: string): T {
  Object.defineProperty(metadata, 'rawBody', {
    value: body.length > MAX_RAW_BODY_LENGTH ? body.slice(0, MAX_RAW_BODY_LENGTH) : body,
    enumerable: false,
    writable: false,
    configurable: true,
  });
  return metadata;
}
