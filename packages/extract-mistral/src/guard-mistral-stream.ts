import {
  type ChunkReading,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
  toolCallCharacters,
} from '@faultline/render/toolkit';
import { detectMistralStreamFailure } from './blocked-answer.ts';
import { MISTRAL_PROVIDER, mistralExtractor } from './extract-mistral.ts';

interface MistralChoiceView {
  readonly finishReason?: unknown;
  readonly finish_reason?: unknown;
  readonly delta?: {
    readonly content?: unknown;
    readonly toolCalls?: unknown;
    readonly tool_calls?: unknown;
  } | null;
}

/** Choices and content parts read from one event (as `blocked-answer.ts` reads). */
const MAX_CHOICES = 64;
const MAX_PARTS = 64;

/**
 * Reads one event once, for the guard (every event passes here: fields are read directly; a
 * throwing field makes the guard read the event as empty).
 * The chunk is the event's `data` (an object with `choices`), else the event itself:
 * - terminal: a choice carrying a finish reason (`finishReason`, or `finish_reason`);
 * - characters: string content, or the text of content parts, and tool-call arguments;
 * - failure: `detectMistralStreamFailure`, read only when a choice finished with `content_filter`
 *   or `error`.
 */
function scanMistralEvent(value: unknown, facts: ChunkReading): void {
  if (value === null || typeof value !== 'object') return;
  const data = (value as { readonly data?: unknown }).data;
  const chunk =
    data !== null &&
    typeof data === 'object' &&
    (data as { readonly choices?: unknown }).choices !== undefined
      ? data
      : value;
  const choices = (chunk as { readonly choices?: unknown }).choices;
  if (!Array.isArray(choices)) return;
  let characters = 0;
  let failed = false;
  const count = Math.min(choices.length, MAX_CHOICES);
  for (let index = 0; index < count; index += 1) {
    const choice = choices[index] as MistralChoiceView | null;
    if (choice === null || typeof choice !== 'object') continue;
    const camel = choice.finishReason;
    const reason = typeof camel === 'string' ? camel : choice.finish_reason;
    if (typeof reason === 'string' && reason.length > 0) {
      facts.terminal = true;
      if (reason === 'content_filter' || reason === 'error') failed = true;
    }
    const delta = choice.delta;
    if (delta === null || typeof delta !== 'object') continue;
    characters += toolCallCharacters(delta.toolCalls ?? delta.tool_calls);
    const content = delta.content;
    if (typeof content === 'string') characters += content.length;
    else if (Array.isArray(content)) {
      const parts = Math.min(content.length, MAX_PARTS);
      for (let part = 0; part < parts; part += 1) {
        const item = content[part] as { readonly text?: unknown } | null;
        if (item === null || typeof item !== 'object') continue;
        const text = item.text;
        if (typeof text === 'string') characters += text.length;
      }
    }
  }
  facts.characters = characters;
  if (failed) facts.failure = detectMistralStreamFailure(value);
}

/** The guard's per-chunk hook (see `scanMistralEvent`). */
function readMistralEvent(chunk: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  scanMistralEvent(chunk, reading);
  return reading;
}

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
 * Options given here win over the Mistral defaults; extractors given here run before mistralExtractor.
 */
export function guardMistralStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  return guardStream(stream, {
    provider: MISTRAL_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readMistralEvent,
    extractors: [...(options.extractors ?? []), mistralExtractor],
  });
}
