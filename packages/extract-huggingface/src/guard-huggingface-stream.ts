import {
  type ChunkReading,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
  toolCallCharacters,
} from '@faultline/render/toolkit';
import { HUGGINGFACE_PROVIDER, huggingfaceExtractor } from './extract-huggingface.ts';

// The options a caller may give: render's, but `readChunk`, which this adapter decides.
const { readChunk: _adapterDecides, ...HUGGINGFACE_GUARD_OPTION_KEYS } = GUARD_STREAM_OPTION_KEYS;

/** Choices read from one chunk. */
const MAX_CHOICES = 64;

interface ChoiceView {
  readonly finish_reason?: unknown;
  readonly delta?: {
    readonly content?: unknown;
    readonly reasoning_content?: unknown;
    readonly tool_calls?: unknown;
  } | null;
}

interface ChunkView {
  readonly choices?: unknown;
  readonly token?: { readonly text?: unknown; readonly special?: unknown } | null;
  readonly generated_text?: unknown;
}

/**
 * Reads one chunk once, for the guard (every chunk passes here; a throwing field makes the guard
 * read the chunk as empty):
 * - `chatCompletionStream` (OpenAI-shaped): terminal when a choice carries `finish_reason`;
 *   characters are `delta.content`, `delta.reasoning_content` and tool-call argument deltas;
 * - `textGenerationStream` (text-generation-inference's tokens): terminal when `generated_text` is
 *   a string (the last token carries the whole text); characters are `token.text` (not special).
 * A failure is never a chunk: the SDK throws an `{"error"}` event itself (ProviderApiError).
 */
function readHuggingfaceChunk(chunk: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (chunk === null || typeof chunk !== 'object') return reading;
  const view = chunk as ChunkView;
  let characters = 0;
  const choices = view.choices;
  if (Array.isArray(choices)) {
    const count = Math.min(choices.length, MAX_CHOICES);
    for (let index = 0; index < count; index += 1) {
      const choice = choices[index] as ChoiceView | null;
      if (choice === null || typeof choice !== 'object') continue;
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') reading.terminal = true;
      const delta = choice.delta;
      if (delta !== null && typeof delta === 'object') {
        if (typeof delta.content === 'string') characters += delta.content.length;
        if (typeof delta.reasoning_content === 'string') characters += delta.reasoning_content.length;
        characters += toolCallCharacters(delta.tool_calls);
      }
    }
  }
  const token = view.token;
  if (
    token !== null &&
    typeof token === 'object' &&
    token.special !== true &&
    typeof token.text === 'string'
  ) {
    characters += token.text.length;
  }
  if (typeof view.generated_text === 'string') reading.terminal = true;
  reading.characters = characters;
  return reading;
}

/**
 * Guards a @huggingface/inference stream (`client.chatCompletionStream(...)`,
 * `client.textGenerationStream(...)`): chunks pass through untouched (the same objects), and
 * - an `{"error"}` event after the 200 (the SDK throws ProviderApiError with status 200) is
 *   classified by what it says, with `delivered` progress;
 * - a cut socket (a raw `TypeError: terminated`) or an end without a finishing chunk is `interrupted`;
 * - a stall after the headers ends after `idleTimeoutMs` as `interrupted`; the SDK's generator
 *   cannot be released from outside, so give the call's `signal` an `onAbandon` that aborts it;
 * - the caller's abort (the same `signal` here and in the SDK call's options) is re-thrown untouched.
 * Options given here win over the Hugging Face defaults; extractors given here run first.
 */
export function guardHuggingfaceStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, HUGGINGFACE_GUARD_OPTION_KEYS);
  return guardStream(stream, {
    provider: HUGGINGFACE_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readHuggingfaceChunk,
    extractors: [...(options.extractors ?? []), huggingfaceExtractor],
  });
}
