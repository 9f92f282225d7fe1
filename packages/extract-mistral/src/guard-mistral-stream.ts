import {
  type ChunkFacts,
  chunkScan,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/adapter';
import { detectMistralStreamFailure } from './blocked-answer.ts';
import { MISTRAL_PROVIDER, mistralExtractor } from './extract-mistral.ts';

interface MistralChoiceView {
  readonly finishReason?: unknown;
  readonly finish_reason?: unknown;
  readonly delta?: { readonly content?: unknown } | null;
}

/** Choices and content parts read from one event (as `blocked-answer.ts` reads). */
const MAX_CHOICES = 64;
const MAX_PARTS = 64;

/**
 * Reads one event once, for the guard's three questions (every event passes here: fields are read
 * directly, nothing allocated for an ordinary event; a throwing field makes the event read as empty).
 * The chunk is the event's `data` (an object with `choices`), else the event itself:
 * - terminal: a choice carrying a finish reason (`finishReason`, or `finish_reason`);
 * - characters: string content, or the text of content parts;
 * - failure: `detectMistralStreamFailure`, read only when a choice finished with `content_filter`
 *   or `error`.
 */
function scanMistralEvent(value: unknown, facts: ChunkFacts): void {
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
  const scan = chunkScan(scanMistralEvent);
  const userInspect = options.inspectChunk;
  return guardStream(stream, {
    provider: MISTRAL_PROVIDER,
    ...scan,
    ...options,
    // The caller's inspectChunk runs after the provider's checks; without one, the scan's own
    // callback is kept so the guard reads each chunk with one scan.
    inspectChunk:
      userInspect === undefined
        ? scan.inspectChunk
        : (chunk) => scan.inspectChunk(chunk) ?? userInspect(chunk),
    extractors: [...(options.extractors ?? []), mistralExtractor],
  });
}
