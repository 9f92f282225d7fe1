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
import type { FaultlineError } from '@faultline/render';
import { errorFromMetadata } from '@faultline/render/toolkit';
import type { LoopbackServer, Scenario } from '@faultline/test-fixtures';
import { formatVerdict } from '@faultline/test-fixtures/cross-check-table';
import { createAmazonBedrock as createAmazonBedrockV3 } from 'ai-sdk-amazon-bedrock-v3';
import { createAnthropic as createAnthropicV2 } from 'ai-sdk-anthropic-v2';
import { createGoogleGenerativeAI as createGoogleV2 } from 'ai-sdk-google-v2';
import { createGroq as createGroqV2 } from 'ai-sdk-groq-v2';
import { createMistral as createMistralV2 } from 'ai-sdk-mistral-v2';
import { createOpenAI as createOpenAIV2 } from 'ai-sdk-openai-v2';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import { classifyAiSdkError, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { detectAiSdkBlockedAnswer } from './extract-ai-sdk.ts';

/** The six providers of providers.json, in its order. */
export const PROVIDERS = ['openai', 'anthropic', 'google-genai', 'bedrock', 'mistral', 'groq'] as const;
export type Provider = (typeof PROVIDERS)[number];

type AnyModel = any;
type ModelFactory = (baseUrl: string) => AnyModel;

interface AiModule {
  generateText(options: any): Promise<any>;
  streamText(options: any): { fullStream: AsyncIterable<any> };
  wrapLanguageModel(options: any): AnyModel;
}

export interface AiSdkMajor {
  /** The devDependency alias: `ai` (6) or `ai-v5`. */
  readonly alias: string;
  readonly ai: AiModule;
  readonly models: Readonly<Record<Provider, ModelFactory>>;
}

const KEY = 'sk-test-faultline-canary-0123456789abcdef';
const AWS = {
  region: 'us-east-1',
  accessKeyId: 'AKIAFAULTLINETEST0001',
  secretAccessKey: 'faultline/test/secret/key',
};

export const MAJORS: readonly AiSdkMajor[] = [
  {
    alias: 'ai-v6',
    ai: ai6 as unknown as AiModule,
    models: {
      openai: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).chat('gpt-4o-mini'),
      anthropic: (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })('claude-sonnet-4-5'),
      'google-genai': (url) =>
        createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: KEY })('gemini-2.5-flash'),
      bedrock: (url) =>
        createAmazonBedrock({ ...AWS, baseURL: url })('anthropic.claude-3-5-haiku-20241022-v1:0'),
      mistral: (url) => createMistral({ baseURL: `${url}/v1`, apiKey: KEY })('mistral-small-latest'),
      groq: (url) => createGroq({ baseURL: `${url}/openai/v1`, apiKey: KEY })('llama-3.3-70b-versatile'),
    },
  },
  {
    alias: 'ai-v5',
    ai: ai5 as unknown as AiModule,
    models: {
      openai: (url) => createOpenAIV2({ baseURL: `${url}/v1`, apiKey: KEY }).chat('gpt-4o-mini'),
      anthropic: (url) => createAnthropicV2({ baseURL: `${url}/v1`, apiKey: KEY })('claude-sonnet-4-5'),
      'google-genai': (url) => createGoogleV2({ baseURL: `${url}/v1beta`, apiKey: KEY })('gemini-2.5-flash'),
      bedrock: (url) =>
        createAmazonBedrockV3({ ...AWS, baseURL: url })('anthropic.claude-3-5-haiku-20241022-v1:0'),
      mistral: (url) => createMistralV2({ baseURL: `${url}/v1`, apiKey: KEY })('mistral-small-latest'),
      groq: (url) => createGroqV2({ baseURL: `${url}/openai/v1`, apiKey: KEY })('llama-3.3-70b-versatile'),
    },
  },
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
