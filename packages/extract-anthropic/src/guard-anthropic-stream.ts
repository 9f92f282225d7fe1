import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet, safePath } from '@faultline/classify/toolkit';
import type { GuardedStream, GuardStreamOptions } from '@faultline/render';
import { guardStainlessStream } from '@faultline/stainless';
import { ANTHROPIC_PROVIDER, anthropicExtractor } from './extract-anthropic.ts';

/**
 * render's `guardStream` options but the Anthropic-specific ones. A refusal (`stop_reason:
 * "refusal"` in a `message_delta` event) is thrown as content_policy unless `detectBlockedAnswer`
 * is `false`; `inspectChunk` runs after the refusal check.
 */
export type GuardAnthropicStreamOptions = Omit<GuardStreamOptions<unknown>, 'isTerminal' | 'measure'>;

/** `message_stop` is the last event of every complete Messages stream. */
function isMessageStop(event: unknown): boolean {
  return safeGet(event, 'type') === 'message_stop';
}

/** Output characters in one event: text, thinking and tool-input deltas. */
function measureEvent(event: unknown): number {
  if (safeGet(event, 'type') !== 'content_block_delta') return 0;
  const delta = safeGet(event, 'delta');
  for (const key of ['text', 'thinking', 'partial_json']) {
    const value = safeGet(delta, key);
    if (typeof value === 'string') return value.length;
  }
  return 0;
}

/** A `message_delta` whose stop_reason is `refusal`: the streamed answer was declined. */
function refusalInEvent(event: unknown): ProviderErrorMetadata | undefined {
  if (safeGet(event, 'type') !== 'message_delta') return undefined;
  if (safePath(event, 'delta', 'stop_reason') !== 'refusal') return undefined;
  return {
    provider: ANTHROPIC_PROVIDER,
    message: 'The model declined to answer (stop_reason "refusal").',
    origin: 'blocked_response',
    blockReason: 'refusal',
    statusCode: 200,
  };
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
  const { detectBlockedAnswer, inspectChunk, ...rest } = options;
  const userInspect = inspectChunk;
  return guardStainlessStream(stream as AsyncIterable<unknown>, anthropicExtractor, {
    provider: ANTHROPIC_PROVIDER,
    ...rest,
    isTerminal: isMessageStop,
    measure: measureEvent,
    inspectChunk: (event) =>
      (detectBlockedAnswer === false ? undefined : refusalInEvent(event)) ??
      userInspect?.(event) ??
      undefined,
  }) as unknown as GuardedStream<S>;
}
