import {
  type ChunkReading,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/toolkit';
import { OLLAMA_PROVIDER, ollamaExtractor } from './extract-ollama.ts';

// The options a caller may give: render's, but `readChunk`, which this adapter decides.
const { readChunk: _adapterDecides, ...OLLAMA_GUARD_OPTION_KEYS } = GUARD_STREAM_OPTION_KEYS;

interface OllamaPartView {
  readonly done?: unknown;
  readonly status?: unknown;
  readonly response?: unknown;
  readonly thinking?: unknown;
  readonly message?: {
    readonly content?: unknown;
    readonly thinking?: unknown;
    readonly tool_calls?: unknown;
  } | null;
}

/** Tool calls read from one part. */
const MAX_TOOL_CALLS = 64;

/**
 * Reads one part once, for the guard (every part passes here; a throwing field makes the guard read
 * the part as empty):
 * - terminal: `done: true` (chat, generate), or `status: "success"` (pull, push, create);
 * - characters: `message.content`, `message.thinking` and one per `message.tool_calls` entry (chat),
 *   `response` and `thinking` (generate).
 * Ollama withholds nothing in a 200 (no content filter; `done_reason` is `stop`, `length`, `load` or
 * `unload`), so a part is never a failure by itself: its failures are the `{"error"}` line, which
 * ollama-js throws, and an end without `done`.
 */
function readOllamaPart(part: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (part === null || typeof part !== 'object') return reading;
  const view = part as OllamaPartView;
  reading.terminal = view.done === true || view.status === 'success';
  let characters = 0;
  if (typeof view.response === 'string') characters += view.response.length;
  if (typeof view.thinking === 'string') characters += view.thinking.length;
  const message = view.message;
  if (message !== null && typeof message === 'object') {
    if (typeof message.content === 'string') characters += message.content.length;
    if (typeof message.thinking === 'string') characters += message.thinking.length;
    // A tool call comes whole (its arguments an object): it is output the consumer acts on, so it
    // counts one character however short its arguments.
    const calls = message.tool_calls;
    if (Array.isArray(calls)) {
      const count = Math.min(calls.length, MAX_TOOL_CALLS);
      for (let index = 0; index < count; index += 1) {
        const call: unknown = calls[index];
        if (call !== null && typeof call === 'object') characters += 1;
      }
    }
  }
  reading.characters = characters;
  return reading;
}

/**
 * The `abort()` of ollama-js's `AbortableAsyncIterator` (it aborts the controller whose signal the
 * stream's request carries), for the guard to release a stalled request: the iterator is an async
 * generator, whose `return()` behind a stalled read never runs. Undefined for any other stream. Total.
 */
function streamRelease(stream: unknown): (() => void) | undefined {
  try {
    if (stream === null || typeof stream !== 'object') return undefined;
    const abort = (stream as { abort?: unknown }).abort;
    if (typeof abort !== 'function') return undefined;
    return () => {
      try {
        abort.call(stream);
      } catch {
        // An abort that throws: the iterator's own return() still runs.
      }
    };
  } catch {
    return undefined;
  }
}

/**
 * Guards an Ollama stream (`await ollama.chat({ ..., stream: true })`, `generate`, the
 * `AbortableAsyncIterator` ollama-js returns): parts pass through untouched (the same objects), and
 * - an `{"error":"..."}` line after the 200 (ollama-js throws its words as a plain Error) is
 *   classified by what it says (out of memory, a runner that stopped, an overflow), with `delivered`
 *   progress;
 * - a cut socket (a raw `TypeError: terminated`), or an end without a `done` part (ollama-js's "Did
 *   not receive done"), is `interrupted`;
 * - a stall after the headers ends after `idleTimeoutMs` as `interrupted` (ollama-js has no timeout
 *   of its own, so nothing else ends it), and the guard calls the iterator's `abort()` to release
 *   the request, then the caller's `onAbandon`;
 * - the caller's abort (the same `signal` here and to the fetch given to the client) is re-thrown
 *   untouched.
 * Options given here win over the Ollama defaults; extractors given here run before ollamaExtractor.
 */
export function guardOllamaStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, OLLAMA_GUARD_OPTION_KEYS);
  const release = streamRelease(stream);
  const onAbandon = options.onAbandon;
  return guardStream(stream, {
    provider: OLLAMA_PROVIDER,
    requireTerminal: true,
    ...options,
    ...(release === undefined
      ? {}
      : {
          onAbandon: () => {
            release();
            onAbandon?.();
          },
        }),
    readChunk: readOllamaPart,
    extractors: [...(options.extractors ?? []), ollamaExtractor],
  });
}
