import OpenAI7, { AzureOpenAI as AzureOpenAI7 } from 'openai';
import OpenAI4, { AzureOpenAI as AzureOpenAI4 } from 'openai-v4';
import OpenAI5, { AzureOpenAI as AzureOpenAI5 } from 'openai-v5';
import OpenAI6, { AzureOpenAI as AzureOpenAI6 } from 'openai-v6';

/** Each supported major, by its devDependency alias. Test-only: src never imports the SDK at run time. */
export const SDKS = [
  { alias: 'openai-v4', OpenAI: OpenAI4, AzureOpenAI: AzureOpenAI4 },
  { alias: 'openai-v5', OpenAI: OpenAI5, AzureOpenAI: AzureOpenAI5 },
  { alias: 'openai-v6', OpenAI: OpenAI6, AzureOpenAI: AzureOpenAI6 },
  { alias: 'openai', OpenAI: OpenAI7, AzureOpenAI: AzureOpenAI7 },
] as const;
export type Sdk = (typeof SDKS)[number];

/** The part of the client the tests call; each major's own types differ, so they are unified here. */
export interface ChatClient {
  chat: {
    completions: {
      create(body: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
      stream?(body: Record<string, unknown>, options?: { signal?: AbortSignal }): AsyncIterable<unknown>;
    };
  };
  beta: {
    chat?: {
      completions: {
        stream(body: Record<string, unknown>, options?: { signal?: AbortSignal }): AsyncIterable<unknown>;
      };
    };
  };
  models: { list(): Promise<unknown> };
}

export function newClient(sdk: Sdk, options: Record<string, unknown>): ChatClient {
  return new sdk.OpenAI({ apiKey: 'sk-test-faultline', maxRetries: 0, ...options }) as unknown as ChatClient;
}

/** `chat.completions.stream()` (openai 5+) or `beta.chat.completions.stream()` (openai 4). */
export function streamHelper(
  client: ChatClient,
  body: Record<string, unknown>,
  options: { signal?: AbortSignal } = {},
): AsyncIterable<unknown> {
  const stream = client.chat.completions.stream;
  if (typeof stream === 'function') return stream.call(client.chat.completions, body, options);
  return client.beta.chat!.completions.stream(body, options);
}

export const CHAT_PARAMS = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say hello' }],
} as const;

/** A chat chunk; like vLLM and other compatible servers, every content delta repeats the role. */
export function chatChunk(content: string | null, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-fl1',
    object: 'chat.completion.chunk',
    created: 1763760000,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        delta: content === null ? {} : { role: 'assistant', content },
        finish_reason: finishReason,
      },
    ],
  });
}
