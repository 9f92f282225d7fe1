import {
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render';
import { detectGroqBlockedAnswer, groqChunkCharacters, isGroqTerminalChunk } from './blocked-answer.ts';
import { GROQ_PROVIDER, groqExtractor } from './extract-groq.ts';

/**
 * Guards a groq-sdk stream (`groq.chat.completions.create({ stream: true })`): chunks pass through
 * untouched; an error event, a cut socket, a stall (groq-sdk's `timeout` does not cover stream
 * reads) or an end without a chunk carrying `finish_reason` becomes a classified FaultlineError
 * with `delivered` progress. Options given here win over the Groq defaults; extractors given here
 * run before groqExtractor.
 */
export function guardGroqStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  return guardStream(stream, {
    provider: GROQ_PROVIDER,
    isTerminal: isGroqTerminalChunk,
    inspectChunk: detectGroqBlockedAnswer,
    measure: groqChunkCharacters,
    ...options,
    extractors: [...(options.extractors ?? []), groqExtractor],
  });
}
