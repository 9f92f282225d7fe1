import { safeGet } from './read.ts';
import type { ProviderErrorMetadata, RuleId } from './schemas.ts';

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

/**
 * Every adapter's `detectBlockedAnswer` and `inspectResult`: a success result whose answer the
 * provider withheld, as `blocked_response` metadata; undefined for any other result.
 */
export type ResultInspector = (result: unknown) => ProviderErrorMetadata | undefined;

export interface ExtractorDefinition {
  readonly provider: string;
  extract(error: unknown, context: ExtractContext): ProviderErrorMetadata | undefined;
}

/**
 * A crash of faultline's own code while reading a failure: an extractor's, or a rule's of
 * classify's table. A bug in faultline, never the SDK's failure.
 */
export interface ExtractorCrash {
  /** The extractor's provider key; for a rule, the provider of the metadata it was reading. */
  readonly provider: string;
  /** The rule of classify's table that threw, when it was a rule (not an extractor). */
  readonly rule?: RuleId | undefined;
  /** What the extractor or rule threw. */
  readonly thrown: unknown;
}

export type ExtractorCrashListener = (crash: ExtractorCrash) => void;

// Kept on the global object under a registered symbol, so that duplicate installs of this package
// share one set of listeners, and a test runner's setup can listen without importing it.
const CRASH_LISTENERS_KEY = Symbol.for('faultline.extractorCrashListeners');

function crashListeners(): Set<ExtractorCrashListener> {
  const holder = globalThis as { [CRASH_LISTENERS_KEY]?: Set<ExtractorCrashListener> };
  holder[CRASH_LISTENERS_KEY] ??= new Set();
  return holder[CRASH_LISTENERS_KEY];
}

/**
 * Listens for extractors, and rules of classify's table, that crash while reading an error. The
 * crash never reaches the caller (the failure is reported as faultline's own `local_bug`); this
 * hook makes it visible, and the repository's test setup turns it into a test failure. Returns a
 * function that stops listening.
 */
export function onExtractorCrash(listener: ExtractorCrashListener): () => void {
  const listeners = crashListeners();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Tells every `onExtractorCrash` listener; a listener that throws changes nothing. */
export function reportCrash(crash: ExtractorCrash): void {
  for (const listener of crashListeners()) {
    try {
      listener(crash);
    } catch {
      // A listener never changes the outcome.
    }
  }
}

/**
 * Builds a total extractor whose result always carries the extractor's own provider key. Whatever
 * the definition throws is a bug in the extractor: it is reported to `onExtractorCrash` listeners,
 * and the failure being read becomes faultline's own `local_bug` (origin `local`), never an
 * `unknown` that looks like "not mine".
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
          copyRawBody(metadata, copy);
          return copy;
        }
        return metadata;
      } catch (thrown) {
        reportCrash({ provider, thrown });
        return {
          provider,
          message: `faultline's ${provider} extractor failed while reading this error (a bug in faultline: please report it).`,
          origin: 'local',
          sdkErrorType: 'FaultlineExtractorCrash',
        };
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

/**
 * The SDK's parsed bodies whose JSON text has not been read yet, by the metadata that will show
 * it. The SDK error already holds the body object, so a pending body costs one entry here instead
 * of a second copy of the body as a string per error (most errors are never asked for their raw
 * body).
 */
const PENDING_RAW_BODIES = new WeakMap<object, object>();

/** The JSON text of a parsed body, cut; `undefined` for bytes, a cycle or a throwing getter. */
function jsonBodyText(body: unknown): string | undefined {
  try {
    if (
      typeof body === 'object' &&
      body !== null &&
      (ArrayBuffer.isView(body) || body instanceof ArrayBuffer)
    ) {
      return undefined;
    }
    const text = JSON.stringify(body);
    if (typeof text !== 'string' || text.length === 0) return undefined;
    return text.length > MAX_RAW_BODY_LENGTH ? text.slice(0, MAX_RAW_BODY_LENGTH) : text;
  } catch {
    return undefined;
  }
}

/** The `rawBody` getter of every pending body: writes the text once, then keeps it as a value. */
function readPendingRawBody(this: unknown): string | undefined {
  try {
    if (this === null || typeof this !== 'object') return undefined;
    const body = PENDING_RAW_BODIES.get(this);
    if (body === undefined) return undefined;
    const text = jsonBodyText(body);
    try {
      Object.defineProperty(this, 'rawBody', {
        value: text,
        enumerable: false,
        writable: false,
        configurable: true,
      });
      PENDING_RAW_BODIES.delete(this);
    } catch {
      // A frozen metadata keeps the getter: the text is written again on each read, the same.
    }
    return text;
  } catch {
    return undefined;
  }
}

function attachPendingRawBody(metadata: object, body: object): void {
  PENDING_RAW_BODIES.set(metadata, body);
  Object.defineProperty(metadata, 'rawBody', {
    get: readPendingRawBody,
    enumerable: false,
    configurable: true,
  });
}

/**
 * `attachRawBody` for a body the SDK has already parsed: `rawBody` reads its JSON text (cut to
 * `MAX_RAW_BODY_LENGTH`, as `JSON.stringify` writes it), written on the first read only and kept.
 * An object body is held by reference until then (the SDK error holds it anyway), so a later
 * mutation of the SDK's body shows in a `rawBody` not yet read. Attaches nothing when the body has
 * no JSON text (`undefined`, bytes); a primitive is written at once, as before.
 */
export function attachRawJsonBody<T extends object>(metadata: T, body: unknown): T {
  try {
    if (typeof body === 'object' && body !== null) {
      // `instanceof` on a revoked Proxy throws: caught below, the body is then not kept.
      if (ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return metadata;
      attachPendingRawBody(metadata, body);
      return metadata;
    }
    const text = jsonBodyText(body);
    if (text !== undefined) attachRawBody(metadata, text);
  } catch {
    // A revoked Proxy as the body, or a frozen metadata: no raw body, as jsonText gave none.
  }
  return metadata;
}

/**
 * Gives `to` the `rawBody` of `from`, still unwritten if it has not been read (so copying metadata
 * never writes the text); total on any `from`, a Proxy or a throwing getter included.
 */
export function copyRawBody(from: unknown, to: object): void {
  try {
    if (typeof from === 'object' && from !== null) {
      const body = PENDING_RAW_BODIES.get(from);
      if (body !== undefined) {
        attachPendingRawBody(to, body);
        return;
      }
    }
    const raw = safeGet(from, 'rawBody');
    if (typeof raw === 'string') attachRawBody(to, raw);
  } catch {
    // `to` could not take the property (frozen): it keeps no raw body.
  }
}
