// Shared by the tests of this package (not part of the build).
import Anthropic112 from '@anthropic-ai/sdk';
import Anthropic039 from 'anthropic-v039';
import Anthropic0137 from 'anthropic-v0137';

export interface ClientOptions {
  apiKey: string;
  baseURL: string;
  maxRetries: number;
  timeout: number;
}
export interface MessageStreamLike extends AsyncIterable<unknown> {
  finalMessage(): Promise<unknown>;
  finalText(): Promise<string>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
export interface MessagesLike {
  create(body: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
  stream(body: Record<string, unknown>, options?: Record<string, unknown>): MessageStreamLike;
}
/** `beta.messages` has the same two calls (its own stream class, `BetaMessageStream`). */
export type AnyClient = { messages: MessagesLike; beta: { messages: MessagesLike } };
export type ClientConstructor = new (options: ClientOptions) => unknown;

/** Every supported major, keyed by its devDependency alias (the key of `expectedBySdk`). */
export const SDKS: ReadonlyArray<{ alias: string; Client: ClientConstructor }> = [
  { alias: '@anthropic-ai/sdk', Client: Anthropic112 as unknown as ClientConstructor },
  { alias: 'anthropic-v0137', Client: Anthropic0137 as unknown as ClientConstructor },
  { alias: 'anthropic-v039', Client: Anthropic039 as unknown as ClientConstructor },
];

export const API_KEY = 'sk-ant-faultline-test-key';

export const REQUEST = {
  model: 'claude-opus-4-7',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Say hello.' }],
};

export function clientFor(
  Client: ClientConstructor,
  baseURL: string,
  timeout = 5_000,
  fetch?: typeof globalThis.fetch,
): AnyClient {
  return new Client({
    apiKey: API_KEY,
    baseURL,
    maxRetries: 0,
    timeout,
    ...(fetch && { fetch }),
  }) as AnyClient;
}

/** Anthropic Messages stream events (https://docs.anthropic.com/en/docs/build-with-claude/streaming). */
export const events = {
  messageStart: {
    event: 'message_start',
    data: JSON.stringify({
      type: 'message_start',
      message: {
        id: 'msg_01FaultlineGuard',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-7',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
  },
  blockStart: {
    event: 'content_block_start',
    data: JSON.stringify({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
  },
  delta: (text: string) => ({
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  }),
  blockStop: { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
  messageDelta: (stopReason: string) => ({
    event: 'message_delta',
    data: JSON.stringify({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
  }),
  messageStop: { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
  /** An in-stream error event (https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events). */
  error: (type: string, message: string) => ({
    event: 'error',
    data: JSON.stringify({ type: 'error', error: { type, message } }),
  }),
};
