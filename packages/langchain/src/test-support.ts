/**
 * Test support (not exported): drives a fixture scenario through LangChain's real chat model of
 * the provider (which calls the provider's real SDK) against the loopback server.
 */

import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { FaultlineError } from '@faultline/render';
import { errorFromMetadata } from '@faultline/render/toolkit';
import type { LoopbackServer, Scenario } from '@faultline/test-fixtures';
import { formatVerdict } from '@faultline/test-fixtures/cross-check-table';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatBedrockConverse } from '@langchain/aws';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatGroq } from '@langchain/groq';
import { ChatMistralAI } from '@langchain/mistralai';
import { ChatOpenAI } from '@langchain/openai';
import { classifyLangChainError, detectLangChainBlockedAnswer } from './classify-langchain-error.ts';

export const PROVIDERS = ['openai', 'anthropic', 'google-genai', 'bedrock', 'mistral', 'groq'] as const;
export type Provider = (typeof PROVIDERS)[number];

const KEY = 'sk-test-faultline-canary-0123456789abcdef';
const CREDENTIALS = { accessKeyId: 'AKIAFAULTLINETEST0001', secretAccessKey: 'faultline/test/secret/key' };

/** The loopback servers: HTTP/1.1 for every SDK but the AWS SDK, which reads event streams over h2c. */
export interface Servers {
  readonly http1: LoopbackServer;
  readonly h2c: LoopbackServer;
}

export function chatModelFor(provider: Provider, scenario: Scenario, servers: Servers): BaseChatModel {
  const base = (provider === 'bedrock' ? servers.h2c : servers.http1).baseUrlFor(scenario);
  switch (provider) {
    case 'openai':
      return new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: KEY,
        configuration: { baseURL: `${base}/v1` },
        maxRetries: 0,
      });
    case 'anthropic':
      return new ChatAnthropic({
        model: 'claude-sonnet-4-5',
        apiKey: KEY,
        anthropicApiUrl: base,
        maxRetries: 0,
      });
    case 'google-genai':
      return new ChatGoogleGenerativeAI({
        model: 'gemini-2.5-flash',
        apiKey: KEY,
        baseUrl: base,
        maxRetries: 0,
      });
    case 'bedrock':
      return new ChatBedrockConverse({
        model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
        region: 'us-east-1',
        // The SDK's own request timeout, as its SDK suite uses: an abort from outside is the
        // caller's (smithy's HTTP/2 handler drops the signal's TimeoutError reason).
        client: new BedrockRuntimeClient({
          endpoint: base,
          region: 'us-east-1',
          credentials: CREDENTIALS,
          maxAttempts: 1,
          requestHandler: { requestTimeout: waitLimitMs(scenario) },
        }),
        maxRetries: 0,
      });
    case 'mistral':
      return new ChatMistralAI({
        model: 'mistral-small-latest',
        apiKey: KEY,
        serverURL: base,
        maxRetries: 0,
      });
    case 'groq':
      // groq-sdk's own timeout, as its SDK suite uses: an abort from outside is the caller's.
      return new ChatGroq({
        model: 'llama-3.3-70b-versatile',
        apiKey: KEY,
        baseUrl: base,
        maxRetries: 0,
        timeout: waitLimitMs(scenario),
      });
  }
}

/** Only where the server never answers (or stalls) does a call need a deadline of its own. */
function waitLimitMs(scenario: Scenario): number {
  const response = scenario.response;
  if (response.kind === 'socket' && response.behaviour === 'never-answer') return 1500;
  if ((response.kind === 'sse' || response.kind === 'aws-event-stream') && response.then === 'stall')
    return 1500;
  return 30_000;
}

export type Outcome =
  | { readonly kind: 'error'; readonly error: FaultlineError }
  | { readonly kind: 'resolved' }
  | { readonly kind: 'hung' };

/** How long after its signal fired a call may take to settle before it is reported as hung. */
const SETTLE_MS = 5000;

/** The call, or `hung` when it has not settled `SETTLE_MS` after its signal fired. */
export async function driveScenario(
  provider: Provider,
  scenario: Scenario,
  servers: Servers,
): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'hung' }), waitLimitMs(scenario) + SETTLE_MS);
  });
  try {
    return await Promise.race([drive(provider, scenario, servers), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** `invoke` (or `stream`, drained, for a stream scenario), and what it threw, classified. */
async function drive(provider: Provider, scenario: Scenario, servers: Servers): Promise<Outcome> {
  const model = chatModelFor(provider, scenario, servers);
  const signal = AbortSignal.timeout(
    waitLimitMs(scenario) + (provider === 'groq' || provider === 'bedrock' ? 1000 : 0),
  );
  const streaming = scenario.stream === true;
  try {
    if (streaming) {
      for await (const _chunk of await model.stream('Say hello', { signal })) {
        // drain
      }
    } else {
      const message = await model.invoke('Say hello', { signal });
      const blocked = detectLangChainBlockedAnswer(message, model._llmType());
      if (blocked !== undefined) return { kind: 'error', error: errorFromMetadata(blocked) };
    }
  } catch (error) {
    return { kind: 'error', error: classifyLangChainError(error, { provider: model._llmType(), streaming }) };
  }
  return { kind: 'resolved' };
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

export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind === 'hung') return 'hung (the call did not settle after its signal fired)';
  return formatVerdict(verdictOf(outcome), 'resolved');
}
