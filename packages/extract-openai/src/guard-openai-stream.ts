import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import type { GuardedStream, GuardStreamOptions, StreamChunk } from '@faultline/render';
import { guardStainlessStream } from '@faultline/stainless';
import { OPENAI_PROVIDER, openaiExtractor } from './extract-openai.ts';

// Responses API stream events that end a response (https://platform.openai.com/docs/api-reference/responses-streaming).
const RESPONSE_TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Choices an answer can stream at once (n); more are not read. */
const MAX_CHOICES = 16;

interface ChoiceView {
  readonly finish_reason: unknown;
  readonly delta: { readonly content: unknown } | undefined;
}

/**
 * A chat chunk's choices, read field by field (every chunk passes here: a schema parse per chunk
 * costs microseconds, these reads nanoseconds). Total: a hostile chunk gives no choices.
 */
function readChoices(chunk: unknown): ChoiceView[] {
  const choices = safeGet(chunk, 'choices');
  if (!Array.isArray(choices)) return [];
  const views: ChoiceView[] = [];
  const count = Math.min(choices.length, MAX_CHOICES);
  for (let index = 0; index < count; index += 1) {
    const choice: unknown = choices[index];
    if (choice === null || typeof choice !== 'object') continue;
    const delta = safeGet(choice, 'delta');
    views.push({
      finish_reason: safeGet(choice, 'finish_reason'),
      delta: delta !== null && typeof delta === 'object' ? { content: safeGet(delta, 'content') } : undefined,
    });
  }
  return views;
}

/**
 * True for the chunk that ends a streamed answer: a chat chunk with a `finish_reason` (the SDK
 * swallows `[DONE]`, so a stream that ends without one was cut), or a Responses API
 * `response.completed` / `response.incomplete` / `response.failed` event.
 */
export function isOpenAITerminalChunk(chunk: unknown): boolean {
  try {
    const type = safeGet(chunk, 'type');
    if (typeof type === 'string' && RESPONSE_TERMINAL_EVENTS.has(type)) return true;
    return readChoices(chunk).some(
      (choice) => typeof choice.finish_reason === 'string' && choice.finish_reason.length > 0,
    );
  } catch {
    return false;
  }
}

/** Characters of output text in a chat chunk (`delta.content`) or a Responses `output_text.delta` event. */
export function openaiChunkCharacters(chunk: unknown): number {
  try {
    if (safeGet(chunk, 'type') === 'response.output_text.delta') {
      const delta = safeGet(chunk, 'delta');
      return typeof delta === 'string' ? delta.length : 0;
    }
    let characters = 0;
    for (const choice of readChoices(chunk)) {
      const content = choice.delta?.content;
      if (typeof content === 'string') characters += content.length;
    }
    return characters;
  } catch {
    return 0;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 2000) : undefined;
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
  try {
    const type = safeGet(chunk, 'type');
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
    if (type === 'response.incomplete') {
      const reason = safeGet(safeGet(safeGet(chunk, 'response'), 'incomplete_details'), 'reason');
      return reason === 'content_filter'
        ? {
            provider: OPENAI_PROVIDER,
            message: 'The provider withheld the rest of the answer: its content filter stopped the output.',
            origin: 'blocked_response',
            blockReason: 'content_filter',
          }
        : undefined;
    }
    for (const choice of readChoices(chunk)) {
      if (choice.finish_reason === 'content_filter') {
        return {
          provider: OPENAI_PROVIDER,
          message: 'The provider withheld the rest of the answer: its content filter stopped the output.',
          origin: 'blocked_response',
          blockReason: 'content_filter',
        };
      }
      if (choice.finish_reason === 'error') {
        return {
          provider: OPENAI_PROVIDER,
          message: 'The upstream provider failed mid-stream (finish_reason: error).',
          origin: 'stream_event',
          providerCode: 'error',
        };
      }
    }
    return undefined;
  } catch {
    return undefined;
  }
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
 * Options given here win over these defaults; extractors given here run before openaiExtractor, and
 * an `inspectChunk` given here runs after the OpenAI checks.
 */
export function guardOpenAIStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options: GuardStreamOptions<StreamChunk<S>> = {},
): GuardedStream<S> {
  return guardStainlessStream(stream, openaiExtractor, {
    provider: OPENAI_PROVIDER,
    isTerminal: isOpenAITerminalChunk,
    measure: openaiChunkCharacters,
    ...options,
    inspectChunk: (chunk) => detectOpenAIChunkFailure(chunk) ?? options.inspectChunk?.(chunk),
  });
}
