import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet, safePath, safeString } from '@faultline/classify/toolkit';
import {
  type ChunkReading,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
} from '@faultline/render/toolkit';
import { BEDROCK_PROVIDER, bedrockExtractor } from './extract-bedrock.ts';
import { BLOCKED_STOP_REASONS, blockedInBody } from './inspect-bedrock-result.ts';

/**
 * render's `guardStream` options but the Bedrock-specific ones. `detectBlockedAnswer` (default
 * true; `false` lets the event through as an ordinary event) covers a withheld answer:
 * ConverseStream `messageStop.stopReason` `guardrail_intervened`/`content_filtered`; in an
 * InvokeModelWithResponseStream chunk, `"amazon-bedrock-guardrailAction": "INTERVENED"`, Titan
 * `completionReason: "CONTENT_FILTERED"`, Anthropic `stop_reason: "refusal"` or Nova's
 * `messageStop` as above.
 */
export type GuardBedrockStreamOptions = Omit<GuardStreamOptions<unknown>, 'readChunk'>;

/** The key Bedrock adds to the last chunk of every InvokeModelWithResponseStream answer, whatever the model. */
const INVOCATION_METRICS = 'amazon-bedrock-invocationMetrics';
/** The key Bedrock adds to a chunk when a guardrail acted on the answer (`INTERVENED` or `NONE`). */
const GUARDRAIL_ACTION = 'amazon-bedrock-guardrailAction';
/**
 * The largest InvokeModelWithResponseStream chunk that is decoded. A chunk carries a few tokens
 * (hundreds of bytes); a larger one is passed through unread: it counts no characters and does
 * not end the stream.
 */
const MAX_DECODED_CHUNK_BYTES = 1024 * 1024;
/** Entries read from a chunk's `outputs`/`choices`/`generations` array. */
const MAX_ARRAY_ENTRIES = 16;

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The bytes of an InvokeModelWithResponseStream `PayloadPart` (`{ chunk: { bytes } }`), parsed as
 * the model family's JSON: `undefined` when they are not a JSON object or are too large. Total.
 */
function payloadOf(bytes: Uint8Array): Readonly<Record<string, unknown>> | undefined {
  try {
    if (bytes.byteLength > MAX_DECODED_CHUNK_BYTES) return undefined;
    const value: unknown = JSON.parse(utf8.decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `value` when it is an array, its first entries only. */
function entries(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value.slice(0, MAX_ARRAY_ENTRIES) : [];
}

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * A complete ConverseStream ends with `messageStop` (the answer is whole) and then `metadata`
 * (usage and metrics). Either one counts as the terminal event: an answer cut after its
 * `messageStop` lost only its usage numbers, not its content. Amazon Nova's own
 * InvokeModelWithResponseStream chunks have the same shape.
 */
function isConverseTerminal(event: unknown): boolean {
  return safeGet(event, 'messageStop') !== undefined || safeGet(event, 'metadata') !== undefined;
}

/**
 * The end of an InvokeModelWithResponseStream answer: Bedrock's invocation metrics, which it adds
 * to the last chunk of every model family, or the family's own end marker: Anthropic
 * `message_stop` (Messages) or a `stop_reason` (Text Completions, Meta Llama), Titan
 * `completionReason`, Mistral `outputs[].stop_reason` / `choices[].stop_reason`, Cohere
 * `is_finished: true` / `stream-end`, Nova `messageStop`/`metadata`.
 */
function isInvokeTerminal(payload: Readonly<Record<string, unknown>>): boolean {
  if (Object.hasOwn(payload, INVOCATION_METRICS)) return true;
  if (payload.type === 'message_stop') return true;
  if (isString(payload.stop_reason) || isString(payload.completionReason)) return true;
  if (payload.is_finished === true || payload.event_type === 'stream-end') return true;
  if (isConverseTerminal(payload)) return true;
  for (const output of entries(payload.outputs)) if (isString(safeGet(output, 'stop_reason'))) return true;
  for (const choice of entries(payload.choices)) {
    if (isString(safeGet(choice, 'stop_reason')) || isString(safeGet(choice, 'finish_reason'))) return true;
  }
  for (const generation of entries(payload.generations)) {
    if (safeGet(generation, 'is_finished') === true) return true;
  }
  return false;
}

/** Output characters in one ConverseStream event: text, reasoning text and tool-input deltas. */
function measureConverse(event: unknown): number {
  const delta = safePath(event, 'contentBlockDelta', 'delta');
  if (delta === undefined) return 0;
  const candidates = [
    safeGet(delta, 'text'),
    safePath(delta, 'reasoningContent', 'text'),
    safePath(delta, 'toolUse', 'input'),
  ];
  for (const value of candidates) if (isString(value)) return value.length;
  return 0;
}

/** The summed length of `field` (a path) over an array's entries. */
function sumOver(list: unknown, ...path: string[]): number {
  let total = 0;
  for (const item of entries(list)) {
    const value = safePath(item, ...path);
    if (isString(value)) total += value.length;
  }
  return total;
}

/**
 * Output characters in one InvokeModelWithResponseStream chunk, per model family: Anthropic
 * Messages `content_block_delta` (text, tool input JSON, thinking) and Text Completions
 * `completion`; Amazon Titan `outputText`; Meta Llama `generation`; Mistral `outputs[].text` and
 * `choices[].message.content`/`delta.content`; Cohere `text` (Command R) and `generations[].text`
 * (Command); Amazon Nova `contentBlockDelta` as in ConverseStream.
 */
function measureInvoke(payload: Readonly<Record<string, unknown>>): number {
  if (payload.type === 'content_block_delta') {
    const delta = payload.delta;
    for (const key of ['text', 'partial_json', 'thinking']) {
      const value = safeGet(delta, key);
      if (isString(value)) return value.length;
    }
    return 0;
  }
  for (const key of ['completion', 'outputText', 'generation', 'text']) {
    const value = payload[key];
    if (isString(value)) return value.length;
  }
  if (Array.isArray(payload.outputs)) return sumOver(payload.outputs, 'text');
  if (Array.isArray(payload.choices)) {
    return sumOver(payload.choices, 'message', 'content') + sumOver(payload.choices, 'delta', 'content');
  }
  if (Array.isArray(payload.generations)) return sumOver(payload.generations, 'text');
  return measureConverse(payload);
}

function blocked(message: string, blockReason: string, sdkErrorType: string): ProviderErrorMetadata {
  return {
    provider: BEDROCK_PROVIDER,
    message,
    origin: 'blocked_response',
    blockReason,
    sdkErrorType,
  };
}

function blockedInConverse(event: unknown, sdkErrorType: string): ProviderErrorMetadata | undefined {
  const stopReason = safeString(safePath(event, 'messageStop', 'stopReason'), 100);
  if (stopReason === undefined || !BLOCKED_STOP_REASONS.has(stopReason)) return undefined;
  return blocked(
    `Bedrock withheld the rest of the answer (stopReason ${stopReason}).`,
    stopReason,
    sdkErrorType,
  );
}

/**
 * A guardrail's intervention, or the model family's own refusal or filter, in a chunk's JSON: the
 * chunk's fields are put in the shape of a whole InvokeModel body (Anthropic's refusal arrives in
 * `message_delta`, Titan's filter at the top level, Nova's stop reason in `messageStop`) and read
 * by the same rules.
 */
function blockedInInvoke(payload: Readonly<Record<string, unknown>>): ProviderErrorMetadata | undefined {
  const completionReason = safeString(payload.completionReason, 100);
  const found = blockedInBody({
    [GUARDRAIL_ACTION]: safeString(payload[GUARDRAIL_ACTION], 100),
    stop_reason:
      payload.type === 'message_delta' ? safeString(safeGet(payload.delta, 'stop_reason'), 100) : undefined,
    stopReason: safeString(safePath(payload, 'messageStop', 'stopReason'), 100),
    results: completionReason === undefined ? undefined : [{ completionReason }],
  });
  return found === undefined ? undefined : blocked(found.message, found.blockReason, 'ResponseStream');
}

interface ConverseEventView {
  readonly chunk?: { readonly bytes?: unknown } | null;
  readonly messageStop?: { readonly stopReason?: unknown } | null;
  readonly metadata?: unknown;
  readonly contentBlockDelta?: {
    readonly delta?: {
      readonly text?: unknown;
      readonly reasoningContent?: { readonly text?: unknown } | null;
      readonly toolUse?: { readonly input?: unknown } | null;
    } | null;
  } | null;
}

/**
 * The output characters of a ConverseStream `contentBlockDelta` (text, reasoning text, tool input),
 * read directly: nothing allocated.
 */
function measureDelta(block: ConverseEventView['contentBlockDelta'], facts: ChunkReading): void {
  if (block === null || typeof block !== 'object') return;
  const delta = block.delta;
  if (delta === undefined || delta === null || typeof delta !== 'object') return;
  const text = delta.text;
  if (isString(text)) facts.characters = text.length;
  else {
    const reasoning = delta.reasoningContent?.text;
    if (isString(reasoning)) facts.characters = reasoning.length;
    else {
      const input = delta.toolUse?.input;
      if (isString(input)) facts.characters = input.length;
    }
  }
}

/**
 * A ConverseStream event other than a `contentBlockDelta`, read once and directly: as
 * `isConverseTerminal` and `blockedInConverse`.
 */
function scanConverse(event: ConverseEventView, facts: ChunkReading, detectBlocked: boolean): void {
  const stop = event.messageStop;
  if (stop !== undefined || event.metadata !== undefined) facts.terminal = true;
  if (detectBlocked && stop !== undefined && stop !== null)
    facts.failure = blockedInConverse(event, 'ConverseStreamOutput');
}

/**
 * Reads each event once for the guard (blocked?, characters, terminal?): an
 * InvokeModelWithResponseStream chunk is decoded once, a ConverseStream event read directly.
 */
function scanEvent(value: unknown, facts: ChunkReading, detectBlocked: boolean): void {
  if (value === null || typeof value !== 'object') return;
  const event = value as ConverseEventView;
  // The usual event first, alone: a ConverseStream event is one member of a union (the SDK
  // builds `{ contentBlockDelta }`, `{ messageStop }` …, one key each), and nearly every one is a
  // `contentBlockDelta`. A property read here sees every event shape of the stream (five or more,
  // so each read is a megamorphic lookup): a delta now costs one such read instead of four.
  const block = event.contentBlockDelta;
  if (block !== undefined) {
    measureDelta(block, facts);
    return;
  }
  const wrapper = event.chunk;
  const bytes =
    wrapper !== undefined && wrapper !== null && typeof wrapper === 'object' ? wrapper.bytes : undefined;
  if (!(bytes instanceof Uint8Array)) {
    scanConverse(event, facts, detectBlocked);
    return;
  }
  // The bytes are read once (a getter may stand behind them) and decoded once.
  const payload = payloadOf(bytes);
  if (payload === undefined) return;
  facts.terminal = isInvokeTerminal(payload);
  facts.characters = measureInvoke(payload);
  if (detectBlocked) facts.failure = blockedInInvoke(payload);
}

/**
 * The guard's per-chunk hook, with a withheld answer detected (the default) and without
 * (`detectBlockedAnswer: false`): two functions made once, not a closure per stream.
 */
function readBedrockEvent(value: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  scanEvent(value, reading, true);
  return reading;
}

function readBedrockEventLettingBlocked(value: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  scanEvent(value, reading, false);
  return reading;
}

/**
 * Guards a Bedrock event stream: ConverseStream's `response.stream` or
 * InvokeModelWithResponseStream's `response.body`. Events pass through untouched; every failure
 * becomes a classified FaultlineError carrying how much output was delivered:
 * - an exception frame (throttlingException, modelStreamErrorException ...) thrown by the SDK;
 * - a cut mid-frame ("Truncated event message received.") → interrupted;
 * - a stream that ends without its terminal event: the SDK ends the iterator **silently** when
 *   its `requestTimeout` fires mid-stream or the connection closes on a frame boundary → interrupted.
 *   The terminal event is ConverseStream's `messageStop`/`metadata`, or for InvokeModelWithResponseStream
 *   the chunk carrying `amazon-bedrock-invocationMetrics` (the last one, for every model family) or
 *   the family's own end marker (see `isInvokeTerminal`). When the caller's `signal` fired, its
 *   reason is thrown instead (pass the same signal as to `send`);
 * - a stream idle for `idleTimeoutMs` (default 60 s) → interrupted;
 * - a withheld answer (see `detectBlockedAnswer`) → content_policy.
 */
export function guardBedrockStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardBedrockStreamOptions = {},
): GuardedStream<S> {
  const { detectBlockedAnswer, extractors, ...rest } = options;
  return guardStream(stream as AsyncIterable<unknown>, {
    provider: BEDROCK_PROVIDER,
    requireTerminal: true,
    ...rest,
    extractors: [...(extractors ?? []), bedrockExtractor],
    readChunk: detectBlockedAnswer === false ? readBedrockEventLettingBlocked : readBedrockEvent,
  }) as unknown as GuardedStream<S>;
}
