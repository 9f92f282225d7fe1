import { type ProviderErrorMetadata, safeGet, safePath, safeString } from '@faultline/classify';
import { type GuardedStream, type GuardStreamOptions, guardStream } from '@faultline/render';
import { BEDROCK_PROVIDER, bedrockExtractor } from './extract-bedrock.ts';

export interface GuardBedrockStreamOptions
  extends Omit<GuardStreamOptions<unknown>, 'isTerminal' | 'measure'> {
  /**
   * Throw a content_policy error when `messageStop.stopReason` is `guardrail_intervened` or
   * `content_filtered`. Default true; `false` lets the event through as an ordinary event.
   */
  readonly detectBlockedAnswer?: boolean | undefined;
}

/** Converse `stopReason` values that mean the answer was withheld. */
const BLOCKED_STOP_REASONS = new Set(['guardrail_intervened', 'content_filtered']);

/**
 * A complete ConverseStream ends with `messageStop` (the answer is whole) and then `metadata`
 * (usage and metrics). Either one counts as the terminal event: an answer cut after its
 * `messageStop` lost only its usage numbers, not its content.
 */
function isTerminalEvent(event: unknown): boolean {
  return safeGet(event, 'messageStop') !== undefined || safeGet(event, 'metadata') !== undefined;
}

/** Output characters in one event: text, reasoning text and tool-input deltas. */
function measureEvent(event: unknown): number {
  const delta = safePath(event, 'contentBlockDelta', 'delta');
  if (delta === undefined) return 0;
  const candidates = [
    safeGet(delta, 'text'),
    safePath(delta, 'reasoningContent', 'text'),
    safePath(delta, 'toolUse', 'input'),
  ];
  for (const value of candidates) if (typeof value === 'string') return value.length;
  return 0;
}

function blockedInEvent(event: unknown): ProviderErrorMetadata | undefined {
  const stopReason = safeString(safePath(event, 'messageStop', 'stopReason'), 100);
  if (stopReason === undefined || !BLOCKED_STOP_REASONS.has(stopReason)) return undefined;
  return {
    provider: BEDROCK_PROVIDER,
    message: `Bedrock withheld the rest of the answer (stopReason ${stopReason}).`,
    origin: 'blocked_response',
    blockReason: stopReason,
    sdkErrorType: 'ConverseStreamOutput',
  };
}

/**
 * Guards a ConverseStream answer (`response.stream`): events pass through untouched; every
 * failure becomes a classified FaultlineError carrying how much output was delivered:
 * - an exception frame (throttlingException, modelStreamErrorException ...) thrown by the SDK;
 * - a cut mid-frame ("Truncated event message received.") → interrupted;
 * - a stream that ends without `messageStop`/`metadata`: the SDK ends the iterator **silently** when
 *   its `requestTimeout` fires mid-stream or the connection closes on a frame boundary → interrupted;
 *   when the caller's `signal` fired, its reason is thrown instead (pass the same signal as to `send`);
 * - a stream idle for `idleTimeoutMs` (default 60 s) → interrupted;
 * - `messageStop.stopReason` `guardrail_intervened`/`content_filtered` → content_policy.
 */
export function guardBedrockStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardBedrockStreamOptions = {},
): GuardedStream<S> {
  const { detectBlockedAnswer, inspectChunk, extractors, ...rest } = options;
  return guardStream(stream as AsyncIterable<unknown>, {
    provider: BEDROCK_PROVIDER,
    ...rest,
    extractors: [...(extractors ?? []), bedrockExtractor],
    isTerminal: isTerminalEvent,
    measure: measureEvent,
    inspectChunk: (event) =>
      (detectBlockedAnswer === false ? undefined : blockedInEvent(event)) ??
      inspectChunk?.(event) ??
      undefined,
  }) as unknown as GuardedStream<S>;
}
