import type { Extractor, ProviderErrorMetadata } from '@faultline/classify';
import {
  causeChain,
  constructorName,
  type ExtractContext,
  messageOf,
  prototypeNames,
  safeGet,
  safeHasOwn,
  safeStatus,
} from '@faultline/classify/toolkit';
import {
  extractor as anthropicExtractor,
  detectBlockedAnswer as detectAnthropicRefusal,
} from '@faultline/extract-anthropic';
import {
  extractor as bedrockExtractor,
  detectBlockedAnswer as detectBedrockBlockedAnswer,
} from '@faultline/extract-bedrock';
import { extractor as cohereExtractor } from '@faultline/extract-cohere';
import {
  detectBlockedAnswer as detectGeminiBlockedAnswer,
  extractor as googleGenaiExtractor,
  googleGenaiTransportExtractor,
  readHttpFailure as readGoogleGenaiHttpFailure,
} from '@faultline/extract-google-genai';
import { extractor as groqExtractor } from '@faultline/extract-groq';
import { extractor as huggingfaceExtractor } from '@faultline/extract-huggingface';
import { extractor as mistralExtractor } from '@faultline/extract-mistral';
import { extractor as ollamaExtractor } from '@faultline/extract-ollama';
import {
  detectBlockedAnswer as detectOpenAIBlockedAnswer,
  extractor as openaiExtractor,
} from '@faultline/extract-openai';
import {
  detectBlockedAnswer as detectOpenRouterBlockedAnswer,
  extractor as openrouterExtractor,
} from '@faultline/extract-openrouter';
import { type ClassifyErrorOptions, classifyError, type FaultlineError } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { LANGCHAIN_CLASSIFY_OPTION_KEYS, LANGCHAIN_EXTRACTOR_OPTION_KEYS } from './option-keys.ts';

/** The faultline providers LangChain's chat models reach. */
export type LangChainProvider =
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

/** The provider SDK extractors, each duck-typed: it claims only its own SDK's errors. */
export const PROVIDER_EXTRACTORS: Readonly<Record<LangChainProvider, readonly Extractor[]>> = {
  openai: [openaiExtractor],
  anthropic: [anthropicExtractor],
  'google-genai': [googleGenaiExtractor],
  bedrock: [bedrockExtractor],
  mistral: [mistralExtractor],
  groq: [groqExtractor],
  // @langchain/ollama's ChatOllama calls through ollama-js: its errors are ollama-js's.
  ollama: [ollamaExtractor],
  // @langchain/cohere's ChatCohere calls through cohere-ai: its errors are cohere-ai's.
  cohere: [cohereExtractor],
  // @langchain/community's HuggingFaceInference (and ChatHuggingFace over it) call through
  // @huggingface/inference: its errors are that SDK's.
  huggingface: [huggingfaceExtractor],
  // @openrouter/sdk's errors, for a chat model that calls OpenRouter through its own SDK (ChatOpenAI
  // with OpenRouter's base URL throws the openai SDK's, read by the openai extractor).
  openrouter: [openrouterExtractor],
};
const ORDER: readonly LangChainProvider[] = [
  'groq',
  'anthropic',
  'openai',
  'mistral',
  'bedrock',
  'google-genai',
  'ollama',
  'cohere',
  'huggingface',
  'openrouter',
];

/**
 * The provider of a LangChain chat model, from its `_llmType()` (`openai`, `anthropic`,
 * `google_genai`, `amazon_bedrock_converse`, `mistral`, `groq`, `azure_openai` ...) or a faultline
 * provider name. `undefined` for anything else.
 */
export function providerFromLlmType(llmType: unknown): LangChainProvider | undefined {
  if (typeof llmType !== 'string' || llmType.length > 100) return undefined;
  const type = llmType.toLowerCase();
  if (type === 'google-genai' || type.startsWith('google')) return 'google-genai';
  if (type.includes('bedrock')) return 'bedrock';
  if (type.includes('anthropic')) return 'anthropic';
  if (type.includes('mistral')) return 'mistral';
  if (type.includes('groq')) return 'groq';
  if (type.includes('ollama')) return 'ollama';
  if (type.includes('cohere')) return 'cohere';
  if (type === 'hf' || type.includes('huggingface')) return 'huggingface';
  if (type.includes('openrouter')) return 'openrouter';
  if (type.includes('openai')) return 'openai';
  return undefined;
}

/**
 * `@google/generative-ai` (what `@langchain/google-genai` calls) throws
 * `GoogleGenerativeAIFetchError`: `status`, `statusText`, `errorDetails` (the body's `details`) and
 * the message "[GoogleGenerativeAI Error]: Error fetching from <url>: [<status> <text>] <message>".
 * Its body is put back together ({ error: { code, message, details } }) and read with the Gemini
 * body rules (`readGoogleGenaiHttpFailure`, the same as @google/genai's extractor).
 */
function fromGenerativeAiFetchError(error: unknown, now: number): ProviderErrorMetadata | undefined {
  // LangChain renames the error (`name` "RateLimitQuotaExhaustedError" ...): read the class and its fields.
  const isFetchError =
    constructorName(error) === 'GoogleGenerativeAIFetchError' ||
    prototypeNames(error).includes('GoogleGenerativeAIFetchError') ||
    (safeHasOwn(error, 'status') && safeHasOwn(error, 'statusText') && safeHasOwn(error, 'errorDetails'));
  if (!isFetchError) return undefined;
  const status = safeStatus(safeGet(error, 'status'));
  if (status === undefined) return undefined;
  const details = safeGet(error, 'errorDetails');
  let message = /\] ([\s\S]*)$/.exec(messageOf(error, 64 * 1024))?.[1] ?? '';
  // The SDK appends the details' JSON to the message: they are read as details, not as words.
  if (Array.isArray(details)) {
    const suffix = ` ${stringify(details)}`;
    if (message.endsWith(suffix)) message = message.slice(0, -suffix.length);
  }
  const body = stringify({
    error: { code: status, message, ...(Array.isArray(details) ? { details: details.slice(0, 50) } : {}) },
  });
  return readGoogleGenaiHttpFailure({ status, body }, { now, sdkErrorType: 'GoogleGenerativeAIFetchError' });
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/**
 * `@google/generative-ai`'s other errors: `GoogleGenerativeAIResponseError` (a blocked prompt or
 * answer: "[GoogleGenerativeAI Error]: Candidate was blocked due to SAFETY") and a plain
 * `GoogleGenerativeAIError` ("Error fetching from <url>: fetch failed", the transport failure in
 * its cause).
 */
function fromGenerativeAiError(
  error: unknown,
  signal: AbortSignal | undefined,
): ProviderErrorMetadata | undefined {
  const names = [constructorName(error), ...prototypeNames(error)];
  if (names.includes('GoogleGenerativeAIResponseError')) {
    const message = messageOf(error, 1000).replace(/^\[GoogleGenerativeAI Error\]: /, '');
    return {
      provider: 'google-genai',
      sdkErrorType: 'GoogleGenerativeAIResponseError',
      message,
      origin: 'blocked_response',
      blockReason: /due to ([A-Z_]+)/.exec(message)?.[1] ?? 'blocked',
    };
  }
  if (names.includes('EmptyContentError')) {
    // @langchain/google-genai's own error for an answer without content. It keeps Gemini's
    // `blockReason` (promptFeedback) and `finishReason` (the candidate's) as fields: put back as
    // the answer Gemini sent, they are read by Gemini's own rules (which reasons withhold it).
    const text = messageOf(error, 1000);
    const blockReason = stringField(error, 'blockReason') ?? /Block reason: ([A-Z_]+)/.exec(text)?.[1];
    const finishReason = stringField(error, 'finishReason') ?? /Finish reason: ([A-Z_]+)/.exec(text)?.[1];
    const withheld = detectGeminiBlockedAnswer({
      ...(blockReason === undefined ? {} : { promptFeedback: { blockReason } }),
      ...(finishReason === undefined ? {} : { candidates: [{ finishReason }] }),
    });
    if (withheld !== undefined) return Object.assign({}, withheld, { sdkErrorType: 'EmptyContentError' });
    if (finishReason === undefined) return undefined;
    // A candidate that ended without content for another reason (a thinking model's token budget
    // spent on reasoning, a malformed tool call): the same request ends the same way.
    return {
      provider: 'google-genai',
      sdkErrorType: 'EmptyContentError',
      message: `Gemini returned no content (finishReason ${finishReason}).`,
      origin: 'validation',
      providerCode: finishReason,
    };
  }
  if (!names.includes('GoogleGenerativeAIError')) return undefined;
  if (/Error reading from the stream|Failed to parse stream/.test(messageOf(error, 500))) {
    // The SDK's stream reader failed part-way (a cut connection), or the body ended with text that
    // is not a whole `data:` event (a line cut short, an error body sent without the event
    // framing, which the SDK drops unread): the answer was interrupted.
    return {
      provider: 'google-genai',
      sdkErrorType: 'GoogleGenerativeAIError',
      message: 'The Gemini stream broke off part-way.',
      origin: 'network',
      networkPhase: 'stream',
    };
  }
  // "Error fetching from <url>: <the fetch error's message>": the SDK keeps only the message of
  // the transport error (not its cause, so not its code).
  const message = messageOf(error, 2000);
  const what = /Error fetching from \S+: ([\s\S]*)$/.exec(message)?.[1];
  if (what === undefined) return undefined;
  const base = { provider: 'google-genai', sdkErrorType: 'GoogleGenerativeAIError' } as const;
  if (/aborted|abort/i.test(what)) {
    return signal?.aborted === true
      ? // Object.assign, not `{ ...base, … }`: on Node 20 a spread followed by added keys costs ~1 µs.
        Object.assign({}, base, { message: what, origin: 'abort' } as const)
      : Object.assign({}, base, { message: what, origin: 'timeout', networkPhase: 'unknown' } as const);
  }
  if (/fetch failed|terminated|socket|ECONN|network/i.test(what)) {
    return {
      ...base,
      message: `The request to Gemini failed: ${what}`,
      origin: 'network',
      networkPhase: 'unknown',
    };
  }
  return undefined;
}

/** What `@langchain/core`'s `addLangChainErrorFields` appends to the message of an error it hands on. */
const TROUBLESHOOTING_SUFFIX = /\n\nTroubleshooting URL: \S{1,500}\n?$/;

/**
 * The SDK's error as the SDK built it. LangChain hands the provider SDK's error on after editing it
 * in place: `lc_error_code` added, `name` changed, and a troubleshooting URL appended to `message`.
 * That suffix hides the text the SDK put there (openai's `429 "<body>"` for a string error, which its
 * extractor reads as the body's words): a copy with the SDK's own message (same prototype, same
 * fields) is read instead. The error itself is never touched. Anything else is returned as is.
 */
function asSdkBuiltIt(error: unknown): unknown {
  if (error === null || typeof error !== 'object') return error;
  if (typeof safeGet(error, 'lc_error_code') !== 'string') return error;
  const message = safeGet(error, 'message');
  if (typeof message !== 'string' || !TROUBLESHOOTING_SUFFIX.test(message)) return error;
  try {
    const descriptors = Object.getOwnPropertyDescriptors(error);
    descriptors.message = {
      value: message.replace(TROUBLESHOOTING_SUFFIX, ''),
      writable: true,
      enumerable: false,
      configurable: true,
    };
    return Object.create(Object.getPrototypeOf(error) as object | null, descriptors) as unknown;
  } catch {
    return error;
  }
}

function stringField(value: unknown, key: string): string | undefined {
  const field = safeGet(value, key);
  return typeof field === 'string' && /^[A-Z_]{1,64}$/.test(field) ? field : undefined;
}

function nowOf(context: ExtractContext): number {
  try {
    return context.now?.() ?? Date.now();
  } catch {
    return Date.now();
  }
}

/**
 * An extractor for what LangChain's chat models throw. LangChain hands on the provider SDK's
 * error (adding `lc_error_code`), or wraps it (`ContextOverflowError`, a `TimeoutError`, the
 * original as `cause`): the cause chain is read, link by link, with the provider SDKs' own
 * extractors (the model's provider first), and `@google/generative-ai`'s errors with the Gemini
 * body rules. Total.
 */
export function createLangChainExtractor(options: { provider?: string | undefined } = {}): Extractor {
  checkOptionKeys('createLangChainExtractor', options, LANGCHAIN_EXTRACTOR_OPTION_KEYS);
  const hint = providerFromLlmType(options.provider);
  const order = hint === undefined ? ORDER : [hint, ...ORDER.filter((provider) => provider !== hint)];
  const extractors = order.flatMap((provider) => PROVIDER_EXTRACTORS[provider]);
  return Object.freeze({
    provider: hint ?? 'langchain',
    extract(error: unknown, context: ExtractContext = {}): ProviderErrorMetadata | undefined {
      try {
        for (const original of causeChain(error, 6)) {
          const link = asSdkBuiltIt(original);
          const google =
            fromGenerativeAiFetchError(link, nowOf(context)) ?? fromGenerativeAiError(link, context.signal);
          if (google !== undefined) return google;
          for (const extractor of extractors) {
            const metadata = extractor.extract(link, context);
            if (metadata !== undefined) return metadata;
          }
          if (hint === 'google-genai') {
            const transport = googleGenaiTransportExtractor.extract(link, context);
            if (transport !== undefined) return transport;
          }
        }
        return undefined;
      } catch {
        return undefined;
      }
    },
  });
}

export interface LangChainClassifyOptions extends Omit<ClassifyErrorOptions, 'extractors'> {
  /** The chat model's `_llmType()` or a faultline provider name: its SDK's extractor runs first. */
  readonly provider?: string | undefined;
  readonly extractors?: readonly Extractor[] | undefined;
}

const cache = new Map<string, Extractor>();

function extractorFor(provider: string | undefined): Extractor {
  const key = provider ?? '';
  let extractor = cache.get(key);
  if (extractor === undefined) {
    extractor = createLangChainExtractor({ provider });
    if (cache.size < 64) cache.set(key, extractor);
  }
  return extractor;
}

/**
 * Classifies anything a LangChain chat model (or a chain, agent or LangGraph node calling one)
 * threw into a `FaultlineError`, with the verdict the provider SDK's own error gets. Total.
 */
export function classifyLangChainError(
  thrown: unknown,
  options: LangChainClassifyOptions = {},
): FaultlineError {
  checkOptionKeys('classifyLangChainError', options, LANGCHAIN_CLASSIFY_OPTION_KEYS);
  const error = unwrapAgentError(thrown);
  const { provider, extractors, ...rest } = options;
  const resolved = providerFromLlmType(provider);
  return classifyError(error, {
    ...(rest as ClassifyErrorOptions),
    ...(resolved === undefined ? {} : { provider: resolved }),
    extractors: langChainExtractorsFor(provider, extractors),
  });
}

/**
 * What a langchain 1 agent's `MiddlewareError` carries: the agent wraps whatever a middleware (or
 * the model call inside it) threw, keeping it whole as `cause` and copying only its name and
 * message. The failure is the one inside: a classified error as it is (a fallback chain's outcomes
 * included), an SDK error read by its own rules.
 */
function unwrapAgentError(error: unknown): unknown {
  let link = error;
  for (let depth = 0; depth < 8; depth++) {
    if (safeGet(link, '~brand') !== 'MiddlewareError') return link;
    const cause = safeGet(link, 'cause');
    if (cause === undefined || cause === null) return link;
    link = cause;
  }
  return link;
}

/** The LangChain extractor for a provider hint, then the caller's (shared with the stream guard). */
export function langChainExtractorsFor(
  provider: string | undefined,
  extractors: readonly Extractor[] | undefined,
): Extractor[] {
  return [extractorFor(provider), ...(extractors ?? [])];
}

/**
 * An answer a LangChain chat model returned although the provider withheld it, read from the
 * message's `response_metadata` with the provider packages' own detectors: Anthropic
 * `stop_reason: "refusal"`, Bedrock Converse `stopReason` `guardrail_intervened` /
 * `content_filtered`, Gemini's blocking `finishReason`, OpenAI's `finish_reason: "content_filter"`.
 * Metadata with origin `blocked_response` (classified `content_policy`), else `undefined`. Total.
 */
export function detectLangChainBlockedAnswer(
  message: unknown,
  provider?: string | undefined,
): ProviderErrorMetadata | undefined {
  try {
    const metadata = safeGet(message, 'response_metadata');
    // @langchain/anthropic's stream chunks carry the message_delta's `stop_reason` in
    // `additional_kwargs` (their `response_metadata` is empty); its whole answers, in
    // `response_metadata`. Put back as the message Anthropic sent, it is read by its own rules.
    const streamStop = safeGet(safeGet(message, 'additional_kwargs'), 'stop_reason');
    const hasMetadata = metadata !== null && typeof metadata === 'object';
    if (!hasMetadata && typeof streamStop !== 'string') return undefined;
    const hint = providerFromLlmType(provider);
    const detectors: Record<LangChainProvider, () => ProviderErrorMetadata | undefined> = {
      anthropic: () =>
        (hasMetadata ? detectAnthropicRefusal(metadata) : undefined) ??
        (typeof streamStop === 'string'
          ? detectAnthropicRefusal({ type: 'message', stop_reason: streamStop })
          : undefined),
      bedrock: () => detectBedrockBlockedAnswer(metadata),
      'google-genai': () => {
        const finishReason = safeGet(metadata, 'finishReason');
        return finishReason === undefined
          ? undefined
          : detectGeminiBlockedAnswer({ candidates: [{ finishReason }] });
      },
      openai: () => {
        const finishReason = safeGet(metadata, 'finish_reason');
        return finishReason === undefined
          ? undefined
          : detectOpenAIBlockedAnswer({ choices: [{ index: 0, finish_reason: finishReason, message: {} }] });
      },
      mistral: () => undefined,
      groq: () => undefined,
      ollama: () => undefined,
      cohere: () => undefined,
      huggingface: () => undefined,
      openrouter: () => {
        const finishReason = safeGet(metadata, 'finish_reason') ?? safeGet(metadata, 'finishReason');
        return finishReason === undefined
          ? undefined
          : detectOpenRouterBlockedAnswer({ choices: [{ finish_reason: finishReason }] });
      },
    };
    const order = hint === undefined ? ORDER : [hint];
    for (const name of order) {
      const blocked = detectors[name]();
      if (blocked !== undefined) return blocked;
    }
    return undefined;
  } catch {
    return undefined;
  }
}
