import {
  type ChunkReading,
  type GuardedStream,
  type GuardStreamOptions,
  type StreamChunk,
  toolCallCharacters,
} from '@faultline/render/toolkit';
import { guardStainlessStream } from '@faultline/stainless';
import { detectGroqBlockedAnswer } from './blocked-answer.ts';
import { GROQ_PROVIDER, groqErrorChunkMetadata, groqExtractor } from './extract-groq.ts';

interface GroqChoiceView {
  readonly finish_reason?: unknown;
  readonly delta?: {
    readonly content?: unknown;
    readonly reasoning?: unknown;
    readonly tool_calls?: unknown;
  } | null;
}

/** Choices read from one chunk (as `detectGroqBlockedAnswer` reads). */
const MAX_CHOICES = 64;

/**
 * Reads one chunk once, for the guard (every chunk passes here: fields are read directly; a
 * throwing field makes the guard read the chunk as empty):
 * - failure: a chunk without `choices` that is an error object groq-sdk let through
 *   (`groqErrorChunkMetadata`), or a withheld answer (`detectGroqBlockedAnswer`, read only when a
 *   choice finished with `content_filter`);
 * - terminal: a choice carrying a `finish_reason` (`isGroqTerminalChunk`);
 * - characters: content, reasoning and tool-call argument deltas.
 */
function scanGroqChunk(value: unknown, facts: ChunkReading): void {
  if (value === null || typeof value !== 'object') return;
  const choices = (value as { readonly choices?: unknown }).choices;
  if (!Array.isArray(choices)) {
    facts.failure = groqErrorChunkMetadata(value);
    return;
  }
  let characters = 0;
  let blocked = false;
  const count = Math.min(choices.length, MAX_CHOICES);
  for (let index = 0; index < count; index += 1) {
    const choice = choices[index] as GroqChoiceView | null;
    if (choice === null || typeof choice !== 'object') continue;
    const reason = choice.finish_reason;
    if (typeof reason === 'string' && reason.length > 0) {
      facts.terminal = true;
      if (reason === 'content_filter') blocked = true;
    }
    const delta = choice.delta;
    if (delta !== null && typeof delta === 'object') {
      const content = delta.content;
      if (typeof content === 'string') characters += content.length;
      const reasoning = delta.reasoning;
      if (typeof reasoning === 'string') characters += reasoning.length;
      characters += toolCallCharacters(delta.tool_calls);
    }
  }
  facts.characters = characters;
  if (blocked) facts.failure = groqErrorChunkMetadata(value) ?? detectGroqBlockedAnswer(value);
}

/** The guard's per-chunk hook (see `scanGroqChunk`). */
function readGroqChunk(chunk: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  scanGroqChunk(chunk, reading);
  return reading;
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
 * given here win over the Groq defaults; extractors given here run before groqExtractor.
 */
export function guardGroqStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  return guardStainlessStream(stream, groqExtractor, {
    provider: GROQ_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readGroqChunk,
  });
}
