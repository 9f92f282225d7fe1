import type { GuardedStream, GuardStreamOptions, StreamChunk } from '@faultline/render';
import { guardStainlessStream } from '@faultline/stainless';
import { detectGroqBlockedAnswer, groqChunkCharacters, isGroqTerminalChunk } from './blocked-answer.ts';
import { GROQ_PROVIDER, groqErrorChunkMetadata, groqExtractor } from './extract-groq.ts';

/** A chunk that is an error object groq-sdk let through, or a withheld answer: metadata to throw. */
function inspectGroqChunk(chunk: unknown) {
  return groqErrorChunkMetadata(chunk) ?? detectGroqBlockedAnswer(chunk);
}

/**
 * Guards a groq-sdk stream (`groq.chat.completions.create({ stream: true })`): chunks pass through
 * untouched; an error event (a `data: {"error":…}` line or a named `event: error`, including a bare
 * error object that groq-sdk yields as if it were a chunk), a cut socket, a stall (groq-sdk's
 * `timeout` does not cover stream reads), a `content_filter` finish or an end without a chunk
 * carrying `finish_reason` becomes a classified FaultlineError with `delivered` progress (an event
 * that is not JSON, which groq-sdk throws as a raw SyntaxError, is a malformed answer: interrupted,
 * by render's built-in stream parse rule). The
 * caller's abort ends the iteration silently in groq-sdk: pass the same `signal` here and its
 * reason is thrown. A withheld answer is let through with `detectBlockedAnswer: false`. Options
 * given here win over the Groq defaults; extractors given here run before groqExtractor, and an
 * `inspectChunk` given here runs after the Groq checks.
 */
export function guardGroqStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  return guardStainlessStream(stream, groqExtractor, {
    provider: GROQ_PROVIDER,
    isTerminal: isGroqTerminalChunk,
    measure: groqChunkCharacters,
    ...options,
    inspectChunk: (chunk) => inspectGroqChunk(chunk) ?? options.inspectChunk?.(chunk),
  });
}
