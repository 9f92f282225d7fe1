// biome-ignore-all lint/suspicious/noThenProperty: the scenario format's field
/**
 * Test support (not exported): drives a fixture scenario through the real `ai` package and the
 * real `@ai-sdk/*` provider, both supported majors, against the loopback server.
 */

import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createGroq } from '@ai-sdk/groq';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { FaultlineError } from '@faultline/render';
import { errorFromMetadata } from '@faultline/render/toolkit';
import {
  type LoopbackServer,
  loadScenario,
  type Scenario,
  type ScenarioResponse,
} from '@faultline/test-fixtures';
import { formatVerdict } from '@faultline/test-fixtures/cross-check-table';
import { createAmazonBedrock as createAmazonBedrockV3 } from 'ai-sdk-amazon-bedrock-v3';
import { createAnthropic as createAnthropicV2 } from 'ai-sdk-anthropic-v2';
import { createGoogleGenerativeAI as createGoogleV2 } from 'ai-sdk-google-v2';
import { createGroq as createGroqV2 } from 'ai-sdk-groq-v2';
import { createMistral as createMistralV2 } from 'ai-sdk-mistral-v2';
import { createOpenAI as createOpenAIV2 } from 'ai-sdk-openai-v2';
import type { LanguageModel as LanguageModelOfAi5 } from 'ai-v5';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import { classifyAiSdkError, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { detectAiSdkBlockedAnswer } from './extract-ai-sdk.ts';

/** The six providers of providers.json, in its order. */
export const PROVIDERS = ['openai', 'anthropic', 'google-genai', 'bedrock', 'mistral', 'groq'] as const;
export type Provider = (typeof PROVIDERS)[number];

const KEY = 'sk-test-faultline-canary-0123456789abcdef';
const AWS = {
  region: 'us-east-1',
  accessKeyId: 'AKIAFAULTLINETEST0001',
  secretAccessKey: 'faultline/test/secret/key',
};

type AnyModel = any;
type ModelFactory = (baseUrl: string) => AnyModel;

/** ai 6's models (LanguageModelV3), typed as a user's app holds them. */
export const MODELS_V6: Readonly<Record<Provider, (baseUrl: string) => LanguageModelV3>> = {
  openai: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).chat('gpt-4o-mini'),
  anthropic: (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })('claude-sonnet-4-5'),
  'google-genai': (url) =>
    createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: KEY })('gemini-2.5-flash'),
  bedrock: (url) => createAmazonBedrock({ ...AWS, baseURL: url })('anthropic.claude-3-5-haiku-20241022-v1:0'),
  mistral: (url) => createMistral({ baseURL: `${url}/v1`, apiKey: KEY })('mistral-small-latest'),
  groq: (url) => createGroq({ baseURL: `${url}/openai/v1`, apiKey: KEY })('llama-3.3-70b-versatile'),
};

/** ai 5's models (LanguageModelV2 of the `@ai-sdk/*` 2.x packages). */
type LanguageModelV2 = Exclude<LanguageModelOfAi5, string>;

export const MODELS_V5: Readonly<Record<Provider, (baseUrl: string) => LanguageModelV2>> = {
  openai: (url) => createOpenAIV2({ baseURL: `${url}/v1`, apiKey: KEY }).chat('gpt-4o-mini'),
  anthropic: (url) => createAnthropicV2({ baseURL: `${url}/v1`, apiKey: KEY })('claude-sonnet-4-5'),
  'google-genai': (url) => createGoogleV2({ baseURL: `${url}/v1beta`, apiKey: KEY })('gemini-2.5-flash'),
  bedrock: (url) =>
    createAmazonBedrockV3({ ...AWS, baseURL: url })('anthropic.claude-3-5-haiku-20241022-v1:0'),
  mistral: (url) => createMistralV2({ baseURL: `${url}/v1`, apiKey: KEY })('mistral-small-latest'),
  groq: (url) => createGroqV2({ baseURL: `${url}/openai/v1`, apiKey: KEY })('llama-3.3-70b-versatile'),
};

/**
 * The AI SDK functions the generic harness drives, for either major. The calls that hand faultline's
 * own surfaces to the AI SDK (the middleware) are typed per major instead, in the tests that make them.
 */
interface AiModule {
  generateText(options: any): Promise<any>;
  generateObject(options: any): Promise<unknown>;
  streamText(options: any): { fullStream: AsyncIterable<any> };
  customProvider(options: { languageModels: Record<string, never> }): { languageModel(id: string): unknown };
}

export interface AiSdkMajor {
  /** The devDependency alias: `ai` (6) or `ai-v5`. */
  readonly alias: string;
  readonly ai: AiModule;
  readonly models: Readonly<Record<Provider, ModelFactory>>;
}

export const MAJORS: readonly AiSdkMajor[] = [
  { alias: 'ai-v6', ai: ai6 as unknown as AiModule, models: MODELS_V6 },
  { alias: 'ai-v5', ai: ai5 as unknown as AiModule, models: MODELS_V5 },
];

/** Only where the server never answers does a call need a deadline of its own. */
export function waitLimitMs(scenario: Scenario): number | undefined {
  const response = scenario.response;
  if (response.kind === 'socket' && response.behaviour === 'never-answer') return 1500;
  if ((response.kind === 'sse' || response.kind === 'aws-event-stream') && response.then === 'stall')
    return 1500;
  return undefined;
}

export type Outcome =
  | { readonly kind: 'error'; readonly error: FaultlineError }
  | { readonly kind: 'resolved'; readonly finishReason: string };

/**
 * Runs the scenario as an AI SDK user would: `generateText` (or `streamText` for a stream
 * scenario, its `fullStream` read through `guardAiSdkStream`) with `maxRetries: 0`, and classifies
 * what it threw with `classifyAiSdkError`. A withheld answer (finish reason `content-filter`) is
 * classified too; any other answer is returned as `resolved`.
 */
export async function driveScenario(
  major: AiSdkMajor,
  provider: Provider,
  scenario: Scenario,
  server: LoopbackServer,
): Promise<Outcome> {
  const model = major.models[provider](server.baseUrlFor(scenario));
  const limit = waitLimitMs(scenario);
  const prompt = 'Say hello';
  if (scenario.stream === true) {
    const result = major.ai.streamText({ model, prompt, maxRetries: 0, onError: () => undefined });
    let finishReason = 'none';
    try {
      for await (const part of guardAiSdkStream(result.fullStream, {
        provider: model.provider,
        idleTimeoutMs: limit ?? 30_000,
      })) {
        if (part.type === 'finish') finishReason = String(part.finishReason);
      }
    } catch (error) {
      return { kind: 'error', error: classifyAiSdkError(error, { provider: model.provider }) };
    }
    return { kind: 'resolved', finishReason };
  }
  try {
    const result = await major.ai.generateText({
      model,
      prompt,
      maxRetries: 0,
      ...(limit === undefined ? {} : { abortSignal: AbortSignal.timeout(limit) }),
    });
    const blocked = detectAiSdkBlockedAnswer(result);
    if (blocked !== undefined) return { kind: 'error', error: errorFromMetadata(blocked) };
    return { kind: 'resolved', finishReason: String(result.finishReason) };
  } catch (error) {
    return { kind: 'error', error: classifyAiSdkError(error, { provider: model.provider }) };
  }
}

export interface Verdict {
  readonly category: string;
  readonly reason: string;
  readonly retryable: boolean;
}

export function verdictOf(outcome: Outcome): Verdict | undefined {
  if (outcome.kind !== 'error') return undefined;
  const report = outcome.error.toErrorReport();
  return { category: report.category, reason: report.reason, retryable: report.retryable };
}

export function describeOutcome(verdict: Verdict | undefined, outcome: Outcome): string {
  return formatVerdict(
    verdict,
    outcome.kind === 'resolved' ? `resolved (finish ${outcome.finishReason})` : 'no error',
  );
}

/** How a stream fails: cut mid-answer, an error event, or a clean end without the provider's finish. */
export const STREAM_FAILURES = ['cut', 'error-event', 'no-finish'] as const;
export type StreamFailure = (typeof STREAM_FAILURES)[number];

/** A recorded stream cut mid-answer, per provider (its events end without the provider's finish). */
const CUT_SCENARIOS: Readonly<Record<Provider, string>> = {
  openai: 'openai/stream-cut',
  anthropic: 'anthropic/stream-cut',
  'google-genai': 'google-genai/gemini-stream-cut',
  bedrock: 'bedrock/converse-stream-cut',
  mistral: 'mistral/stream-cut',
  groq: 'groq/stream-cut',
};

/** A recorded stream whose provider sent an error event after some text, per provider. */
export const ERROR_EVENT_SCENARIOS: Readonly<Record<Provider, string>> = {
  openai: 'openai/stream-error-event',
  anthropic: 'anthropic/stream-overloaded-event',
  'google-genai': 'google-genai/gemini-stream-error-unavailable',
  bedrock: 'bedrock/converse-stream-throttling',
  mistral: 'mistral/stream-error-event',
  groq: 'groq/stream-error-event',
};

const chatCompletionsFinish = (model: string) => [
  {
    data: JSON.stringify({
      id: 'chatcmpl-fl1',
      object: 'chat.completion.chunk',
      created: 1763760000,
      model,
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    }),
  },
  { data: '[DONE]' },
];
const converseEvent = (type: string, payload: object) => ({
  headers: { ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' },
  payload: JSON.stringify(payload),
});

/** What each provider sends to finish an answer, after the text of its cut scenario. */
const FINISH_EVENTS: Readonly<Record<Provider, readonly object[]>> = {
  openai: chatCompletionsFinish('gpt-4o-mini'),
  groq: chatCompletionsFinish('llama-3.3-70b-versatile'),
  mistral: chatCompletionsFinish('mistral-small-latest'),
  anthropic: [
    { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
    {
      event: 'message_delta',
      data: JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 2 },
      }),
    },
    { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
  ],
  'google-genai': [
    {
      data: JSON.stringify({
        candidates: [{ content: { parts: [{ text: '.' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
      }),
    },
  ],
  bedrock: [
    converseEvent('contentBlockStop', { contentBlockIndex: 0 }),
    converseEvent('messageStop', { stopReason: 'end_turn' }),
    converseEvent('metadata', {
      usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      metrics: { latencyMs: 20 },
    }),
  ],
};

/** A fresh response (its own registration at the server) for a stream that fails as `failure`. */
export function failingStream(provider: Provider, failure: StreamFailure): Pick<Scenario, 'response'> {
  if (failure === 'error-event')
    return { response: structuredClone(loadScenario(ERROR_EVENT_SCENARIOS[provider]).response) };
  const response = structuredClone(loadScenario(CUT_SCENARIOS[provider]).response);
  if (failure === 'cut' || (response.kind !== 'sse' && response.kind !== 'aws-event-stream'))
    return { response };
  // The same events, then a clean end of the body: no finish reason, no [DONE], no message_stop.
  const { cutMidMessage: _cut, ...rest } = response as typeof response & { cutMidMessage?: boolean };
  return { response: { ...rest, then: 'end' } as ScenarioResponse };
}

/** The same text as {@link failingStream}'s, then the provider's own finish: a whole answer. */
export function completeStream(provider: Provider): Pick<Scenario, 'response'> {
  const response = structuredClone(loadScenario(CUT_SCENARIOS[provider]).response);
  if (response.kind === 'sse')
    return {
      response: {
        ...response,
        events: [...response.events, ...(FINISH_EVENTS[provider] as typeof response.events)],
        then: 'end',
      },
    };
  if (response.kind === 'aws-event-stream') {
    const { cutMidMessage: _cut, ...rest } = response as typeof response & { cutMidMessage?: boolean };
    return {
      response: {
        ...rest,
        messages: [...response.messages, ...(FINISH_EVENTS[provider] as typeof response.messages)],
        then: 'end',
      } as ScenarioResponse,
    };
  }
  throw new Error(`${CUT_SCENARIOS[provider]} is not a stream`);
}
