import Anthropic from '@anthropic-ai/sdk';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { guardAnthropicStream, withClassifiedErrors as withAnthropic } from '@faultline/extract-anthropic';
import { guardBedrockStream, withClassifiedErrors as withBedrock } from '@faultline/extract-bedrock';
import { guardGeminiStream, withClassifiedErrors as withGoogle } from '@faultline/extract-google-genai';
import { guardGroqStream, withClassifiedErrors as withGroq } from '@faultline/extract-groq';
import { guardMistralStream, withClassifiedErrors as withMistral } from '@faultline/extract-mistral';
import { guardOpenAIStream, withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import { GoogleGenAI } from '@google/genai';
import { Mistral } from '@mistralai/mistralai';
import Groq from 'groq-sdk';
import OpenAI from 'openai';

/** The providers this driver can call, each through its real, latest SDK. */
export const DRIVEN_PROVIDERS = [
  'openai',
  'anthropic',
  'google-genai',
  'bedrock',
  'mistral',
  'groq',
] as const;
export type DrivenProvider = (typeof DRIVEN_PROVIDERS)[number];

// Canary-looking credentials: never real, and tests check they never reach any output.
const FAKE_KEYS = {
  openai: 'sk-proj-faultlineCanary0000000000000000000000',
  anthropic: 'sk-ant-api03-faultlineCanary000000000000000000',
  google: 'AIzaSyFaultlineCanary0000000000000000000',
  groq: 'gsk_faultlineCanary0000000000000000000000000000',
  mistral: 'faultlineCanaryMistralKey000000000',
  awsAccessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  awsSecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
} as const;

export const PROMPT = 'faultline demo prompt: say hello';

/** One HTTP/1.1 server for every provider but Bedrock, and one h2c server for Bedrock. */
export interface ScenarioServers {
  readonly http1: LoopbackServer;
  readonly h2c: LoopbackServer;
  baseUrlFor(scenario: Scenario): string;
  close(): Promise<void>;
}

export async function startScenarioServers(): Promise<ScenarioServers> {
  const [http1, h2c] = await Promise.all([
    startLoopbackServer({ protocol: 'http1' }),
    startLoopbackServer({ protocol: 'h2c' }),
  ]);
  return {
    http1,
    h2c,
    baseUrlFor(scenario) {
      return scenario.provider === 'bedrock' ? h2c.baseUrlFor(scenario) : http1.baseUrlFor(scenario);
    },
    async close() {
      await Promise.all([http1.close(), h2c.close()]);
    },
  };
}

export interface DriveOptions {
  /** The SDK's own request timeout, in ms (covers never-answer scenarios). Default 1500. */
  readonly timeoutMs?: number;
  /** Passed to the SDK call (and to faultline, so the caller's abort is told from a timeout). */
  readonly signal?: AbortSignal;
  /**
   * The SDK's own retries: `off` (default; faultline owns retries), `default` (what a user gets
   * with no retry setting), or `enabled` (the SDK's documented retry option turned on, for SDKs
   * that retry nothing by default: @google/genai `retryOptions`, Mistral `retryConfig`).
   */
  readonly sdkRetries?: 'off' | 'default' | 'enabled';
}

async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Calls the provider's real SDK against `baseUrl` the way the scenario asks (stream or not, which API). */
export async function callProvider(
  scenario: Scenario,
  baseUrl: string,
  options: DriveOptions = {},
): Promise<unknown> {
  const timeout = options.timeoutMs ?? 1500;
  const signal = options.signal;
  const retries = options.sdkRetries ?? 'off';
  const stainless = retries === 'off' ? { maxRetries: 0 } : {};
  const messages = [{ role: 'user' as const, content: PROMPT }];
  // Every stream is drained through its provider's guard: SDK timeouts do not cover stream reads,
  // and several SDKs end a failed stream silently.
  const guard = { idleTimeoutMs: timeout, ...(signal ? { signal } : {}) };
  switch (scenario.provider as DrivenProvider) {
    case 'openai': {
      const client = new OpenAI({ apiKey: FAKE_KEYS.openai, baseURL: baseUrl, timeout, ...stainless });
      if (scenario.stream) {
        return drain(
          guardOpenAIStream(
            await client.chat.completions.create(
              { model: 'gpt-4o-mini', messages, stream: true },
              { signal },
            ),
            guard,
          ),
        );
      }
      return client.chat.completions.create({ model: 'gpt-4o-mini', messages }, { signal });
    }
    case 'groq': {
      const client = new Groq({ apiKey: FAKE_KEYS.groq, baseURL: baseUrl, timeout, ...stainless });
      if (scenario.stream) {
        return drain(
          guardGroqStream(
            await client.chat.completions.create(
              { model: 'llama-3.3-70b-versatile', messages, stream: true },
              { signal },
            ),
            guard,
          ),
        );
      }
      return client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages }, { signal });
    }
    case 'mistral': {
      const client = new Mistral({
        apiKey: FAKE_KEYS.mistral,
        serverURL: baseUrl,
        timeoutMs: timeout,
        ...(retries === 'enabled'
          ? {
              retryConfig: {
                strategy: 'backoff' as const,
                backoff: {
                  initialInterval: 500,
                  maxInterval: 60_000,
                  exponent: 1.5,
                  maxElapsedTime: 3_600_000,
                },
                retryConnectionErrors: true,
              },
            }
          : {}),
      });
      if (scenario.stream) {
        return drain(
          guardMistralStream(
            await client.chat.stream(
              { model: 'mistral-small-latest', messages },
              { fetchOptions: { signal } },
            ),
            guard,
          ),
        );
      }
      return client.chat.complete({ model: 'mistral-small-latest', messages }, { fetchOptions: { signal } });
    }
    case 'anthropic': {
      const client = new Anthropic({ apiKey: FAKE_KEYS.anthropic, baseURL: baseUrl, timeout, ...stainless });
      const body = { model: 'claude-sonnet-4-5', max_tokens: 64, messages };
      if (scenario.stream) {
        return drain(
          guardAnthropicStream(await client.messages.create({ ...body, stream: true }, { signal }), guard),
        );
      }
      return client.messages.create(body, { signal });
    }
    case 'google-genai': {
      const genaiRetries = retries === 'enabled' ? { retryOptions: { attempts: 5 } } : {};
      const client =
        scenario.api === 'vertex'
          ? new GoogleGenAI({
              vertexai: true,
              apiKey: FAKE_KEYS.google,
              httpOptions: { baseUrl, timeout, ...genaiRetries },
            })
          : new GoogleGenAI({ apiKey: FAKE_KEYS.google, httpOptions: { baseUrl, timeout, ...genaiRetries } });
      const request = { model: 'gemini-2.5-flash', contents: PROMPT, config: { abortSignal: signal } };
      if (scenario.stream)
        return drain(guardGeminiStream(await client.models.generateContentStream(request), guard));
      return client.models.generateContent(request);
    }
    case 'bedrock': {
      const client = new BedrockRuntimeClient({
        endpoint: baseUrl,
        region: 'us-east-1',
        credentials: { accessKeyId: FAKE_KEYS.awsAccessKeyId, secretAccessKey: FAKE_KEYS.awsSecretAccessKey },
        ...(retries === 'off' ? { maxAttempts: 1 } : {}),
        requestHandler: { requestTimeout: timeout },
      });
      try {
        const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
        const converse = { modelId, messages: [{ role: 'user' as const, content: [{ text: PROMPT }] }] };
        if (scenario.api === 'invoke-model') {
          const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages });
          return await client.send(
            new InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
            {
              abortSignal: signal,
            },
          );
        }
        if (scenario.api === 'converse-stream' || scenario.stream) {
          const response = await client.send(new ConverseStreamCommand(converse), { abortSignal: signal });
          return response.stream ? await drain(guardBedrockStream(response.stream, guard)) : [];
        }
        return await client.send(new ConverseCommand(converse), { abortSignal: signal });
      } finally {
        client.destroy();
      }
    }
    default:
      throw new Error(`scenario-driver: no SDK call for provider "${scenario.provider}"`);
  }
}

const BOUND = {
  openai: withOpenAI,
  anthropic: withAnthropic,
  'google-genai': withGoogle,
  bedrock: withBedrock,
  mistral: withMistral,
  groq: withGroq,
} as const;

export type DriveOutcome =
  | { readonly kind: 'error'; readonly error: FaultlineError }
  | { readonly kind: 'success'; readonly result: unknown };

/**
 * Drives one scenario through the provider's real SDK, wrapped in that provider's bound
 * `withClassifiedErrors` (no retries), and returns the classified error it raised.
 */
export async function driveScenario(
  scenario: Scenario,
  servers: ScenarioServers,
  options: DriveOptions = {},
): Promise<DriveOutcome> {
  const bound = BOUND[scenario.provider as DrivenProvider];
  if (bound === undefined) throw new Error(`scenario-driver: unknown provider "${scenario.provider}"`);
  const baseUrl = servers.baseUrlFor(scenario);
  try {
    // The wrapper's own signal reaches the SDK, and a deadline bounds every driven call: a call
    // that hangs (a stalled socket no SDK timeout covers) is aborted and classified, never left open.
    const result = await bound(({ signal }) => callProvider(scenario, baseUrl, { ...options, signal }), {
      retry: false,
      deadlineMs: (options.timeoutMs ?? 1500) * 4,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { kind: 'success', result };
  } catch (error) {
    if (FaultlineError.isInstance(error)) return { kind: 'error', error };
    throw error;
  }
}

/**
 * Drives many scenarios, a few at a time (the SDKs' short timeouts must not fire because the
 * machine is busy), and returns the outcomes in the scenarios' order.
 */
export async function driveAll(
  scenarios: readonly Scenario[],
  servers: ScenarioServers,
  options: DriveOptions & { readonly concurrency?: number } = {},
): Promise<DriveOutcome[]> {
  const concurrency = options.concurrency ?? 6;
  const outcomes: DriveOutcome[] = new Array(scenarios.length);
  for (let index = 0; index < scenarios.length; index += concurrency) {
    const batch = scenarios.slice(index, index + concurrency);
    const results = await Promise.all(batch.map((scenario) => driveScenario(scenario, servers, options)));
    results.forEach((outcome, offset) => {
      outcomes[index + offset] = outcome;
    });
  }
  return outcomes;
}
