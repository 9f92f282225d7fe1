// What every framework test drives: the real openai SDK against the loopback server, wrapped with
// @faultline/extract-openai's withClassifiedErrors (and its stream guard for streamed answers).
import { guardStream as guardOpenAIStream, withClassifiedErrors } from '@faultline/extract-openai';
import {
  type LoopbackServer,
  loadScenarios,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import OpenAI from 'openai';

/** A provider message carrying an organization id: what no app client may see (DESIGN's disclosure rules). */
export const ORG_CANARY = 'org-CanaryHttp7Qx';

/** A chat completion that succeeds. */
export const SUCCESS: Scenario = openaiChatCompletion('Hello');

export const SCENARIOS: Record<string, Scenario> = {
  rateLimit: scenario('openai/rate-limit-retry-after-ms'),
  invalidKey: scenario('openai/invalid-api-key'),
  streamError: scenario('openai/stream-error-event'),
  orgCanary: {
    id: 'openai/http-org-canary',
    provider: 'openai',
    description: 'a 429 whose message names the organization',
    source: 'https://platform.openai.com/docs/guides/error-codes (429 rate_limit_exceeded)',
    response: {
      kind: 'http',
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '3' },
      body: JSON.stringify({
        error: {
          message: `Rate limit reached for gpt-4o-mini in organization ${ORG_CANARY} on requests per min (RPM): Limit 3, Used 3, Requested 1.`,
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      }),
    },
    expected: {
      category: 'transient',
      reason: 'rate_limit',
      retryable: true,
      userAction: 'wait_and_retry',
      httpStatus: 429,
      retryAfterSeconds: 3,
    },
  } as Scenario,
};

function scenario(id: string): Scenario {
  const found = loadScenarios('openai').find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
}

export interface Provider {
  readonly server: LoopbackServer;
  /** One chat completion through the real SDK; rejects with what withClassifiedErrors throws. */
  complete(name: keyof typeof SCENARIOS): Promise<string>;
  /** A streamed chat completion through the real SDK and the stream guard, chunk by chunk. */
  stream(name: keyof typeof SCENARIOS): AsyncGenerator<string>;
  close(): Promise<void>;
}

/**
 * The app under test answers at its provider's first failure (`retry: false`): what these tests pin
 * is how a failure becomes an HTTP answer; the default retries (and the waits they would add to
 * every case) have their own tests in render and the adapters.
 */
export async function startProvider(): Promise<Provider> {
  const server = await startLoopbackServer();
  const client = (name: keyof typeof SCENARIOS) =>
    new OpenAI({ baseURL: server.baseUrlFor(SCENARIOS[name]!), apiKey: 'sk-test', maxRetries: 0 });
  return {
    server,
    async complete(name) {
      const completion = await withClassifiedErrors(
        ({ signal }) =>
          client(name).chat.completions.create(
            { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] },
            { signal },
          ),
        { model: 'gpt-4o-mini', retry: false },
      );
      return completion.choices[0]?.message.content ?? '';
    },
    async *stream(name) {
      const stream = await withClassifiedErrors(
        ({ signal }) =>
          client(name).chat.completions.create(
            { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], stream: true },
            { signal },
          ),
        { model: 'gpt-4o-mini', retry: false },
      );
      for await (const chunk of guardOpenAIStream(stream)) yield chunk.choices[0]?.delta.content ?? '';
    },
    close: () => server.close(),
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A real HTTP request to the app on 127.0.0.1. */
export async function get(base: string, path: string): Promise<Answer> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Reads a streamed answer chunk by chunk until the connection ends or breaks; says which. The text
 * is everything the client received, so a second (problem+json) response would show in it.
 */
export async function readStream(
  base: string,
  path: string,
): Promise<{ status: number; text: string; broken: boolean }> {
  const response = await fetch(`${base}${path}`);
  const decoder = new TextDecoder();
  let text = '';
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return { status: response.status, text, broken: false };
  } catch {
    return { status: response.status, text, broken: true };
  }
}
