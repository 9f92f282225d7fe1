import type { HttpFailureReader, RateLimitBudget } from '@faultline/classify';
import {
  readHttpFailure as readAnthropicHttpFailure,
  readRateLimit as readAnthropicRateLimit,
} from '@faultline/extract-anthropic';
import { readHttpFailure as readBedrockHttpFailure } from '@faultline/extract-bedrock';
import { readHttpFailure as readCohereHttpFailure } from '@faultline/extract-cohere';
import { readHttpFailure as readGoogleGenaiHttpFailure } from '@faultline/extract-google-genai';
import {
  readHttpFailure as readGroqHttpFailure,
  readRateLimit as readGroqRateLimit,
} from '@faultline/extract-groq';
import { readHttpFailure as readHuggingfaceHttpFailure } from '@faultline/extract-huggingface';
import {
  readHttpFailure as readMistralHttpFailure,
  readRateLimit as readMistralRateLimit,
} from '@faultline/extract-mistral';
import { readHttpFailure as readOllamaHttpFailure } from '@faultline/extract-ollama';
import {
  readHttpFailure as readOpenAIHttpFailure,
  readRateLimit as readOpenAIRateLimit,
} from '@faultline/extract-openai';
import { readHttpFailure as readOpenRouterHttpFailure } from '@faultline/extract-openrouter';

/** A provider body reader: `readHttpFailure` of an extract package (classify's type). */
export type { HttpFailureReader };

/** The faultline providers whose body rules this package applies. */
export type AiSdkProvider =
  | 'openai'
  | 'anthropic'
  | 'google-genai'
  | 'bedrock'
  | 'mistral'
  | 'groq'
  | 'ollama'
  | 'cohere'
  | 'huggingface'
  | 'openrouter';

/** Each provider's reader (from its extract package: one set of body rules per provider). */
export const HTTP_FAILURE_READERS: Readonly<Record<AiSdkProvider, HttpFailureReader>> = {
  openai: readOpenAIHttpFailure,
  anthropic: readAnthropicHttpFailure,
  'google-genai': readGoogleGenaiHttpFailure,
  bedrock: readBedrockHttpFailure,
  mistral: readMistralHttpFailure,
  groq: readGroqHttpFailure,
  ollama: readOllamaHttpFailure,
  cohere: readCohereHttpFailure,
  huggingface: readHuggingfaceHttpFailure,
  openrouter: readOpenRouterHttpFailure,
};

/**
 * The AI SDK's provider ids (`model.provider`: `openai.chat`, `anthropic.messages`,
 * `google.generative-ai`, `google.vertex.chat`, `amazon-bedrock`, `mistral.chat`, `groq.chat`,
 * `azure.chat`, `xai.chat`, `deepseek.chat`, `openrouter.chat` ...) by their first segment.
 * OpenAI-compatible providers speak OpenAI's error body. `@ai-sdk/openai-compatible` names its
 * models after the user's own `name`, which says nothing: the request URL decides for those.
 */
/**
 * The providers whose answers state a rate-limit budget in headers, each read by its extract
 * package's `readRateLimit` (from a result's `response.headers`); the others send none
 * (providers.json's `lacks` says why for each).
 */
export const RATE_LIMIT_READERS: Readonly<
  Partial<Record<AiSdkProvider, (source: unknown) => RateLimitBudget | undefined>>
> = {
  openai: readOpenAIRateLimit,
  anthropic: readAnthropicRateLimit,
  mistral: readMistralRateLimit,
  groq: readGroqRateLimit,
};

const PROVIDER_BY_ID_PREFIX: Readonly<Record<string, AiSdkProvider>> = {
  openai: 'openai',
  azure: 'openai',
  'azure-openai': 'openai',
  // @openrouter/ai-sdk-provider: `openrouter.chat`, over OpenRouter's API and its
  // `{"error": {code, message, metadata}}` body (the upstream's words in metadata.raw).
  openrouter: 'openrouter',
  deepseek: 'openai',
  togetherai: 'openai',
  xai: 'openai',
  anthropic: 'anthropic',
  google: 'google-genai',
  'google-vertex': 'google-genai',
  vertex: 'google-genai',
  'amazon-bedrock': 'bedrock',
  bedrock: 'bedrock',
  mistral: 'mistral',
  groq: 'groq',
  // ollama-ai-provider(-v2): `ollama.chat`, over Ollama's native API and its `{"error"}` body.
  ollama: 'ollama',
  // @ai-sdk/cohere: `cohere.chat`, over Cohere's v2 API and its `{"id", "message"}` body.
  cohere: 'cohere',
  // The Vercel AI Gateway (`@ai-sdk/gateway`: `gateway`) answers errors in OpenAI's body shape.
  gateway: 'openai',
  // @ai-sdk/huggingface: `huggingface.responses`, over the Inference Providers router, whose bodies
  // are its flat `{"error"}` or the OpenAI-style object (readHuggingfaceHttpFailure reads both).
  huggingface: 'huggingface',
};

/**
 * Claude on Vertex AI (`@ai-sdk/google-vertex/anthropic`: `vertex.anthropic.messages`): Anthropic's
 * Messages API and its error bodies behind Google's host, not Gemini's.
 */
const VERTEX_ANTHROPIC_ID = /^(?:google\.)?vertex\.anthropic(?:\.|$)/;

/** Faultline's provider for an AI SDK provider id (`openai.chat` → `openai`), or `undefined`. */
export function providerFromId(providerId: unknown): AiSdkProvider | undefined {
  if (typeof providerId !== 'string' || providerId.length === 0 || providerId.length > 200) return undefined;
  const lower = providerId.toLowerCase();
  if ((Object.keys(HTTP_FAILURE_READERS) as string[]).includes(lower)) return lower as AiSdkProvider;
  if (VERTEX_ANTHROPIC_ID.test(lower)) return 'anthropic';
  const prefix = lower.split('.', 1)[0] ?? lower;
  return PROVIDER_BY_ID_PREFIX[prefix];
}

/** Hosts of the providers' public endpoints (and OpenAI-compatible ones that use OpenAI's body). */
const PROVIDER_BY_HOST: readonly (readonly [RegExp, AiSdkProvider])[] = [
  [
    /(^|\.)api\.openai\.com$|\.openai\.azure\.com$|\.cognitiveservices\.azure\.com$|\.services\.ai\.azure\.com$|(^|\.)api\.deepseek\.com$|(^|\.)api\.together\.xyz$|(^|\.)api\.x\.ai$|(^|\.)ai-gateway\.vercel\.sh$/,
    'openai',
  ],
  [/(^|\.)api\.anthropic\.com$/, 'anthropic'],
  [/(^|\.)generativelanguage\.googleapis\.com$|aiplatform\.googleapis\.com$/, 'google-genai'],
  [/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/, 'bedrock'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/(^|\.)api\.cohere\.(com|ai)$/, 'cohere'],
  [/(^|\.)openrouter\.ai$/, 'openrouter'],
  [/^(router|api-inference)\.huggingface\.co$|\.endpoints\.huggingface\.cloud$/, 'huggingface'],
];

/** Vertex AI's path of an Anthropic model (`…/publishers/anthropic/models/<model>:rawPredict`). */
const VERTEX_ANTHROPIC_PATH = /\/publishers\/anthropic\/models\/[^/]+:(?:stream)?rawpredict$/i;

/** API paths that name their provider wherever it is hosted (a proxy, a gateway, a local mock). */
const PROVIDER_BY_PATH: readonly (readonly [RegExp, AiSdkProvider])[] = [
  [/\/v1\/messages(\/|$|\?)/, 'anthropic'],
  [/:(stream)?generatecontent(\?|$)/i, 'google-genai'],
  [/\/model\/[^/]+\/(converse(-stream)?|invoke(-with-response-stream)?)(\?|$)/, 'bedrock'],
  [/\/openai\/v1\/|\/openai\/deployments\//, 'openai'],
];

/** Faultline's provider for a request URL (by host, then by API path), or `undefined`. Total. */
export function providerFromUrl(url: unknown): AiSdkProvider | undefined {
  if (typeof url !== 'string' || url.length === 0 || url.length > 8192) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.toLowerCase();
  // Claude on Vertex AI shares Gemini's host: the publisher in the path decides first.
  if (VERTEX_ANTHROPIC_PATH.test(parsed.pathname)) return 'anthropic';
  for (const [pattern, provider] of PROVIDER_BY_HOST) if (pattern.test(host)) return provider;
  for (const [pattern, provider] of PROVIDER_BY_PATH) if (pattern.test(parsed.pathname)) return provider;
  return undefined;
}
