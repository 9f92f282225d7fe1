import Anthropic from '@anthropic-ai/sdk';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { InferenceClient } from '@huggingface/inference';
import { Mistral } from '@mistralai/mistralai';
import { OpenRouter } from '@openrouter/sdk';
import { CohereClientV2 } from 'cohere-ai';
import Groq from 'groq-sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import type { MockProvider, ProviderKey } from '../src/index.ts';

/** One call of a provider's real SDK, as an app would make it, with SDK retries off. */
export type Call = 'chat' | 'stream' | 'embeddings' | 'invoke';

export const callsBySdk: Record<ProviderKey, readonly Call[]> = {
  openai: ['chat', 'stream', 'embeddings'],
  anthropic: ['chat', 'stream'],
  'google-genai': ['chat', 'stream', 'embeddings'],
  bedrock: ['chat', 'stream', 'invoke'],
  mistral: ['chat', 'stream', 'embeddings'],
  groq: ['chat', 'stream', 'embeddings'],
  ollama: ['chat', 'stream', 'embeddings'],
  cohere: ['chat', 'stream', 'embeddings'],
  huggingface: ['chat', 'stream', 'embeddings', 'invoke'],
  openrouter: ['chat', 'stream', 'embeddings'],
};

const prompt = 'Say hello.';

async function text(
  stream: AsyncIterable<unknown>,
  pick: (chunk: never) => string | undefined,
): Promise<string> {
  let result = '';
  for await (const chunk of stream) result += pick(chunk as never) ?? '';
  return result;
}

/**
 * Calls `provider`'s SDK at the mock and returns the text (or, for embeddings, the vector
 * length as text). Throws whatever the SDK throws.
 */
export async function callSdk(
  mock: MockProvider,
  provider: ProviderKey,
  call: Call,
  options: { timeoutMs?: number; baseUrl?: string } = {},
): Promise<string> {
  const timeout = options.timeoutMs ?? 5_000;
  const baseURL = options.baseUrl ?? mock.url(provider);
  switch (provider) {
    case 'openai':
    case 'groq': {
      // groq-sdk is a Stainless client shaped like openai's: the same calls, typed apart.
      const client =
        provider === 'openai'
          ? new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, timeout })
          : (new Groq({ apiKey: 'gsk-test', baseURL, maxRetries: 0, timeout }) as unknown as OpenAI);
      const model = 'gpt-4o-mini';
      if (call === 'embeddings') {
        const result = await client.embeddings.create({ model: 'text-embedding-3-small', input: prompt });
        return String(result.data[0]!.embedding.length);
      }
      const messages = [{ role: 'user' as const, content: prompt }];
      if (call === 'stream') {
        const stream = await client.chat.completions.create({ model, messages, stream: true });
        return text(
          stream,
          (chunk: { choices: Array<{ delta: { content?: string | null } }> }) =>
            chunk.choices[0]?.delta.content ?? undefined,
        );
      }
      const result = await client.chat.completions.create({ model, messages });
      return result.choices[0]!.message.content ?? '';
    }
    case 'anthropic': {
      const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0, timeout });
      const request = {
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        messages: [{ role: 'user' as const, content: prompt }],
      };
      if (call === 'stream') {
        const stream = await client.messages.create({ ...request, stream: true });
        return text(stream, (event: { type: string; delta?: { type: string; text?: string } }) =>
          event.type === 'content_block_delta' && event.delta?.type === 'text_delta'
            ? event.delta.text
            : undefined,
        );
      }
      const message = await client.messages.create(request);
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    }
    case 'google-genai': {
      const client = new GoogleGenAI({ apiKey: 'AIza-test', httpOptions: { baseUrl: baseURL, timeout } });
      if (call === 'embeddings') {
        const result = await client.models.embedContent({ model: 'text-embedding-004', contents: prompt });
        return String(result.embeddings?.[0]?.values?.length ?? 0);
      }
      const request = { model: 'gemini-2.5-flash', contents: prompt };
      if (call === 'stream') {
        return text(
          await client.models.generateContentStream(request),
          (chunk: { text?: string }) => chunk.text,
        );
      }
      return (await client.models.generateContent(request)).text ?? '';
    }
    case 'bedrock': {
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const client = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: baseURL,
        maxAttempts: 1,
        credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'secret-test' },
        requestHandler: { requestTimeout: timeout },
      });
      const modelId = 'anthropic.claude-3-haiku-20240307-v1:0';
      try {
        if (call === 'invoke') {
          const body = JSON.stringify({
            anthropic_version: 'bedrock-2023-05-31',
            max_tokens: 64,
            messages: [{ role: 'user', content: prompt }],
          });
          const result = await client.send(
            new InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
          );
          const parsed = JSON.parse(new TextDecoder().decode(result.body)) as {
            content: Array<{ text: string }>;
          };
          return parsed.content.map((block) => block.text).join('');
        }
        const messages = [{ role: 'user' as const, content: [{ text: prompt }] }];
        if (call === 'stream') {
          const response = await client.send(new ConverseStreamCommand({ modelId, messages }));
          let result = '';
          let stopped = false;
          for await (const event of response.stream ?? []) {
            result += event.contentBlockDelta?.delta?.text ?? '';
            if (event.messageStop !== undefined) stopped = true;
          }
          // A cut on a frame boundary ends the AWS SDK's iterator silently: an app must check.
          if (!stopped) throw new Error('the ConverseStream ended without messageStop');
          return result;
        }
        const result = await client.send(new ConverseCommand({ modelId, messages }));
        return (result.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
      } finally {
        client.destroy();
      }
    }
    case 'mistral': {
      const client = new Mistral({
        apiKey: 'mistral-test',
        serverURL: baseURL,
        timeoutMs: timeout,
        retryConfig: { strategy: 'none' },
      });
      if (call === 'embeddings') {
        const result = await client.embeddings.create({ model: 'mistral-embed', inputs: [prompt] });
        return String(result.data[0]?.embedding?.length ?? 0);
      }
      const messages = [{ role: 'user' as const, content: prompt }];
      if (call === 'stream') {
        const stream = await client.chat.stream({ model: 'mistral-small-latest', messages });
        return text(stream, (event: { data: { choices: Array<{ delta: { content?: unknown } }> } }) => {
          const content = event.data.choices[0]?.delta.content;
          return typeof content === 'string' ? content : undefined;
        });
      }
      const result = await client.chat.complete({ model: 'mistral-small-latest', messages });
      const content = result.choices?.[0]?.message?.content;
      return typeof content === 'string' ? content : '';
    }
    case 'ollama': {
      // ollama-js has no timeout or retries of its own: a fetch with a deadline is how an app bounds it.
      const client = new Ollama({
        host: baseURL,
        fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeout) }),
      });
      if (call === 'embeddings') {
        const result = await client.embed({ model: 'nomic-embed-text', input: prompt });
        return String(result.embeddings[0]?.length ?? 0);
      }
      const messages = [{ role: 'user', content: prompt }];
      if (call === 'stream') {
        const stream = await client.chat({ model: 'llama3.2', messages, stream: true });
        return text(stream, (part: { message: { content: string } }) => part.message.content);
      }
      return (await client.chat({ model: 'llama3.2', messages })).message.content;
    }
    case 'cohere': {
      const client = new CohereClientV2({
        token: 'co-mock-key',
        baseUrl: baseURL,
        maxRetries: 0,
        timeoutInSeconds: timeout / 1000,
      });
      if (call === 'embeddings') {
        const result = await client.embed({
          model: 'embed-v4.0',
          texts: [prompt],
          inputType: 'search_document',
          embeddingTypes: ['float'],
        });
        return String(result.embeddings.float?.[0]?.length ?? 0);
      }
      const messages = [{ role: 'user' as const, content: prompt }];
      if (call === 'stream') {
        const stream = await client.chatStream({ model: 'command-a-03-2025', messages });
        // cohere-ai yields a failed generation's message-end (finish_reason ERROR) as an event: the
        // reader throws on it, as an app reading the finish reason does.
        type Event = {
          type?: string;
          delta?: { error?: string; finishReason?: string; message?: { content?: { text?: string } } };
        };
        return text(stream, (event: Event) => {
          if (event.type === 'message-end' && event.delta?.finishReason === 'ERROR') {
            throw new Error(event.delta.error ?? 'finish_reason ERROR');
          }
          return event.type === 'content-delta' ? (event.delta?.message?.content?.text ?? '') : '';
        });
      }
      const result = await client.chat({ model: 'command-a-03-2025', messages });
      const first = result.message.content?.[0];
      return first?.type === 'text' ? first.text : '';
    }
    case 'huggingface': {
      // @huggingface/inference has no timeout of its own and re-sends a 503 unless told not to.
      const client = new InferenceClient('hf_test', {
        endpointUrl: baseURL,
        retry_on_error: false,
        signal: AbortSignal.timeout(timeout),
      });
      const model = 'meta-llama/Llama-3.1-8B-Instruct';
      if (call === 'embeddings') {
        const result = await client.featureExtraction({ model, inputs: prompt });
        return String(Array.isArray(result[0]) ? result[0].length : 0);
      }
      if (call === 'invoke') return (await client.textGeneration({ model, inputs: prompt })).generated_text;
      const messages = [{ role: 'user', content: prompt }];
      if (call === 'stream') {
        return text(
          client.chatCompletionStream({ model, messages }),
          (chunk: { choices: Array<{ delta: { content?: string } }> }) => chunk.choices[0]?.delta.content,
        );
      }
      return (await client.chatCompletion({ model, messages })).choices[0]?.message.content ?? '';
    }
    case 'openrouter': {
      // @openrouter/sdk retries 5XX and connection errors by default (backoff, up to an hour).
      const client = new OpenRouter({
        apiKey: 'sk-or-v1-mock-key',
        serverURL: baseURL,
        timeoutMs: timeout,
        retryConfig: { strategy: 'none' },
      });
      const model = 'openai/gpt-4o-mini';
      if (call === 'embeddings') {
        const result = await client.embeddings.generate({ requestBody: { model, input: prompt } });
        const first = typeof result === 'string' ? undefined : result.data[0]?.embedding;
        return String(Array.isArray(first) ? first.length : 0);
      }
      const messages = [{ role: 'user' as const, content: prompt }];
      if (call === 'stream') {
        const stream = (await client.chat.send({
          chatRequest: { model, messages, stream: true },
        })) as AsyncIterable<unknown>;
        // The SDK yields a chunk carrying the mid-stream error (finish_reason "error") like any
        // other: the reader throws on it, as an app reading the chunk does.
        type Chunk = {
          error?: { message?: string };
          choices: Array<{ delta: { content?: string | null } }>;
        };
        return text(stream, (chunk: Chunk) => {
          if (chunk.error !== undefined) throw new Error(chunk.error.message ?? 'finish_reason error');
          return chunk.choices[0]?.delta.content ?? '';
        });
      }
      const result = await client.chat.send({ chatRequest: { model, messages } });
      const content = 'choices' in result ? result.choices[0]?.message.content : undefined;
      return typeof content === 'string' ? content : '';
    }
  }
}
