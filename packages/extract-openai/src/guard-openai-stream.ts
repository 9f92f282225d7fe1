import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import {
  type ChunkReading,
  type GuardedStream,
  type GuardStreamOptions,
  type StreamChunk,
  toolCallCharacters,
} from '@faultline/render/toolkit';
import { guardStainlessStream } from '@faultline/stainless';
import { OPENAI_PROVIDER, openaiExtractor } from './extract-openai.ts';

// Responses API stream events that end a response (https://platform.openai.com/docs/api-reference/responses-streaming).
const RESPONSE_TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Choices an answer can stream at once (n); more are not read. */
const MAX_CHOICES = 16;

const CONTENT_FILTER_FAILURE = (): ProviderErrorMetadata => ({
  provider: OPENAI_PROVIDER,
  message: 'The provider withheld the rest of the answer: its content filter stopped the output.',
  origin: 'blocked_response',
  blockReason: 'content_filter',
});

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 2000) : undefined;
}

/** A Responses API `response.failed` event, or an `incomplete` one cut by the content filter, as metadata. */
function responseFailure(chunk: unknown, type: string): ProviderErrorMetadata | undefined {
  if (type === 'response.failed') {
    const error = safeGet(safeGet(chunk, 'response'), 'error');
    const metadata: ProviderErrorMetadata = {
      provider: OPENAI_PROVIDER,
      message: text(safeGet(error, 'message')) ?? 'The response failed.',
      origin: 'stream_event',
    };
    const code = text(safeGet(error, 'code'));
    if (code !== undefined) metadata.providerCode = code;
    return metadata;
  }
  const reason = safeGet(safeGet(safeGet(chunk, 'response'), 'incomplete_details'), 'reason');
  return reason === 'content_filter' ? CONTENT_FILTER_FAILURE() : undefined;
}

interface ChunkView {
  readonly type?: unknown;
  readonly delta?: unknown;
  readonly choices?: unknown;
}

interface ChoiceView {
  readonly finish_reason?: unknown;
  readonly delta?: { readonly content?: unknown; readonly tool_calls?: unknown } | null;
}

/**
 * Reads one chunk once, for the guard. Every chunk passes here, so the fields are read directly
 * rather than through a schema or `safeGet`. Total through its caller: a chunk whose fields throw
 * reads as empty.
 * - terminal: a chat chunk with a `finish_reason` (the SDK swallows `[DONE]`, so a stream that ends
 *   without one was cut), or a Responses `response.completed` / `.incomplete` / `.failed` event;
 * - characters: `delta.content` and tool-call argument deltas of each choice, or a Responses
 *   `output_text.delta` or `function_call_arguments.delta` event's delta;
 * - failure: see `detectOpenAIChunkFailure`.
 */
function scanOpenAIChunk(value: unknown, facts: ChunkReading): void {
  if (value === null || typeof value !== 'object') return;
  const chunk = value as ChunkView;
  const type = chunk.type;
  let textDelta = false;
  if (typeof type === 'string') {
    if (type === 'response.output_text.delta' || type === 'response.function_call_arguments.delta') {
      textDelta = true;
      const delta = chunk.delta;
      if (typeof delta === 'string') facts.characters = delta.length;
    } else if (RESPONSE_TERMINAL_EVENTS.has(type)) {
      facts.terminal = true;
      if (type !== 'response.completed') {
        facts.failure = responseFailure(chunk, type);
        return;
      }
    }
  }
  const choices = chunk.choices;
  if (!Array.isArray(choices)) return;
  let characters = 0;
  const count = Math.min(choices.length, MAX_CHOICES);
  for (let index = 0; index < count; index += 1) {
    const choice = choices[index] as ChoiceView | null;
    if (choice === null || typeof choice !== 'object') continue;
    const reason = choice.finish_reason;
    if (typeof reason === 'string' && reason.length > 0) {
      facts.terminal = true;
      if (facts.failure === undefined) {
        if (reason === 'content_filter') facts.failure = CONTENT_FILTER_FAILURE();
        else if (reason === 'error') {
          facts.failure = {
            provider: OPENAI_PROVIDER,
            message: 'The upstream provider failed mid-stream (finish_reason: error).',
            origin: 'stream_event',
            providerCode: 'error',
          };
        }
      }
    }
    if (textDelta) continue;
    const delta = choice.delta;
    if (delta !== null && typeof delta === 'object') {
      const content = delta.content;
      if (typeof content === 'string') characters += content.length;
      characters += toolCallCharacters(delta.tool_calls);
    }
  }
  if (!textDelta) facts.characters = characters;
}

/** The guard's per-chunk hook: what a chunk holds (failure, characters, terminal). Total. */
function readOpenAIChunk(chunk: unknown): ChunkReading {
  const reading: ChunkReading = { failure: undefined, characters: 0, terminal: false };
  try {
    scanOpenAIChunk(chunk, reading);
  } catch {
    return { failure: undefined, characters: 0, terminal: false };
  }
  return reading;
}

/**
 * True for the chunk that ends a streamed answer: a chat chunk with a `finish_reason` (the SDK
 * swallows `[DONE]`, so a stream that ends without one was cut), or a Responses API
 * `response.completed` / `response.incomplete` / `response.failed` event.
 */
export function isOpenAITerminalChunk(chunk: unknown): boolean {
  return readOpenAIChunk(chunk).terminal;
}

/** Characters of output text in a chat chunk (`delta.content`) or a Responses `output_text.delta` event. */
export function openaiChunkCharacters(chunk: unknown): number {
  return readOpenAIChunk(chunk).characters;
}

/**
 * A chunk that is really a failure, as metadata:
 * - a chat chunk whose `finish_reason` is `content_filter` (OpenAI, Azure): `blocked_response`;
 * - a chat chunk whose `finish_reason` is `error` (OpenRouter: the upstream provider failed
 *   mid-stream and sent no error object the SDK could throw): `stream_event`;
 * - a Responses API `response.failed` event (its `response.error`), or an `incomplete` one whose
 *   reason is `content_filter`.
 */
export function detectOpenAIChunkFailure(chunk: unknown): ProviderErrorMetadata | undefined {
  return readOpenAIChunk(chunk).failure;
}

/**
 * Guards a stream from the openai SDK (`client.chat.completions.create({ stream: true })`, the
 * `chat.completions.stream()` helper, or `client.responses.create({ stream: true })`): chunks pass
 * through untouched, and
 * - an error the SDK throws mid-stream (an error event, a cut socket) becomes a classified
 *   FaultlineError with `delivered` progress;
 * - a stall after the headers ends after `idleTimeoutMs` (the SDK's own `timeout` does not cover
 *   stream reads) as `interrupted`;
 * - a stream that ends without a chunk carrying `finish_reason` (or a Responses terminal event)
 *   is `interrupted`: the SDK swallows `[DONE]` and ends quietly when the socket closes cleanly;
 * - a `content_filter` finish is thrown as `content_policy` (turn off with `detectBlockedAnswer: false`);
 * - the caller's abort (pass the same `signal` here): the SDK ends the iterator quietly, the guard
 *   throws `signal.reason`, untouched.
 * Options given here win over these defaults; extractors given here run before openaiExtractor.
 */
export function guardOpenAIStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: Omit<GuardStreamOptions<StreamChunk<S>>, 'readChunk'> = {},
): GuardedStream<S> {
  return guardStainlessStream(stream, openaiExtractor, {
    provider: OPENAI_PROVIDER,
    requireTerminal: true,
    ...options,
    readChunk: readOpenAIChunk,
  });
}
