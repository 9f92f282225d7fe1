import type { HttpFailure, HttpFailureReadOptions, ProviderErrorMetadata } from '@faultline/classify';
import { readHttpFailure as readAnthropicHttpFailure } from '@faultline/extract-anthropic';
import { readHttpFailure as readBedrockHttpFailure } from '@faultline/extract-bedrock';
import { readHttpFailure as readGoogleGenaiHttpFailure } from '@faultline/extract-google-genai';
import { readHttpFailure as readGroqHttpFailure } from '@faultline/extract-groq';
import { readHttpFailure as readHuggingfaceHttpFailure } from '@faultline/extract-huggingface';
import { readHttpFailure as readMistralHttpFailure } from '@faultline/extract-mistral';
import { readHttpFailure as readOllamaHttpFailure } from '@faultline/extract-ollama';
import { readHttpFailure as readOpenAIHttpFailure } from '@faultline/extract-openai';

/** A provider body reader: `read<Provider>HttpFailure` of an extract package. */
export type HttpFailureReader = (
  response: HttpFailure,
  options?: HttpFailureReadOptions,
) => ProviderErrorMetadata;

/** The faultline providers whose body rules this package applies. */
export type AiSdkProvider =
  | 'openai'
  | 'anthropic'
  | 'google-genai'
  | 'bedrock'
  | 'mistral'
  | 'groq'
  | 'ollama'
  | 'huggingface';

/** Each provider's reader (from its extract package: one set of body rules per provider). */
export const HTTP_FAILURE_READERS: Readonly<Record<AiSdkProvider, HttpFailureReader>> = {
  openai: readOpenAIHttpFailure,
  anthropic: readAnthropicHttpFailure,
  'google-genai': readGoogleGenaiHttpFailure,
  bedrock: readBedrockHttpFailure,
  mistral: readMistralHttpFailure,
  groq: readGroqHttpFailure,
  ollama: readOllamaHttpFailure,
  huggingface: readHuggingfaceHttpFailure,
};

/**
 * The AI SDK's provider ids (`model.provider`: `openai.chat`, `anthropic.messages`,
 * `google.generative-ai`, `google.vertex.chat`, `amazon-bedrock`, `mistral.chat`, `groq.chat`,
 * `azure.chat` ...) by their first segment. OpenAI-compatible providers speak OpenAI's error body.
 */
const PROVIDER_BY_ID_PREFIX: Readonly<Record<string, AiSdkProvider>> = {
  openai: 'openai',
  azure: 'openai',
  'azure-openai': 'openai',
  openrouter: 'openai',
  deepseek: 'openai',
  togetherai: 'openai',
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
  // @ai-sdk/huggingface: `huggingface.responses`, over the Inference Providers router, whose bodies
  // are its flat `{"error"}` or the OpenAI-style object (readHuggingfaceHttpFailure reads both).
  huggingface: 'huggingface',
};

/** Faultline's provider for an AI SDK provider id (`openai.chat` → `openai`), or `undefined`. */
export function providerFromId(providerId: unknown): AiSdkProvider | undefined {
  if (typeof providerId !== 'string' || providerId.length === 0 || providerId.length > 200) return undefined;
  const lower = providerId.toLowerCase();
  if ((Object.keys(HTTP_FAILURE_READERS) as string[]).includes(lower)) return lower as AiSdkProvider;
  const prefix = lower.split('.', 1)[0] ?? lower;
  return PROVIDER_BY_ID_PREFIX[prefix];
}

/** Hosts of the providers' public endpoints (and OpenAI-compatible ones that use OpenAI's body). */
const PROVIDER_BY_HOST: readonly (readonly [RegExp, AiSdkProvider])[] = [
  [
    /(^|\.)api\.openai\.com$|\.openai\.azure\.com$|\.cognitiveservices\.azure\.com$|(^|\.)openrouter\.ai$|(^|\.)api\.deepseek\.com$|(^|\.)api\.together\.xyz$/,
    'openai',
  ],
  [/(^|\.)api\.anthropic\.com$/, 'anthropic'],
  [/(^|\.)generativelanguage\.googleapis\.com$|aiplatform\.googleapis\.com$/, 'google-genai'],
  [/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/, 'bedrock'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/^(router|api-inference)\.huggingface\.co$|\.endpoints\.huggingface\.cloud$/, 'huggingface'],
];

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
  for (const [pattern, provider] of PROVIDER_BY_HOST) if (pattern.test(host)) return provider;
  for (const [pattern, provider] of PROVIDER_BY_PATH) if (pattern.test(parsed.pathname)) return provider;
  return undefined;
}
