import type { ProviderErrorMetadata } from '@faultline/classify';
import {
  type ChunkReading,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/toolkit';
import { COHERE_PROVIDER, cohereExtractor } from './extract-cohere.ts';

// The options a caller may give: render's, but `readChunk`, which this adapter decides.
const { readChunk: _adapterDecides, ...COHERE_GUARD_OPTION_KEYS } = GUARD_STREAM_OPTION_KEYS;

/** A field of a v2 stream event in either spelling: cohere-ai's camelCase, or the wire's snake_case. */
function field(value: unknown, camel: string, snake: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  return record[camel] ?? record[snake];
}

function textLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/**
 * Reads one v2 chat stream event once, for the guard (a throwing field makes the guard read the
 * event as empty):
 * - terminal: `message-end`;
 * - characters: a content delta's text, a tool plan's text and a tool call's arguments;
 * - failure: a `message-end` whose `finish_reason` is `ERROR` or that carries `delta.error` (Cohere's
 *   documented way to say a generation failed after the 200), in Cohere's own words, or whose
 *   `finish_reason` is `TIMEOUT` (the generation hit Cohere's time limit: the answer is cut).
 */
function readCohereEvent(event: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (event === null || typeof event !== 'object') return reading;
  const { type, delta } = event as { type?: unknown; delta?: unknown };
  const message = field(delta, 'message', 'message');
  if (type === 'content-delta') {
    reading.characters = textLength(field(field(message, 'content', 'content'), 'text', 'text'));
  } else if (type === 'tool-plan-delta') {
    reading.characters = textLength(field(message, 'toolPlan', 'tool_plan'));
  } else if (type === 'tool-call-delta') {
    const call = field(field(message, 'toolCalls', 'tool_calls'), 'function', 'function');
    reading.characters = textLength(field(call, 'arguments', 'arguments'));
  } else if (type === 'message-end') {
    reading.terminal = true;
    const error = field(delta, 'error', 'error');
    const finishReason = field(delta, 'finishReason', 'finish_reason');
    const words = typeof error === 'string' && error.trim() !== '' ? error.slice(0, 4096) : undefined;
    // ERROR: the generation failed; TIMEOUT: Cohere stopped it at its time limit, so what was sent
    // is only the start of the answer. Either way the stream ends as if it were complete.
    if (finishReason === 'ERROR' || finishReason === 'TIMEOUT' || words !== undefined) {
      const failure: ProviderErrorMetadata = {
        provider: COHERE_PROVIDER,
        message:
          words ??
          (finishReason === 'TIMEOUT'
            ? 'The generation timed out: Cohere stopped it at its time limit (finish_reason TIMEOUT), so the answer is incomplete'
            : 'Cohere ended the generation with finish_reason ERROR (an internal error)'),
        // Cohere's own deadline fired mid-stream: read like any deadline during a stream.
        origin: finishReason === 'TIMEOUT' && words === undefined ? 'timeout' : 'stream_event',
        networkPhase: 'stream',
      };
      if (typeof finishReason === 'string') failure.providerCode = finishReason;
      reading.failure = failure;
    }
  }
  return reading;
}

/**
 * Guards a Cohere v2 chat stream (`await cohere.chatStream({ ... })`): events pass through untouched
 * (the same objects), and
 * - a `message-end` that says the generation failed (`finish_reason: "ERROR"`, `delta.error`) or
 *   was stopped at Cohere's time limit (`finish_reason: "TIMEOUT"`, an incomplete answer) is
 *   classified by its words, with `delivered` progress (cohere-ai yields it as an ordinary event);
 * - a cut socket (a raw `TypeError: terminated`), or an end without `message-end` (cohere-ai ends the
 *   iteration quietly), is `interrupted`;
 * - a stall after the headers ends after `idleTimeoutMs` as `interrupted` (cohere-ai's
 *   `timeoutInSeconds` stops at the headers, so nothing else ends it); the request is released by
 *   the caller's `onAbandon` aborting the `abortSignal` given to the call (the stream has no abort of
 *   its own that reaches the request);
 * - the caller's abort is re-thrown untouched.
 * Options given here win over the Cohere defaults; extractors given here run before cohereExtractor.
 */
export function guardCohereStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  checkOptionKeys('guardStream', options, COHERE_GUARD_OPTION_KEYS);
  return guardStream(stream, {
    provider: COHERE_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readCohereEvent,
    extractors: [...(options.extractors ?? []), cohereExtractor],
  });
}
