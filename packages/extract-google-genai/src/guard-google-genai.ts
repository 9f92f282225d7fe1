import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ChunkReading,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/toolkit';
import {
  detectGeminiBlockedAnswer,
  GOOGLE_GENAI_PROVIDER,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
} from './extract-google-genai.ts';

/** Options of {@link guardGeminiStream}: render's `guardStream` options minus the Gemini-specific ones. */
export type GuardGeminiStreamOptions<T> = Omit<GuardStreamOptions<T>, 'readChunk'>;

function candidatesOf(chunk: unknown): unknown[] {
  const candidates = safeGet(chunk, 'candidates');
  return Array.isArray(candidates) ? candidates.slice(0, 20) : [];
}

/** The last chunk of a Gemini stream carries a candidate `finishReason` (STOP, MAX_TOKENS, SAFETY …). */
export function isGeminiTerminalChunk(chunk: unknown): boolean {
  return candidatesOf(chunk).some((candidate) => {
    const reason = safeGet(candidate, 'finishReason');
    return typeof reason === 'string' && reason.length > 0 && reason !== 'FINISH_REASON_UNSPECIFIED';
  });
}

/**
 * A chunk that carries nothing a Gemini answer ever carries: no candidates, no promptFeedback, no
 * usage. @google/genai 1.x turns an error chunk (`data: {"error":{…}}`) into exactly this and ends
 * the stream normally (docs/contributing/sdk-surfaces.md section 3), so the error itself is lost.
 */
export function isEmptyGeminiChunk(chunk: unknown): boolean {
  if (chunk === null || typeof chunk !== 'object') return false;
  for (const key of [
    'candidates',
    'promptFeedback',
    'usageMetadata',
    'modelVersion',
    'responseId',
    'automaticFunctionCallingHistory',
  ]) {
    const value = safeGet(chunk, key);
    if (value !== undefined && value !== null) return false;
  }
  return true;
}

function emptyChunkMetadata(): ProviderErrorMetadata {
  return {
    provider: GOOGLE_GENAI_PROVIDER,
    origin: 'malformed_response',
    message:
      'The Gemini stream delivered an empty chunk: @google/genai reports an error chunk it cannot read this way (1.x: every error chunk) and drops the error.',
  };
}

/**
 * The bound `withClassifiedErrors`' `inspectResult`: a blocked answer
 * ({@link detectGeminiBlockedAnswer}: a unary result, one chunk, or collected chunks), or
 * collected stream chunks that contain an empty chunk (an error chunk the SDK swallowed). Total.
 */
export function inspectGeminiResult(result: unknown): ProviderErrorMetadata | undefined {
  const blocked = detectGeminiBlockedAnswer(result);
  if (blocked !== undefined) return blocked;
  try {
    if (Array.isArray(result) && result.slice(0, 10_000).some(isEmptyGeminiChunk))
      return emptyChunkMetadata();
  } catch {
    return undefined;
  }
  return undefined;
}

interface CandidateView {
  readonly finishReason?: unknown;
  readonly content?: { readonly parts?: unknown } | null;
}

/** Candidates and parts read from one chunk (as `candidatesOf` reads). */
const MAX_CANDIDATES = 20;
const MAX_PARTS = 100;

/** The fields any Gemini answer chunk carries at least one of (see `isEmptyGeminiChunk`). */
const ANSWER_FIELDS = [
  'promptFeedback',
  'usageMetadata',
  'modelVersion',
  'responseId',
  'automaticFunctionCallingHistory',
] as const;

/**
 * Reads one chunk once, for the guard's three questions (every chunk passes here: fields are read
 * directly, nothing allocated for an ordinary chunk; a throwing field makes the chunk read as empty):
 * - terminal: a candidate with a `finishReason` (`isGeminiTerminalChunk`);
 * - characters: the text of every candidate's parts, and one per `functionCall` part;
 * - failure: an empty chunk (`isEmptyGeminiChunk`).
 * Returns whether the chunk could be a withheld answer (`detectGeminiBlockedAnswer`, whose schema
 * parse runs only then: with `promptFeedback`, or whose first candidate has a finishReason).
 */
function scanGeminiAnswer(value: unknown, facts: ChunkReading): boolean {
  if (value === null || typeof value !== 'object') return false;
  const chunk = value as { readonly candidates?: unknown; readonly promptFeedback?: unknown };
  const candidates = chunk.candidates;
  if ((candidates === undefined || candidates === null) && isAnswerless(value)) {
    facts.failure = emptyChunkMetadata();
    return false;
  }
  let mayBeBlocked = chunk.promptFeedback !== undefined && chunk.promptFeedback !== null;
  if (Array.isArray(candidates)) {
    let characters = 0;
    const count = Math.min(candidates.length, MAX_CANDIDATES);
    for (let index = 0; index < count; index += 1) {
      const candidate = candidates[index] as CandidateView | null;
      if (candidate === null || typeof candidate !== 'object') continue;
      const reason = candidate.finishReason;
      if (typeof reason === 'string') {
        if (index === 0) mayBeBlocked = true;
        if (reason.length > 0 && reason !== 'FINISH_REASON_UNSPECIFIED') facts.terminal = true;
      }
      const content = candidate.content;
      if (content === null || typeof content !== 'object') continue;
      const parts = content.parts;
      if (!Array.isArray(parts)) continue;
      const partCount = Math.min(parts.length, MAX_PARTS);
      for (let part = 0; part < partCount; part += 1) {
        const item = parts[part] as { readonly text?: unknown; readonly functionCall?: unknown } | null;
        if (item === null || typeof item !== 'object') continue;
        const text = item.text;
        if (typeof text === 'string') characters += text.length;
        // A function call comes whole (its args an object): output the consumer acts on, so it
        // counts one character however short its arguments.
        else if (item.functionCall !== null && typeof item.functionCall === 'object') characters += 1;
      }
    }
    facts.characters = characters;
  }
  return mayBeBlocked;
}

/** A chunk without candidates that has none of the other fields an answer carries either (rare: apart). */
function isAnswerless(value: object): boolean {
  const record = value as Readonly<Record<string, unknown>>;
  for (const key of ANSWER_FIELDS) {
    const field = record[key];
    if (field !== undefined && field !== null) return false;
  }
  return true;
}

/**
 * The guard's per-chunk hook, with a withheld answer detected (the default) and without
 * (`detectBlockedAnswer: false`): two functions made once, not a closure per stream.
 */
function readGeminiChunk(value: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (scanGeminiAnswer(value, reading)) reading.failure = detectGeminiBlockedAnswer(value);
  return reading;
}

function readGeminiChunkLettingBlocked(value: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  scanGeminiAnswer(value, reading);
  return reading;
}

/**
 * Guards a `generateContentStream` result (any @google/genai major) with render's `guardStream`:
 * chunks pass through untouched, and every way the stream can fail becomes a classified
 * FaultlineError carrying `delivered`:
 * - an `ApiError` thrown from an error chunk (genai 2/3) or a transport drop: classified with
 *   this package's extractors, mid-stream;
 * - an empty `{}` chunk (genai 1.x swallowing an error chunk): `interrupted`;
 * - a chunk whose answer is withheld (blockReason, SAFETY/RECITATION/… finishReason): `content_policy`
 *   (opt out with `detectBlockedAnswer: false`);
 * - no chunk for `idleTimeoutMs` (a stall): `interrupted`;
 * - an end without a chunk carrying a `finishReason`: `interrupted`.
 */
export function guardGeminiStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardGeminiStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  const { detectBlockedAnswer, extractors, ...rest } = options;
  return guardStream(stream, {
    provider: GOOGLE_GENAI_PROVIDER,
    requireTerminal: true,
    ...rest,
    extractors: [...(extractors ?? []), googleGenaiExtractor, googleGenaiTransportExtractor],
    readChunk: detectBlockedAnswer === false ? readGeminiChunkLettingBlocked : readGeminiChunk,
  });
}
