import {
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render';
import {
  detectMistralStreamFailure,
  isMistralTerminalEvent,
  mistralEventCharacters,
} from './blocked-answer.ts';
import { MISTRAL_PROVIDER, mistralExtractor } from './extract-mistral.ts';

/**
 * Guards a Mistral stream (`await mistral.chat.stream(...)`, `fim.stream`, `agents.stream`): events
 * pass through untouched (the same objects), and
 * - a chunk whose finish reason is `error` (the API's mid-stream failure; the SDK yields it and ends
 *   normally) is thrown as `server_error`, one whose finish reason is `content_filter` as
 *   `content_policy` (`detectBlockedAnswer: false` lets the withheld answer through);
 * - an error body sent as an event (the SDK throws a raw ZodError) or a cut socket (raw TypeError)
 *   becomes a classified FaultlineError (`interrupted`) with `delivered` progress;
 * - a stall after the headers ends after `idleTimeoutMs` as `interrupted` (a signal given to the SDK
 *   replaces its own `timeoutMs`, so nothing else ends it);
 * - an end without an event carrying a finish reason is `interrupted`;
 * - the caller's abort (pass the same `signal` here and to the SDK): both majors throw the signal's
 *   DOMException AbortError mid-stream; the guard re-throws it untouched.
 * Options given here win over the Mistral defaults; extractors given here run before mistralExtractor,
 * and an `inspectChunk` given here runs after the Mistral checks.
 */
export function guardMistralStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  return guardStream(stream, {
    provider: MISTRAL_PROVIDER,
    isTerminal: isMistralTerminalEvent,
    measure: mistralEventCharacters,
    ...options,
    inspectChunk: (chunk) => detectMistralStreamFailure(chunk) ?? options.inspectChunk?.(chunk),
    extractors: [...(options.extractors ?? []), mistralExtractor],
  });
}
