import {
  type ChunkReading,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/toolkit';
import { detectOpenRouterStreamFailure } from './blocked-answer.ts';
import { OPENROUTER_PROVIDER, openrouterExtractor } from './extract-openrouter.ts';

// The options a caller may give: render's, but `readChunk`, which this adapter decides.
const { readChunk: _adapterDecides, ...OPENROUTER_GUARD_OPTION_KEYS } = GUARD_STREAM_OPTION_KEYS;

interface ChoiceView {
  readonly finishReason?: unknown;
  readonly finish_reason?: unknown;
  readonly delta?: {
    readonly content?: unknown;
    readonly reasoning?: unknown;
    readonly toolCalls?: unknown;
    readonly tool_calls?: unknown;
  } | null;
}

const MAX_CHOICES = 64;
const MAX_TOOL_CALLS = 64;

/** Characters of the function-argument deltas in `delta.toolCalls`: a tool call is output too. */
function toolCallCharacters(calls: unknown): number {
  if (!Array.isArray(calls)) return 0;
  let characters = 0;
  const count = Math.min(calls.length, MAX_TOOL_CALLS);
  for (let index = 0; index < count; index += 1) {
    const call = calls[index] as { readonly function?: { readonly arguments?: unknown } | null } | null;
    if (call === null || typeof call !== 'object') continue;
    const args = call.function?.arguments;
    if (typeof args === 'string') characters += args.length;
  }
  return characters;
}

/**
 * Reads one chunk once, for the guard (fields are read directly; a throwing field makes the guard
 * read the chunk as empty). @openrouter/sdk yields each chunk as its camelCase object; a raw chunk
 * (snake_case) reads the same:
 * - terminal: a choice carrying a finish reason;
 * - characters: string content, reasoning text and tool-call arguments;
 * - failure: `detectOpenRouterStreamFailure`, read only for a chunk with an `error` member or a
 *   choice finished with `error` or `content_filter`.
 */
function readOpenRouterChunk(chunk: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (chunk === null || typeof chunk !== 'object') return reading;
  const { choices, error } = chunk as { readonly choices?: unknown; readonly error?: unknown };
  let failed = error !== undefined && error !== null;
  if (Array.isArray(choices)) {
    const count = Math.min(choices.length, MAX_CHOICES);
    for (let index = 0; index < count; index += 1) {
      const choice = choices[index] as ChoiceView | null;
      if (choice === null || typeof choice !== 'object') continue;
      const camel = choice.finishReason;
      const reason = typeof camel === 'string' ? camel : choice.finish_reason;
      if (typeof reason === 'string' && reason.length > 0) {
        reading.terminal = true;
        if (reason === 'error' || reason === 'content_filter') failed = true;
      }
      const delta = choice.delta;
      if (delta === null || typeof delta !== 'object') continue;
      if (typeof delta.content === 'string') reading.characters += delta.content.length;
      if (typeof delta.reasoning === 'string') reading.characters += delta.reasoning.length;
      reading.characters += toolCallCharacters(delta.toolCalls ?? delta.tool_calls);
    }
  }
  if (failed) {
    reading.terminal = true;
    reading.failure = detectOpenRouterStreamFailure(chunk);
  }
  return reading;
}

/**
 * Guards an OpenRouter chat stream (`await openRouter.chat.send({ chatRequest: { ..., stream: true } })`):
 * chunks pass through untouched (the same objects), and
 * - a chunk carrying `error` (OpenRouter's mid-stream failure, `finish_reason: "error"`; the SDK
 *   yields it as an ordinary chunk and ends normally) is classified by its words and upstream status,
 *   with `delivered` progress; a `content_filter` finish is `content_policy`
 *   (`detectBlockedAnswer: false` lets the withheld answer through);
 * - an error event the SDK cannot parse (a string `code`, `metadata` without `error_type`: the SDK
 *   throws a raw ZodError that keeps no words) or a cut socket is `interrupted`;
 * - a stall after the headers ends after `idleTimeoutMs` as `interrupted` (a signal given to the SDK
 *   replaces its own `timeoutMs`, so nothing else ends it); the SSE comments OpenRouter sends while
 *   a model is busy (`: OPENROUTER PROCESSING`) never reach the guard, so they do not keep it alive;
 * - an end without a chunk carrying a finish reason is `interrupted`;
 * - the caller's abort (pass the same `signal` here and to the SDK) is re-thrown untouched.
 * Options given here win over the OpenRouter defaults; extractors given here run before openrouterExtractor.
 */
export function guardOpenRouterStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, OPENROUTER_GUARD_OPTION_KEYS);
  return guardStream(stream, {
    provider: OPENROUTER_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readOpenRouterChunk,
    extractors: [...(options.extractors ?? []), openrouterExtractor],
  });
}
