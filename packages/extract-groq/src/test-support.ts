import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import Groq from 'groq-sdk';
import GroqV0 from 'groq-sdk-v0';
import { groqExtractor } from './extract-groq.ts';

/** The whole pipeline as a user runs it: groqExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean; signal?: AbortSignal } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [groqExtractor],
    streaming: options.streaming === true,
    signal: options.signal,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}

/** The part of a groq-sdk client the tests call (the same in every major). */
export interface GroqLike {
  chat: { completions: { create(body: unknown, options?: unknown): Promise<unknown> } };
  audio: { transcriptions: { create(body: unknown, options?: unknown): Promise<unknown> } };
}

export interface Sdk {
  /** The devDependency name in package.json. */
  readonly alias: string;
  create(baseURL: string, timeout: number, fetch?: typeof globalThis.fetch): GroqLike;
}

/** Every supported major of groq-sdk, by devDependency alias; retries off. */
export const SDKS: readonly Sdk[] = [
  {
    alias: 'groq-sdk',
    create: (baseURL, timeout, fetch) =>
      new Groq({
        apiKey: 'gsk_test_key',
        baseURL,
        maxRetries: 0,
        timeout,
        ...(fetch && { fetch }),
      }) as never,
  },
  {
    alias: 'groq-sdk-v0',
    create: (baseURL, timeout, fetch) =>
      new GroqV0({
        apiKey: 'gsk_test_key',
        baseURL,
        maxRetries: 0,
        timeout,
        // groq-sdk 0.x types its own Fetch (URLLike input): the global fetch, as it is at run time.
        ...(fetch && { fetch: fetch as never }),
      }) as never,
  },
];

export const CHAT_PARAMS = {
  model: 'llama-3.3-70b-versatile',
  messages: [{ role: 'user', content: 'hello' }],
} as const;

/** `chat.completions.create({ stream: true })` through the real SDK. */
export async function openChatStream(
  sdk: Sdk,
  baseURL: string,
  options: { signal?: AbortSignal; timeoutMs?: number; fetch?: typeof globalThis.fetch | undefined } = {},
): Promise<AsyncIterable<unknown>> {
  const client = sdk.create(baseURL, options.timeoutMs ?? 15_000, options.fetch);
  return (await client.chat.completions.create(
    { ...CHAT_PARAMS, stream: true },
    options.signal === undefined ? {} : { signal: options.signal },
  )) as AsyncIterable<unknown>;
}
