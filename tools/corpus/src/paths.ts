// The corpus's other paths: the same case, served by the same loopback servers, called the way an
// AI SDK user or a LangChain user calls the provider, and classified by faultline's integration for
// that path. Each is called as its package's README tells users to, with the client's own retries off.
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAzure } from '@ai-sdk/azure';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGateway } from '@ai-sdk/gateway';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createVertex } from '@ai-sdk/google-vertex';
import { createVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import { createGroq } from '@ai-sdk/groq';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createXai } from '@ai-sdk/xai';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { classifyAiSdkError, detectAiSdkBlockedAnswer, guardAiSdkStream } from '@faultline/ai-sdk';
import {
  classifyLangChainError,
  detectLangChainBlockedAnswer,
  guardLangChainStream,
} from '@faultline/langchain';
import type { FaultlineError } from '@faultline/render';
import { errorFromMetadata } from '@faultline/render/toolkit';
import type { ScenarioServers } from '@faultline/scenario-driver';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatBedrockConverse } from '@langchain/aws';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatGroq } from '@langchain/groq';
import { ChatMistralAI } from '@langchain/mistralai';
import { ChatOpenAI } from '@langchain/openai';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { generateText, type LanguageModel, streamText } from 'ai';
import type { LoadedCase, ProviderCase } from './case.ts';

export { isGeminiResponseLeak } from './gemini-leak.ts';

/** The paths a case is replayed through: the provider's own SDK, the AI SDK, LangChain. */
export const PATHS = ['vendor', 'ai-sdk', 'langchain'] as const;
export type CorpusPath = (typeof PATHS)[number];

/** How each path is named in a table, and the client packages that carry it. */
export const PATH_LABELS: Readonly<Record<CorpusPath, string>> = {
  vendor: 'vendor SDK',
  'ai-sdk': 'AI SDK',
  langchain: 'LangChain',
};

/** The client packages of the extra paths (their versions are read from this package's manifest). */
export const PATH_PACKAGES: Readonly<Record<Exclude<CorpusPath, 'vendor'>, readonly string[]>> = {
  'ai-sdk': [
    'ai',
    '@ai-sdk/openai',
    '@ai-sdk/openai-compatible',
    '@ai-sdk/gateway',
    '@ai-sdk/anthropic',
    '@ai-sdk/google',
    '@ai-sdk/amazon-bedrock',
    '@ai-sdk/mistral',
    '@ai-sdk/groq',
    '@ai-sdk/xai',
    '@ai-sdk/deepseek',
    '@ai-sdk/azure',
    '@ai-sdk/google-vertex',
    '@openrouter/ai-sdk-provider',
  ],
  langchain: [
    '@langchain/core',
    '@langchain/openai',
    '@langchain/anthropic',
    '@langchain/google-genai',
    '@langchain/aws',
    '@langchain/mistralai',
    '@langchain/groq',
  ],
};

/** What a path's call ended in: a classified error, or an answer nothing withheld. */
export type PathOutcome =
  | { readonly kind: 'error'; readonly error: FaultlineError }
  | { readonly kind: 'success' }
  | { readonly kind: 'hung' };

// Canaries, as the vendor drivers send: never real, and no report may carry them.
const KEY = 'sk-proj-faultlineCanary0000000000000000000000';
const AWS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const PROMPT = 'faultline demo prompt: say hello';

/** Groups whose users reach them with the provider's own package; every other OpenAI-shaped group is a compatible server. */
const OPENAI_GROUPS: ReadonlySet<string> = new Set(['openai', 'azure-openai']);

/** Whether the server never finishes its answer: only the caller's own time limit ends such a call. */
function silentServer(entry: ProviderCase): boolean {
  const response = entry.scenario.response;
  if (response.kind === 'socket') return response.behaviour === 'never-answer';
  if (response.kind === 'sse' || response.kind === 'aws-event-stream') return response.then === 'stall';
  return false;
}

/**
 * The time limit a user's app sets (an abort signal, or the client's timeout): short where the
 * server never answers (the timeout is what such a case plays), long enough elsewhere that a
 * busy machine cannot turn an answer into a timeout.
 */
const limitMs = (entry: ProviderCase): number => (silentServer(entry) ? 1500 : 10_000);

/**
 * Whether a case's API is one this path's clients speak: the AI SDK's and LangChain's clients here
 * call OpenAI-style `/v1/chat/completions` for a compatible server, not Ollama's native API
 * (`/api/chat`, NDJSON) that the ollama-js cases replay, nor Cohere's v2 API (`/v2/chat`). Their
 * native clients (`ollama-ai-provider-v2`, `@langchain/ollama`, `@ai-sdk/cohere`, `@langchain/cohere`)
 * are not in this tool yet, so those cases are scored on the vendor path only. The vendor path of an
 * MCP case is the MCP client (mcp.ts).
 */
export function pathCovers(path: CorpusPath, entry: LoadedCase): boolean {
  // An MCP case is a tool call between an MCP client and server: the MCP client is its only path.
  if (entry.kind === 'mcp') return path === 'vendor';
  return path === 'vendor' || (entry.sdk !== 'ollama' && entry.sdk !== 'cohere');
}

/**
 * The provider package a user of a gateway or platform installs for it (its own provider id and URL
 * shape), where one exists; else undefined and the case's SDK decides.
 */
function aiSdkGatewayModel(entry: ProviderCase, url: string): Exclude<LanguageModel, string> | undefined {
  switch (entry.group) {
    case 'xai':
      return createXai({ baseURL: `${url}/v1`, apiKey: KEY }).chat('grok-4');
    case 'deepseek':
      return createDeepSeek({ baseURL: url, apiKey: KEY })('deepseek-chat');
    case 'openrouter':
      return createOpenRouter({ baseURL: `${url}/api/v1`, apiKey: KEY }).chat('anthropic/claude-sonnet-4.5');
    case 'azure-openai':
      return createAzure({ baseURL: `${url}/openai/v1`, apiKey: KEY }).chat('gpt-4o-mini');
    case 'anthropic-vertex':
      return createVertexAnthropic({
        project: 'faultline-corpus',
        location: 'us-east5',
        baseURL: `${url}/v1/projects/faultline-corpus/locations/us-east5/publishers/anthropic/models`,
        generateAuthToken: async () => KEY,
      })('claude-sonnet-4-5@20250929');
    case 'google-genai':
      // Gemini on Vertex AI (express mode's API key; the project and region are in the base URL).
      return entry.scenario.api === 'vertex'
        ? createVertex({ apiKey: KEY, baseURL: `${url}/v1/publishers/google` })('gemini-2.5-flash')
        : undefined;
    default:
      return undefined;
  }
}

/** Groups whose AI SDK users call them through their own provider package rather than an OpenAI-compatible one. */
const GATEWAY_GROUPS: ReadonlySet<string> = new Set(['vercel-ai-gateway']);

/** The `@ai-sdk/*` model a user of this case's provider (or gateway) calls, at `url`. */
function aiSdkModel(entry: ProviderCase, url: string): Exclude<LanguageModel, string> {
  const gateway = aiSdkGatewayModel(entry, url);
  if (gateway !== undefined) return gateway;
  // The Vercel AI Gateway: `@ai-sdk/gateway` (what a model id string in `ai` resolves to), over
  // its own protocol; its vendor path is the OpenAI-compatible endpoint through the openai SDK.
  if (GATEWAY_GROUPS.has(entry.group))
    return createGateway({ baseURL: `${url}/v3/ai`, apiKey: KEY })('openai/gpt-4o-mini');
  switch (entry.sdk) {
    case 'anthropic':
      return createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })('claude-sonnet-4-6');
    case 'google-genai':
      return createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: KEY })('gemini-2.5-flash');
    case 'bedrock':
      return createAmazonBedrock({ ...AWS, region: 'us-east-1', baseURL: url })(
        'anthropic.claude-3-5-sonnet-20240620-v1:0',
      );
    case 'mistral':
      return createMistral({ baseURL: `${url}/v1`, apiKey: KEY })('mistral-small-latest');
    case 'groq':
      return createGroq({ baseURL: `${url}/openai/v1`, apiKey: KEY })('llama-3.3-70b-versatile');
    default:
      return OPENAI_GROUPS.has(entry.group)
        ? createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).chat('gpt-4o-mini')
        : createOpenAICompatible({ name: entry.group, baseURL: `${url}/v1`, apiKey: KEY })('gpt-4o-mini');
  }
}

/**
 * `generateText` (or `streamText`, its `fullStream` read through `guardAiSdkStream`) with the AI
 * SDK's retries off, what it threw classified by `classifyAiSdkError`, a withheld answer by
 * `detectAiSdkBlockedAnswer`.
 */
async function callAiSdk(entry: ProviderCase, servers: ScenarioServers): Promise<PathOutcome> {
  // The AI SDK's providers call fetch: every case (Bedrock's event streams too) over HTTP/1.1.
  const model = aiSdkModel(entry, servers.http1.baseUrlFor(entry.scenario));
  const provider = model.provider;
  const abortSignal = AbortSignal.timeout(limitMs(entry));
  try {
    if (entry.scenario.stream === true) {
      const result = streamText({
        model,
        prompt: PROMPT,
        maxRetries: 0,
        abortSignal,
        includeRawChunks: true,
        onError: () => undefined,
      });
      for await (const _part of guardAiSdkStream(result.fullStream, {
        provider,
        idleTimeoutMs: limitMs(entry),
      })) {
        // drained: the guard throws what the stream failed with
      }
      return { kind: 'success' };
    }
    const result = await generateText({ model, prompt: PROMPT, maxRetries: 0, abortSignal });
    const blocked = detectAiSdkBlockedAnswer(result);
    return blocked === undefined ? { kind: 'success' } : { kind: 'error', error: errorFromMetadata(blocked) };
  } catch (error) {
    return { kind: 'error', error: classifyAiSdkError(error, { provider }) };
  }
}

/** The LangChain chat model a user of this case's provider (or gateway) builds, at the case's server. */
function chatModel(entry: ProviderCase, servers: ScenarioServers): BaseChatModel {
  const timeout = limitMs(entry);
  switch (entry.sdk) {
    case 'anthropic':
      return new ChatAnthropic({
        model: 'claude-sonnet-4-6',
        apiKey: KEY,
        anthropicApiUrl: servers.http1.baseUrlFor(entry.scenario),
        maxRetries: 0,
      });
    case 'google-genai':
      return new ChatGoogleGenerativeAI({
        model: 'gemini-2.5-flash',
        apiKey: KEY,
        baseUrl: servers.http1.baseUrlFor(entry.scenario),
        maxRetries: 0,
      });
    case 'bedrock':
      // The AWS SDK reads event streams over HTTP/2, as the vendor path does.
      return new ChatBedrockConverse({
        model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
        region: 'us-east-1',
        client: new BedrockRuntimeClient({
          endpoint: servers.h2c.baseUrlFor(entry.scenario),
          region: 'us-east-1',
          credentials: AWS,
          maxAttempts: 1,
          requestHandler: { requestTimeout: timeout, connectionTimeout: timeout },
        }),
        maxRetries: 0,
      });
    case 'mistral':
      return new ChatMistralAI({
        model: 'mistral-small-latest',
        apiKey: KEY,
        serverURL: servers.http1.baseUrlFor(entry.scenario),
        maxRetries: 0,
      });
    case 'groq':
      return new ChatGroq({
        model: 'llama-3.3-70b-versatile',
        apiKey: KEY,
        baseUrl: servers.http1.baseUrlFor(entry.scenario),
        maxRetries: 0,
        timeout,
      });
    default:
      // OpenAI and every OpenAI-compatible server: ChatOpenAI with a base URL.
      return new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: KEY,
        configuration: { baseURL: `${servers.http1.baseUrlFor(entry.scenario)}/v1` },
        maxRetries: 0,
        timeout,
      });
  }
}

/**
 * `invoke` (or `stream`, through `guardLangChainStream`), what it threw classified by
 * `classifyLangChainError` with the model's `_llmType()`, a withheld answer by
 * `detectLangChainBlockedAnswer`.
 */
async function callLangChain(entry: ProviderCase, servers: ScenarioServers): Promise<PathOutcome> {
  const model = chatModel(entry, servers);
  const provider = model._llmType();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('timed out', 'TimeoutError')),
    limitMs(entry) + 1000,
  );
  const streaming = entry.scenario.stream === true;
  try {
    if (streaming) {
      for await (const _chunk of guardLangChainStream(model.stream(PROMPT, { signal: controller.signal }), {
        provider,
        idleTimeoutMs: limitMs(entry),
        onAbandon: () => controller.abort(),
      })) {
        // drained: the guard throws what the stream failed with
      }
      return { kind: 'success' };
    }
    const message = await model.invoke(PROMPT, { signal: controller.signal });
    const blocked = detectLangChainBlockedAnswer(message, provider);
    return blocked === undefined ? { kind: 'success' } : { kind: 'error', error: errorFromMetadata(blocked) };
  } catch (error) {
    return { kind: 'error', error: classifyLangChainError(error, { provider, streaming }) };
  } finally {
    clearTimeout(timer);
  }
}

/** How long after its time limit a call may take to settle before it counts as hung. */
const SETTLE_MS = 5000;

/**
 * Replays one case through an extra path against the loopback servers. A call that has not
 * settled well after its time limit (a client that ignores its abort) is `hung`: a miss, named.
 */
export async function callPath(
  path: Exclude<CorpusPath, 'vendor'>,
  entry: ProviderCase,
  servers: ScenarioServers,
): Promise<PathOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<PathOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'hung' }), limitMs(entry) + 1000 + SETTLE_MS);
  });
  try {
    const call = path === 'ai-sdk' ? callAiSdk(entry, servers) : callLangChain(entry, servers);
    return await Promise.race([call, bound]);
  } finally {
    clearTimeout(timer);
  }
}
