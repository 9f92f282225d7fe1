import type { Extractor } from '@faultline/classify';
import {
  type ChunkReading,
  type ClassifyErrorOptions,
  classifyError,
  type FaultlineError,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
} from '@faultline/render';
import {
  AiSdkErrorPart,
  aiSdkErrorName,
  createAiSdkExtractor,
  detectAiSdkBlockedAnswer,
} from './extract-ai-sdk.ts';

export interface AiSdkClassifyOptions extends Omit<ClassifyErrorOptions, 'extractors'> {
  /**
   * The AI SDK provider id (`model.provider`, e.g. `anthropic.messages`) or a faultline provider
   * name; without it the request URL of an `APICallError` picks the body rules.
   */
  readonly provider?: string | undefined;
  /** More extractors, run after the AI SDK's. */
  readonly extractors?: readonly Extractor[] | undefined;
}

const extractorCache = new Map<string, Extractor>();

/** One extractor per provider hint (the set is small: the AI SDK's provider ids). */
export function aiSdkExtractorFor(provider: string | undefined): Extractor {
  const key = provider ?? '';
  let extractor = extractorCache.get(key);
  if (extractor === undefined) {
    extractor = createAiSdkExtractor({ provider });
    if (extractorCache.size < 256) extractorCache.set(key, extractor);
  }
  return extractor;
}

function extractorsFor(options: AiSdkClassifyOptions): Extractor[] {
  return [aiSdkExtractorFor(options.provider), ...(options.extractors ?? [])];
}

/**
 * Classifies anything an AI SDK call threw (`generateText`, `streamText`, `generateObject`,
 * `streamObject`, `embed`, ...) into a `FaultlineError`: `APICallError` with its provider's body
 * rules, `RetryError` as its last attempt (with the attempts made), the AI SDK's own errors under
 * the taxonomy. The caller's abort (with `signal`) stays the caller's. Total: never throws.
 */
export function classifyAiSdkError(error: unknown, options: AiSdkClassifyOptions = {}): FaultlineError {
  const { provider: _provider, extractors: _extractors, ...rest } = options;
  // Object.assign, not `{ ...rest, extractors }`: on Node 20 a spread followed by added keys costs
  // about 1 µs (a new hidden class each call), more than the rest of this call's setup.
  return classifyError(error, Object.assign({}, rest, { extractors: extractorsFor(options) }));
}

/** A part of `fullStream` (streamText, streamObject) or of a model's `doStream` stream. */
export interface AiSdkStreamPart {
  readonly type: string;
  readonly error?: unknown;
  readonly delta?: unknown;
  readonly textDelta?: unknown;
  readonly text?: unknown;
  readonly finishReason?: unknown;
}

export interface GuardAiSdkStreamOptions
  extends Omit<GuardStreamOptions<AiSdkStreamPart>, 'extractors' | 'readChunk'> {
  /** As in {@link classifyAiSdkError}. */
  readonly provider?: string | undefined;
  readonly extractors?: readonly Extractor[] | undefined;
}

/**
 * Characters of output in a part: a `text-delta` part's `text` (fullStream of ai 5 and 6), `delta`
 * (a model's stream) or `textDelta` (older parts).
 */
function partCharacters(part: AiSdkStreamPart): number {
  if (part === null || typeof part !== 'object' || part.type !== 'text-delta') return 0;
  const text = part.text ?? part.delta ?? part.textDelta;
  return typeof text === 'string' ? text.length : 0;
}

/** The guard's per-chunk hook: a `finish` part ends the stream (withheld when its reason is `content-filter`). */
function readPart(part: AiSdkStreamPart): ChunkReading {
  const finish = part !== null && typeof part === 'object' && part.type === 'finish';
  return {
    failure: finish ? detectAiSdkBlockedAnswer(part) : undefined,
    characters: partCharacters(part),
    terminal: finish,
  };
}

/** The parts, with each `error` part thrown (as an {@link AiSdkErrorPart}) for the guard to classify. */
async function* throwingErrorParts(stream: AsyncIterable<AiSdkStreamPart>): AsyncGenerator<AiSdkStreamPart> {
  for await (const part of stream) {
    if (part !== null && typeof part === 'object' && part.type === 'error') {
      // A provider's event (a plain object) or an AI SDK error is read by the AI SDK extractor; any
      // other Error (a transport failure, a FaultlineError from the middleware) is classified as is.
      const error = part.error;
      throw aiSdkErrorName(error) !== undefined || !(error instanceof Error)
        ? new AiSdkErrorPart(error)
        : error;
    }
    yield part;
  }
}

/**
 * Guards the `fullStream` of `streamText` / `streamObject` (or a model's `doStream` stream): parts
 * pass through untouched; an `error` part, a stream that ends without its `finish` part, a stall
 * longer than `idleTimeoutMs` (default 60 s) and a dropped connection are thrown as a classified
 * `FaultlineError` (with the output `delivered` so far).
 */
export function guardAiSdkStream(
  stream: AsyncIterable<AiSdkStreamPart>,
  options: GuardAiSdkStreamOptions = {},
): GuardedStream<AsyncIterable<AiSdkStreamPart>> {
  const { provider: _provider, extractors: _extractors, ...rest } = options;
  return guardStream(throwingErrorParts(stream), {
    requireTerminal: true,
    ...rest,
    extractors: extractorsFor(options),
    readChunk: readPart,
  });
}
