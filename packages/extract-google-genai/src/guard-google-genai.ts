import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render';
import {
  detectGeminiBlockedAnswer,
  GOOGLE_GENAI_PROVIDER,
  googleGenaiExtractor,
  googleGenaiTransportExtractor,
} from './extract-google-genai.ts';

/** Options of {@link guardGeminiStream}: render's `guardStream` options minus the Gemini-specific ones. */
export type GuardGeminiStreamOptions<T> = Omit<
  GuardStreamOptions<T>,
  'isTerminal' | 'inspectChunk' | 'measure'
>;

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

function characterCount(chunk: unknown): number {
  let total = 0;
  for (const candidate of candidatesOf(chunk)) {
    const parts = safeGet(safeGet(candidate, 'content'), 'parts');
    if (!Array.isArray(parts)) continue;
    for (const part of parts.slice(0, 100)) {
      const text = safeGet(part, 'text');
      if (typeof text === 'string') total += text.length;
    }
  }
  return total;
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
  const { detectBlockedAnswer = true, extractors, ...rest } = options;
  return guardStream(stream, {
    provider: GOOGLE_GENAI_PROVIDER,
    ...rest,
    extractors: [...(extractors ?? []), googleGenaiExtractor, googleGenaiTransportExtractor],
    isTerminal: isGeminiTerminalChunk,
    inspectChunk: (chunk: StreamChunk<S>): ProviderErrorMetadata | undefined => {
      if (isEmptyGeminiChunk(chunk)) return emptyChunkMetadata();
      return detectBlockedAnswer ? detectGeminiBlockedAnswer(chunk) : undefined;
    },
    measure: characterCount,
  });
}
