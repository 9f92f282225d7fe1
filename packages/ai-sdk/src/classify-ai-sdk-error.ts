import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ChunkReading,
  type ClassifyErrorOptions,
  classifyError,
  type FaultlineError,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
} from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import {
  AI_SDK_PROVIDER,
  AiSdkErrorPart,
  aiSdkErrorName,
  createAiSdkExtractor,
  detectAiSdkBlockedAnswer,
} from './extract-ai-sdk.ts';
import { AI_SDK_CLASSIFY_OPTION_KEYS, GUARD_AI_SDK_STREAM_OPTION_KEYS } from './option-keys.ts';
import { providerFromId } from './provider-of.ts';

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
  checkOptionKeys('classifyAiSdkError', options, AI_SDK_CLASSIFY_OPTION_KEYS);
  const { provider: _provider, extractors: _extractors, ...rest } = options;
  return classifyError(error, {
    ...rest,
    extractors: extractorsFor(options),
    provider: providerFromId(options.provider),
  });
}

/** A part of `fullStream` (streamText, streamObject) or of a model's `doStream` stream. */
export interface AiSdkStreamPart {
  readonly type: string;
  readonly error?: unknown;
  readonly delta?: unknown;
  readonly textDelta?: unknown;
  readonly text?: unknown;
  readonly finishReason?: unknown;
  /** ai 6's `finish` part of `fullStream`: the finish reason the provider sent, if it sent one. */
  readonly rawFinishReason?: unknown;
  /** A `raw` part's provider chunk (with `includeRawChunks: true`). */
  readonly rawValue?: unknown;
}

export interface GuardAiSdkStreamOptions
  extends Omit<GuardStreamOptions<AiSdkStreamPart>, 'extractors' | 'readChunk' | 'requireTerminal'> {
  /** As in {@link classifyAiSdkError}. */
  readonly provider?: string | undefined;
  readonly extractors?: readonly Extractor[] | undefined;
}

/** The parts whose text is output: an answer's, its reasoning's, and a tool call's arguments as they stream. */
const OUTPUT_DELTAS: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

/**
 * Characters of output in a part: a delta's `text` (fullStream of ai 5 and 6), `delta` (a model's
 * stream) or `textDelta` (older parts), and a whole tool call's `input`. Output is what a caller
 * has been shown or acted on, so a stream that failed after a tool call has delivered output.
 */
function partCharacters(part: AiSdkStreamPart): number {
  if (part === null || typeof part !== 'object') return 0;
  if (part.type === 'tool-call') {
    const input = (part as { input?: unknown }).input;
    return typeof input === 'string' ? Math.max(1, input.length) : 1;
  }
  if (!OUTPUT_DELTAS.has(part.type)) return 0;
  const text = part.text ?? part.delta ?? part.textDelta;
  return typeof text === 'string' ? text.length : 0;
}

/** The names the provider APIs give their finish reason: chat completions, Gemini, Anthropic, Converse. */
const FINISH_REASON_KEYS = ['finish_reason', 'finishReason', 'stop_reason', 'stopReason'] as const;
/** Event types that end an answer without a finish-reason member (Anthropic, the Responses API). */
const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  'message_stop',
  'response.completed',
  'response.incomplete',
]);

function hasFinishReason(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  for (const key of FINISH_REASON_KEYS) {
    const reason = safeGet(value, key);
    if (typeof reason === 'string' && reason.length > 0) return true;
  }
  return false;
}

/**
 * Whether a provider chunk (a `raw` part's value) says the answer finished: a finish reason in the
 * chunk, its choices or candidates, an Anthropic `message_delta`'s delta, a Converse `messageStop`,
 * or an event type that ends the answer. Read from what the provider sent, not from the `finish`
 * part its AI SDK package always emits.
 */
export function rawChunkFinishes(value: unknown): boolean {
  try {
    if (value === null || typeof value !== 'object') return false;
    const type = safeGet(value, 'type');
    if (typeof type === 'string' && TERMINAL_EVENT_TYPES.has(type)) return true;
    if (hasFinishReason(value) || hasFinishReason(safeGet(value, 'delta'))) return true;
    if (hasFinishReason(safeGet(value, 'messageStop'))) return true;
    for (const key of ['choices', 'candidates']) {
      const list = safeGet(value, key);
      if (Array.isArray(list) && list.slice(0, 16).some(hasFinishReason)) return true;
    }
    return false;
  } catch {
    return false;
  }
}

/**
 * Whether a `finish` part reports a finish the provider sent. The AI SDK's provider packages emit a
 * `finish` part whenever the response body ends, finish reason or not; one the provider never sent
 * carries their placeholder: in ai 6 `other` with no raw reason beside it (`finishReason.raw` of a
 * model stream, `rawFinishReason` of `fullStream`), in ai 5 (no raw reason at all) `unknown`. Such
 * a finish counts only when a raw chunk of the same stream carried the provider's finish
 * (`rawFinished`, with `includeRawChunks: true`).
 */
export function isProviderFinish(part: AiSdkStreamPart, rawFinished: boolean): boolean {
  if (part === null || typeof part !== 'object' || part.type !== 'finish') return false;
  if (rawFinished) return true;
  const reason = part.finishReason;
  if (reason !== null && typeof reason === 'object') {
    const raw = safeGet(reason, 'raw');
    return safeGet(reason, 'unified') !== 'other' || (typeof raw === 'string' && raw.length > 0);
  }
  if ('rawFinishReason' in part) {
    const raw = part.rawFinishReason;
    return reason !== 'other' || (typeof raw === 'string' && raw.length > 0);
  }
  return reason !== 'unknown';
}

/**
 * A `finish` part whose raw reason (what the provider sent) is `error`: the provider ended the
 * answer because it failed (OpenRouter's chunks say so when an upstream fails mid-answer). The
 * provider packages keep no more of it than the reason, so the failure is the stream's, said why
 * nowhere else: `interrupted`, with what was delivered.
 */
function failedFinish(part: AiSdkStreamPart): ProviderErrorMetadata | undefined {
  const reason = part.finishReason;
  const raw = reason !== null && typeof reason === 'object' ? safeGet(reason, 'raw') : part.rawFinishReason;
  if (raw !== 'error' && reason !== 'error') return undefined;
  return {
    provider: AI_SDK_PROVIDER,
    sdkErrorType: 'FinishReasonError',
    message: 'The provider ended the answer with finish reason "error".',
    origin: 'network',
    networkPhase: 'stream',
  };
}

/**
 * The guard's per-chunk hook: a `finish` the provider sent ends the stream; one with finish reason
 * `content-filter` withheld the answer, one whose provider reason is `error` failed it.
 */
function readPart(part: AiSdkStreamPart, raw: RawState): ChunkReading {
  const finish = part !== null && typeof part === 'object' && part.type === 'finish';
  return {
    failure: finish ? (detectAiSdkBlockedAnswer(part) ?? failedFinish(part)) : undefined,
    characters: partCharacters(part),
    terminal: isProviderFinish(part, raw.finished),
  };
}

/** What one guarded stream has seen of the provider's own chunks. */
interface RawState {
  finished: boolean;
  /** The last raw chunk: an error part's provider event, where its package kept only a member of it. */
  last: unknown;
}

/** The parts, with each `error` part thrown (as an {@link AiSdkErrorPart}) for the guard to classify. */
async function* throwingErrorParts(
  stream: AsyncIterable<AiSdkStreamPart>,
  raw: RawState,
): AsyncGenerator<AiSdkStreamPart> {
  for await (const part of stream) {
    if (part !== null && typeof part === 'object' && part.type === 'raw') {
      raw.last = part.rawValue;
      if (!raw.finished) raw.finished = rawChunkFinishes(part.rawValue);
    }
    if (part !== null && typeof part === 'object' && part.type === 'error') {
      // A provider's event (a plain object) or an AI SDK error is read by the AI SDK extractor; any
      // other Error (a transport failure, a FaultlineError from the middleware) is classified as is.
      const error = part.error;
      throw aiSdkErrorName(error) !== undefined || !(error instanceof Error)
        ? new AiSdkErrorPart(error, raw.last)
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
  checkOptionKeys('guardAiSdkStream', options, GUARD_AI_SDK_STREAM_OPTION_KEYS);
  const { provider: _provider, extractors: _extractors, ...rest } = options;
  const raw: RawState = { finished: false, last: undefined };
  return guardStream(throwingErrorParts(stream, raw), {
    ...rest,
    extractors: extractorsFor(options),
    // The call's provider, also for what no provider body names (a dropped socket, a missing finish).
    provider: providerFromId(options.provider),
    requireTerminal: true,
    readChunk: (part) => readPart(part, raw),
  });
}
