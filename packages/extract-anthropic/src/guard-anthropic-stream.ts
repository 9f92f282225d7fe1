import type { ProviderErrorMetadata } from '@faultline/classify';
import type { ChunkReading, GuardedStream, GuardStreamOptions } from '@faultline/render/toolkit';
import { guardStainlessStream } from '@faultline/stainless';
import { ANTHROPIC_PROVIDER, anthropicExtractor } from './extract-anthropic.ts';

/**
 * render's `guardStream` options but the Anthropic-specific ones. A refusal (`stop_reason:
 * "refusal"` in a `message_delta` event) is thrown as content_policy unless `detectBlockedAnswer`
 * is `false`.
 */
export type GuardAnthropicStreamOptions = Omit<GuardStreamOptions<unknown>, 'readChunk'>;

interface EventView {
  readonly type?: unknown;
  readonly delta?: {
    readonly text?: unknown;
    readonly thinking?: unknown;
    readonly partial_json?: unknown;
    readonly stop_reason?: unknown;
  } | null;
}

const REFUSAL = (): ProviderErrorMetadata => ({
  provider: ANTHROPIC_PROVIDER,
  message: 'The model declined to answer (stop_reason "refusal").',
  origin: 'blocked_response',
  blockReason: 'refusal',
  statusCode: 200,
});

/**
 * The guard's per-chunk hook: reads one event once (every event passes here: fields are read
 * directly; a throwing field makes the guard read the event as empty):
 * - terminal: `message_stop`, the last event of every complete Messages stream;
 * - characters: text, thinking and tool-input deltas of a `content_block_delta`;
 * - failure: a `message_delta` whose stop_reason is `refusal` (the streamed answer was declined);
 *   render's guard lets it through when the caller sets `detectBlockedAnswer: false`.
 */
function readAnthropicEvent(value: unknown): ChunkReading {
  const facts: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  if (value === null || typeof value !== 'object') return facts;
  const event = value as EventView;
  const type = event.type;
  if (type === 'content_block_delta') {
    const delta = event.delta;
    if (delta === null || typeof delta !== 'object') return facts;
    const text = delta.text;
    if (typeof text === 'string') facts.characters = text.length;
    else {
      const thinking = delta.thinking;
      if (typeof thinking === 'string') facts.characters = thinking.length;
      else {
        const json = delta.partial_json;
        if (typeof json === 'string') facts.characters = json.length;
      }
    }
  } else if (type === 'message_stop') facts.terminal = true;
  else if (type === 'message_delta') {
    const delta = event.delta;
    if (delta !== null && typeof delta === 'object' && delta.stop_reason === 'refusal')
      facts.failure = REFUSAL();
  }
  return facts;
}

/**
 * Guards an Anthropic Messages stream (`messages.create({ stream: true })`, `messages.stream()`, and
 * the same on `beta.messages`): events pass through untouched; a stream that ends without
 * `message_stop` (the SDKs end quietly on a clean socket close), one that stays silent for
 * `idleTimeoutMs` (the SDK's `timeout` does not cover stream reads; the SDK's request is then
 * aborted), an in-stream error and a refusal all become classified FaultlineErrors carrying how
 * much output was delivered. The helper's result methods (`finalMessage()`, `finalText()`, `done()`)
 * are offered on the result, run under the guard. Pass the same `signal` as to the SDK: its abort
 * ends the stream the SDK's way (`APIUserAbortError` from `messages.stream()`, the signal's reason
 * from `create`, which ends silently).
 */
export function guardAnthropicStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardAnthropicStreamOptions = {},
): GuardedStream<S> {
  return guardStainlessStream(stream as AsyncIterable<unknown>, anthropicExtractor, {
    provider: ANTHROPIC_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readAnthropicEvent,
  }) as unknown as GuardedStream<S>;
}
