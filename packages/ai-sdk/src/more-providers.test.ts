// biome-ignore-all lint/suspicious/noThenProperty: `then` is the scenario format's field name (data, never awaited)
import { createAzure } from '@ai-sdk/azure';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createVertex } from '@ai-sdk/google-vertex';
import { createVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createXai } from '@ai-sdk/xai';
import { type LoopbackServer, type ScenarioResponse, startLoopbackServer } from '@faultline/test-fixtures';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { generateText, streamText } from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAiSdkError, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { type AiSdkProvider, providerFromId } from './provider-of.ts';

// The AI SDK providers users install most beyond the six, each the real package (ai 6) against the
// loopback server: the provider id it reports picks the right body rules, and its failures
// (a rejected key, a rate limit or quota in the provider's own words, an error after a 200 stream)
// are classified as through the provider's own SDK.

const KEY = 'sk-faultline-canary-ai-sdk-providers-0000';

interface Subject {
  readonly name: string;
  /** The faultline provider whose body rules apply (and whose quota scope holds). */
  readonly provider: AiSdkProvider;
  readonly model: (baseUrl: string) => LanguageModelV3;
  /** The path the package calls, after the loopback prefix. */
  readonly path: RegExp;
  readonly failures: readonly {
    readonly name: string;
    readonly response: ScenarioResponse;
    readonly reason: string;
  }[];
  /**
   * A 200 stream that fails after its first text. `gap`: why this package's stream is not read as
   * labelled yet (the cell runs as `it.fails`, so it turns red the day the gap closes).
   */
  readonly streamFailure: {
    readonly response: ScenarioResponse;
    readonly reason: string;
    readonly gap?: string;
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): ScenarioResponse => ({
  kind: 'http',
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** OpenAI's chat-completions stream: one chunk of text, then `rest` and the ending. */
const chatStream = (
  model: string,
  rest: readonly { data: string }[],
  then: 'end' | 'cut',
): ScenarioResponse => ({
  kind: 'sse',
  events: [
    {
      data: JSON.stringify({
        id: 'chatcmpl-fl',
        object: 'chat.completion.chunk',
        created: 1763760000,
        model,
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
      }),
    },
    ...rest,
  ],
  then,
});

/** The provider's error object in a data line after the first text. */
const chatStreamThenError = (model: string, error: unknown): ScenarioResponse =>
  chatStream(model, [{ data: JSON.stringify(error) }], 'end');

const openaiInvalidKey = json(401, {
  error: {
    message: 'Incorrect API key provided: sk-fault***0000.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
});

const SUBJECTS: readonly Subject[] = [
  {
    name: '@ai-sdk/openai-compatible',
    provider: 'openai',
    // Its provider id is the user's own name: the URL (the OpenAI-compatible path of a known host) decides.
    model: (url) =>
      createOpenAICompatible({ name: 'my-gateway', baseURL: `${url}/openai/v1`, apiKey: KEY })('gpt-4o-mini'),
    path: /^\/openai\/v1\/chat\/completions$/,
    failures: [
      { name: 'invalid key', response: openaiInvalidKey, reason: 'auth' },
      {
        name: 'insufficient_quota',
        response: json(429, {
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          },
        }),
        reason: 'quota',
      },
    ],
    streamFailure: {
      response: chatStreamThenError('gpt-4o-mini', {
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      }),
      reason: 'server_error',
    },
  },
  {
    name: '@ai-sdk/xai',
    provider: 'openai',
    model: (url) => createXai({ baseURL: `${url}/v1`, apiKey: KEY }).chat('grok-4'),
    path: /^\/v1\/chat\/completions$/,
    failures: [
      {
        name: 'invalid key',
        response: json(400, {
          code: 'Client specified an invalid argument',
          error: 'Incorrect API key provided: xa***00. You can obtain an API key from https://console.x.ai.',
        }),
        reason: 'auth',
      },
      {
        name: 'spent credits',
        response: json(403, {
          code: 'The caller does not have permission to execute the specified operation',
          error:
            "Your newly created team doesn't have any credits yet. You can purchase credits on https://console.x.ai/team/00000000-0000-0000-0000-000000000000.",
        }),
        reason: 'billing',
      },
    ],
    streamFailure: {
      response: chatStreamThenError('grok-4', {
        error: { message: 'Rate limit reached for requests per minute.', type: 'rate_limit_exceeded' },
      }),
      reason: 'rate_limit',
    },
  },
  {
    name: '@ai-sdk/azure',
    provider: 'openai',
    model: (url) => createAzure({ baseURL: `${url}/openai/v1`, apiKey: KEY }).chat('gpt-4o-deployment'),
    path: /^\/openai\/v1\/chat\/completions$/,
    failures: [
      {
        name: 'deployment not found',
        response: json(404, {
          error: {
            code: 'DeploymentNotFound',
            message:
              'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
          },
        }),
        reason: 'model_not_found',
      },
      {
        name: 'rate limit',
        response: json(
          429,
          {
            error: {
              code: '429',
              message:
                'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds.',
            },
          },
          { 'retry-after': '6' },
        ),
        reason: 'rate_limit',
      },
    ],
    streamFailure: {
      response: chatStreamThenError('gpt-4o', {
        error: {
          code: 'content_filter',
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        },
      }),
      reason: 'content_policy',
    },
  },
  {
    name: '@openrouter/ai-sdk-provider',
    provider: 'openrouter',
    model: (url) =>
      createOpenRouter({ baseURL: `${url}/api/v1`, apiKey: KEY }).chat('anthropic/claude-sonnet-4.5'),
    path: /^\/api\/v1\/chat\/completions$/,
    failures: [
      {
        name: 'credits',
        response: json(402, {
          error: {
            message:
              'This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 1234. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account',
            code: 402,
          },
        }),
        reason: 'billing',
      },
      {
        name: 'no endpoints',
        response: json(404, { error: { message: 'No endpoints found that support tool use.', code: 404 } }),
        reason: 'model_not_found',
      },
      {
        // The upstream failed after the model was reached: OpenRouter's 200 carries the error.
        name: 'error in a 200 body',
        response: json(200, {
          id: 'gen-1',
          object: 'chat.completion',
          created: 1739239607,
          model: 'deepseek/deepseek-r1',
          choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }],
          error: {
            message: 'Provider returned error',
            code: 429,
            metadata: { raw: 'error code: 1015', provider_name: 'Kluster' },
          },
        }),
        reason: 'rate_limit',
      },
    ],
    streamFailure: {
      response: chatStreamThenError('anthropic/claude-sonnet-4.5', {
        error: { code: 502, message: 'Provider returned error', metadata: { provider_name: 'Anthropic' } },
      }),
      reason: 'server_error',
    },
  },
  {
    name: '@ai-sdk/deepseek',
    provider: 'openai',
    model: (url) => createDeepSeek({ baseURL: url, apiKey: KEY })('deepseek-chat'),
    path: /^\/chat\/completions$/,
    failures: [
      {
        name: 'insufficient balance',
        response: json(402, {
          error: {
            message: 'Insufficient Balance',
            type: 'unknown_error',
            param: null,
            code: 'invalid_request_error',
          },
        }),
        reason: 'billing',
      },
      {
        name: 'context overflow',
        response: json(400, {
          error: {
            message:
              "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        }),
        reason: 'context_overflow',
      },
    ],
    // The connection drops after the first chunk (no finish, no [DONE]).
    streamFailure: {
      response: chatStream('deepseek-chat', [], 'cut'),
      reason: 'interrupted',
    },
  },
  {
    name: '@ai-sdk/google-vertex (Gemini)',
    provider: 'google-genai',
    model: (url) => createVertex({ apiKey: KEY, baseURL: `${url}/v1/publishers/google` })('gemini-2.5-flash'),
    path: /^\/v1\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/,
    failures: [
      {
        name: 'per-day quota',
        response: json(429, {
          error: {
            code: 429,
            message: 'Quota exceeded for metric: generate_content_requests_per_day.',
            status: 'RESOURCE_EXHAUSTED',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
                violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel' }],
              },
            ],
          },
        }),
        reason: 'quota',
      },
      {
        name: 'permission',
        response: json(403, {
          error: {
            code: 403,
            message: 'Vertex AI API has not been used in project 000000000000 before or it is disabled.',
            status: 'PERMISSION_DENIED',
          },
        }),
        reason: 'permission',
      },
    ],
    streamFailure: {
      response: {
        kind: 'sse',
        events: [
          {
            data: JSON.stringify({
              candidates: [{ content: { parts: [{ text: 'Hel' }], role: 'model' }, index: 0 }],
            }),
          },
          {
            data: JSON.stringify({
              error: {
                code: 503,
                message: 'The model is overloaded. Please try again later.',
                status: 'UNAVAILABLE',
              },
            }),
          },
        ],
        then: 'end',
      },
      reason: 'overloaded',
      gap: 'the @ai-sdk/google 3.0.129 inside @ai-sdk/google-vertex 4.0.208 ends the stream on an error chunk without an error part: the guard sees an end without a finish (interrupted)',
    },
  },
  {
    name: '@ai-sdk/google-vertex/anthropic (Claude on Vertex)',
    provider: 'anthropic',
    model: (url) =>
      createVertexAnthropic({
        project: 'faultline-test',
        location: 'us-east5',
        baseURL: `${url}/v1/projects/faultline-test/locations/us-east5/publishers/anthropic/models`,
        generateAuthToken: async () => 'ya29.faultlineCanaryAccessToken0000',
      })('claude-sonnet-4-5@20250929'),
    path: /^\/v1\/projects\/faultline-test\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:(stream)?rawPredict$/,
    failures: [
      {
        name: 'per-minute quota',
        response: json(429, {
          error: {
            code: 429,
            message:
              'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude-sonnet-4-5. Please submit a quota increase request.',
            status: 'RESOURCE_EXHAUSTED',
          },
        }),
        reason: 'rate_limit',
      },
      {
        name: 'model not in region',
        response: json(404, [
          {
            error: {
              code: 404,
              message:
                'Publisher Model `projects/faultline-test/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929` was not found or your project does not have access to it.',
              status: 'NOT_FOUND',
            },
          },
        ]),
        reason: 'model_not_found',
      },
    ],
    streamFailure: {
      response: {
        kind: 'sse',
        events: [
          {
            event: 'message_start',
            data: JSON.stringify({
              type: 'message_start',
              message: {
                id: 'msg_vrtx_fl',
                type: 'message',
                role: 'assistant',
                model: 'claude-sonnet-4-5',
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 5, output_tokens: 1 },
              },
            }),
          },
          {
            event: 'error',
            data: JSON.stringify({
              type: 'error',
              error: { type: 'overloaded_error', message: 'Overloaded' },
            }),
          },
        ],
        then: 'end',
      },
      reason: 'overloaded',
    },
  },
];

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

for (const subject of SUBJECTS) {
  describe(subject.name, () => {
    for (const failure of subject.failures) {
      it(`${failure.name}: ${failure.reason}, read with ${subject.provider}'s body rules`, async () => {
        const scenario = { response: failure.response };
        const model = subject.model(server.baseUrlFor(scenario));
        const error = await generateText({ model, prompt: 'Say hello', maxRetries: 0 }).then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
        expect(error).toBeDefined();
        expect(server.requests(scenario)[0]?.subPath.split('?')[0]).toMatch(subject.path);
        const report = classifyAiSdkError(error, { provider: model.provider }).toErrorReport();
        expect({ reason: report.reason, provider: report.provider }).toEqual({
          reason: failure.reason,
          provider: subject.provider,
        });
        expect(JSON.stringify(report)).not.toContain(KEY);
      });
    }

    const streamCell = subject.streamFailure.gap === undefined ? it : it.fails;
    streamCell(`a 200 stream that fails: ${subject.streamFailure.reason}`, async () => {
      const scenario = { response: subject.streamFailure.response };
      const model = subject.model(server.baseUrlFor(scenario));
      const result = streamText({
        model,
        prompt: 'Say hello',
        maxRetries: 0,
        includeRawChunks: true,
        onError: () => undefined,
      });
      const error = await (async () => {
        try {
          for await (const _part of guardAiSdkStream(result.fullStream, { provider: model.provider })) {
            // drained: the guard throws what the stream failed with
          }
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeDefined();
      const report = classifyAiSdkError(error, { provider: model.provider }).toErrorReport();
      expect(report.reason).toBe(subject.streamFailure.reason);
    });
  });
}

describe('provider ids the packages report', () => {
  it('each maps to the faultline provider whose body rules it speaks', () => {
    const url = 'http://127.0.0.1:9';
    const ids = SUBJECTS.map(
      (subject) => [subject.name, subject.model(url).provider, subject.provider] as const,
    );
    for (const [name, id, provider] of ids) {
      // @ai-sdk/openai-compatible's id is the user's own name: only its URL can decide.
      if (name === '@ai-sdk/openai-compatible') expect(providerFromId(id)).toBeUndefined();
      else expect(providerFromId(id), `${name} (${id})`).toBe(provider);
    }
  });
});
