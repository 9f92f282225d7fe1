// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
// Test-only helpers: real openai SDK clients pointed at the loopback server. Never imported by src.
import {
  guardOpenAIStream,
  withClassifiedErrors as openaiWithClassifiedErrors,
} from '@faultline/extract-openai';
import type { LoopbackServer, Scenario } from '@faultline/test-fixtures';
import OpenAI from 'openai';
import type { Candidate } from './fallback-chain.ts';

export type ResponseScenario = Pick<Scenario, 'response'>;

export const CHAT_PARAMS = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'canary-prompt-7f3a: say hello' }],
};

/** A 200 chat completion whose text names the candidate that answered. */
export function answerScenario(text: string): ResponseScenario {
  return {
    response: {
      kind: 'http',
      status: 200,
      headers: { 'x-request-id': `req_ok_${text}` },
      body: JSON.stringify({
        id: `chatcmpl-${text}`,
        object: 'chat.completion',
        created: 1763760000,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      }),
    },
  };
}

/** A complete chat stream of `parts`, then `[DONE]`. */
export function streamScenario(parts: readonly string[]): ResponseScenario {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    JSON.stringify({
      id: 'chatcmpl-stream',
      object: 'chat.completion.chunk',
      created: 1763760000,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  return {
    response: {
      kind: 'sse',
      events: [
        ...parts.map((part) => ({ data: chunk({ content: part }, null) })),
        { data: chunk({}, 'stop') },
        { data: '[DONE]' },
      ],
      then: 'end',
    },
  };
}

export function clientFor(
  server: LoopbackServer,
  scenario: ResponseScenario,
  apiKey = 'sk-test-faultline',
): OpenAI {
  return new OpenAI({ apiKey, maxRetries: 0, baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }) });
}

/** The text of a chat completion. */
export function textOf(completion: unknown): string | undefined {
  return (completion as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message
    ?.content;
}

export interface OpenAICandidateOptions {
  readonly provider?: string;
  readonly model: string;
  readonly credentialId?: string;
  readonly contextWindow?: number;
}

/**
 * A candidate whose call goes to `scenario()` (read at call time, so a test can switch a
 * provider from failing to healthy) with the real openai SDK, classified by extract-openai.
 */
export function chatCandidate(
  server: LoopbackServer,
  scenario: () => ResponseScenario,
  options: OpenAICandidateOptions,
): Candidate<unknown> {
  const clients = new Map<ResponseScenario, OpenAI>();
  return {
    provider: options.provider ?? 'openai',
    model: options.model,
    credentialId: options.credentialId,
    contextWindow: options.contextWindow,
    withClassifiedErrors: openaiWithClassifiedErrors,
    call: ({ signal }) => {
      const target = scenario();
      let client = clients.get(target);
      if (client === undefined) {
        client = clientFor(server, target);
        clients.set(target, client);
      }
      return client.chat.completions.create({ ...CHAT_PARAMS, model: options.model }, { signal });
    },
  };
}

/** A streaming candidate: the real SDK's stream, guarded by `guardOpenAIStream`. */
export function streamCandidate(
  server: LoopbackServer,
  scenario: ResponseScenario,
  options: OpenAICandidateOptions,
): Candidate<AsyncIterable<unknown>> {
  const client = clientFor(server, scenario);
  return {
    provider: options.provider ?? 'openai',
    model: options.model,
    credentialId: options.credentialId,
    withClassifiedErrors: openaiWithClassifiedErrors,
    call: async ({ signal }) =>
      guardOpenAIStream(
        await client.chat.completions.create(
          { ...CHAT_PARAMS, model: options.model, stream: true },
          { signal },
        ),
        { signal },
      ),
  };
}

/** A manual clock and a `sleep` that advances it at once (no real time passes). */
export function fakeTime(start = 1_000_000): {
  now: () => number;
  advance: (milliseconds: number) => void;
  sleep: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
  slept: number[];
} {
  let time = start;
  const slept: number[] = [];
  return {
    now: () => time,
    advance: (milliseconds) => {
      time += milliseconds;
    },
    sleep: async (milliseconds, signal) => {
      if (signal?.aborted) throw signal.reason;
      slept.push(milliseconds);
      time += milliseconds;
    },
    slept,
  };
}

/** Pieces of text from a stream of openai chat chunks. */
export function deltaText(chunk: unknown): string {
  return (chunk as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content ?? '';
}
