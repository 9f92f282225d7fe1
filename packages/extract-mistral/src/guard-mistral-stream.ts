import {
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render';
import {
  detectMistralBlockedAnswer,
  isMistralTerminalEvent,
  mistralEventCharacters,
} from './blocked-answer.ts';
import { MISTRAL_PROVIDER, mistralExtractor } from './extract-mistral.ts';

/**
 * Guards a Mistral stream (`await mistral.chat.stream(...)`): events pass through untouched; an
 * error event (the SDK throws a raw ZodError), a cut socket, a stall, or an end without an event
 * carrying a finish reason becomes a classified FaultlineError with `delivered` progress. Options
 * given here win over the Mistral defaults; extractors given here run before mistralExtractor.
 */
export function guardMistralStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  return guardStream(stream, {
    provider: MISTRAL_PROVIDER,
    isTerminal: isMistralTerminalEvent,
    inspectChunk: detectMistralBlockedAnswer,
    measure: mistralEventCharacters,
    ...options,
    extractors: [...(options.extractors ?? []), mistralExtractor],
  });
}
