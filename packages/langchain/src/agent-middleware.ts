import type { ClassificationOverride, FailureReason } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import type { RetryOptions } from '@faultline/render';
import { bindWithClassifiedErrors, checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import {
  type Candidate,
  type CandidateOutcome,
  checkFallbackOptions,
  type FallbackOptions,
  type HealthRegistry,
  runWithFallback,
} from '@faultline/resilience';
import {
  detectLangChainBlockedAnswer,
  langChainExtractorsFor,
  providerFromLlmType,
} from './classify-langchain-error.ts';

/** What the middleware reads of a chat model: LangChain's `BaseChatModel` (`_llmType()`, its model name). */
export interface AgentChatModelLike {
  _llmType(): string;
}

/** A fallback chat model with what the chain needs to know of it beyond the model. */
export interface FallbackChatModel<M extends AgentChatModelLike = AgentChatModelLike> {
  readonly model: M;
  /** The model's context window in tokens (default: the model's `profile.maxInputTokens`). */
  readonly contextWindow?: number | undefined;
  /** A label for the key the model is called with, never the key: `auth` moves only to another. */
  readonly credentialId?: string | undefined;
}

/** Options of {@link faultlineModelRetryMiddleware}. */
export interface FaultlineModelRetryOptions {
  /**
   * faultline's retries of each model call (3 attempts by default, Retry-After honoured, `unknown`
   * never retried; docs/retries.md); `false`: one attempt. Give the chat models `maxRetries: 0`.
   */
  readonly retry?: boolean | RetryOptions | undefined;
  /** Ambiguous failures (`interrupted`) may be retried. */
  readonly idempotent?: boolean | undefined;
  /**
   * Shared health (`@faultline/resilience`'s `HealthRegistry`): cooling keys, breakers, retry
   * budgets, across calls (and processes, with Redis). Default: one per process.
   */
  readonly registry?: HealthRegistry | undefined;
  /** The agent's own model: its window and credential label, as a fallback's. */
  readonly primary?: Omit<FallbackChatModel, 'model'> | undefined;
  readonly override?: ClassificationOverride | undefined;
  /** Each model's outcome as it is settled (a throwing listener is ignored). */
  readonly onOutcome?: ((outcome: CandidateOutcome, index: number) => void) | undefined;
}

/** Options of {@link faultlineModelFallbackMiddleware}. */
export interface FaultlineModelFallbackOptions extends FaultlineModelRetryOptions {
  /** The models to move on to after the agent's own, in order. */
  readonly models: readonly (AgentChatModelLike | FallbackChatModel)[];
  /** Turn rows of the taxonomy's fallback column on (`{ content_policy: true }`) or off (`{ rate_limit: false }`). */
  readonly fallbackOn?: Partial<Record<FailureReason, boolean>> | undefined;
  /** When only cooling keys are left, wait this long at most for the soonest. Default 10 000; 0 never waits. */
  readonly maxCooldownWaitMs?: number | undefined;
}

/**
 * The middleware `createAgent({ middleware: [...] })` takes (langchain 1's `AgentMiddleware`): a
 * `wrapModelCall` generic over the agent's request and message, so that no copy of langchain's
 * types is pinned here.
 */
export interface FaultlineAgentMiddleware {
  readonly name: string;
  wrapModelCall<R extends object, M>(request: R, handler: (request: R) => PromiseLike<M> | M): Promise<M>;
}

const RETRY_KEYS = {
  retry: true,
  idempotent: true,
  registry: true,
  primary: true,
  override: true,
  onOutcome: true,
} as const satisfies Record<keyof FaultlineModelRetryOptions, true>;

const FALLBACK_KEYS = {
  ...RETRY_KEYS,
  models: true,
  fallbackOn: true,
  maxCooldownWaitMs: true,
} as const satisfies Record<keyof FaultlineModelFallbackOptions, true>;

const CANDIDATE_KEYS = { model: true, contextWindow: true, credentialId: true } as const satisfies Record<
  keyof FallbackChatModel,
  true
>;

function invalid(scope: string, name: string, expected: string, value: unknown): TypeError {
  let shown: string;
  try {
    shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    shown = typeof value;
  }
  const error = new TypeError(`${scope}: ${name} must be ${expected} (got ${shown.slice(0, 60)})`);
  (error as TypeError & { code: string }).code = 'ERR_INVALID_ARG_VALUE';
  return error;
}

function isChatModel(value: unknown): value is AgentChatModelLike {
  return value !== null && typeof value === 'object' && typeof safeGet(value, '_llmType') === 'function';
}

interface Declared {
  readonly contextWindow: number | undefined;
  readonly credentialId: string | undefined;
}

function checkDeclared(scope: string, where: string, declared: unknown): Declared {
  if (declared === undefined) return { contextWindow: undefined, credentialId: undefined };
  if (declared === null || typeof declared !== 'object')
    throw invalid(scope, where, 'an object { contextWindow?, credentialId? }', declared);
  const { contextWindow, credentialId } = declared as Declared;
  if (
    contextWindow !== undefined &&
    (typeof contextWindow !== 'number' || !Number.isFinite(contextWindow) || contextWindow <= 0)
  )
    throw invalid(scope, `${where}.contextWindow`, 'a positive number of tokens', contextWindow);
  if (credentialId !== undefined && (typeof credentialId !== 'string' || credentialId.length === 0))
    throw invalid(scope, `${where}.credentialId`, 'a non-empty label', credentialId);
  return { contextWindow, credentialId };
}

interface Fallback extends Declared {
  readonly model: AgentChatModelLike;
}

function fallbackOf(scope: string, candidate: unknown, index: number): Fallback {
  const where = `models[${index}]`;
  if (isChatModel(candidate)) return { model: candidate, contextWindow: undefined, credentialId: undefined };
  if (typeof candidate === 'string')
    throw invalid(
      scope,
      where,
      'a chat model instance (`initChatModel(...)` gives one for a model string)',
      candidate,
    );
  if (candidate === null || typeof candidate !== 'object')
    throw invalid(scope, where, 'a chat model or { model, contextWindow?, credentialId? }', candidate);
  checkOptionKeys(scope, candidate, CANDIDATE_KEYS, where);
  const model = safeGet(candidate, 'model');
  if (!isChatModel(model)) throw invalid(scope, `${where}.model`, 'a LangChain chat model', model);
  return { model, ...checkDeclared(scope, where, candidate) };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The chat model's `_llmType()` (`openai`, `anthropic` ...), never throwing. */
function llmTypeOf(model: unknown): string | undefined {
  try {
    return text((model as AgentChatModelLike)._llmType());
  } catch {
    return undefined;
  }
}

/** The model name a chat model was built with (`model`, or the older `modelName`). */
function modelNameOf(model: unknown): string {
  return text(safeGet(model, 'model')) ?? text(safeGet(model, 'modelName')) ?? llmTypeOf(model) ?? 'unknown';
}

/** The context window a model's profile declares (LangChain 1's model profiles), if any. */
function profileWindow(model: unknown): number | undefined {
  const tokens = safeGet(safeGet(model, 'profile'), 'maxInputTokens');
  return typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0 ? tokens : undefined;
}

function middleware(
  scope: string,
  name: string,
  options: FaultlineModelFallbackOptions,
  fallbacks: readonly Fallback[],
): FaultlineAgentMiddleware {
  const primary = checkDeclared(scope, 'primary', options.primary);
  const chainOptions = (signal: AbortSignal | undefined): FallbackOptions => ({
    registry: options.registry,
    fallbackOn: options.fallbackOn,
    retry: options.retry,
    idempotent: options.idempotent,
    maxCooldownWaitMs: options.maxCooldownWaitMs,
    signal,
    operation: 'agent.model',
    family: 'completion',
    onOutcome: options.onOutcome,
  });
  checkFallbackOptions(chainOptions(undefined), scope);
  const candidateOf = <R extends object, M>(
    entry: Fallback,
    request: R,
    handler: (request: R) => PromiseLike<M> | M,
    replace: boolean,
  ): Candidate<M> => {
    const llmType = llmTypeOf(entry.model);
    return {
      provider: providerFromLlmType(llmType) ?? llmType ?? 'unknown',
      model: modelNameOf(entry.model),
      credentialId: entry.credentialId,
      contextWindow: entry.contextWindow ?? profileWindow(entry.model),
      withClassifiedErrors: bindWithClassifiedErrors({
        extractors: langChainExtractorsFor(llmType, undefined),
        override: options.override,
        inspectResult: (message: unknown) => detectLangChainBlockedAnswer(message, llmType),
      }),
      call: async () => await handler(replace ? { ...request, model: entry.model } : request),
    };
  };
  return {
    name,
    async wrapModelCall<R extends object, M>(request: R, handler: (request: R) => PromiseLike<M> | M) {
      const signal = safeGet(safeGet(request, 'runtime'), 'signal');
      return await runWithFallback(
        [
          candidateOf(
            { model: safeGet(request, 'model') as AgentChatModelLike, ...primary },
            request,
            handler,
            false,
          ),
          ...fallbacks.map((entry) => candidateOf(entry, request, handler, true)),
        ],
        chainOptions(signal instanceof AbortSignal ? signal : undefined),
      );
    },
  };
}

/**
 * langchain 1's agent middleware for `createAgent`, in the place of its `modelRetryMiddleware`:
 * each model call is retried when faultline's classification says a retry can help (transient,
 * after the provider's Retry-After; a spent quota, a bad request, an unknown failure never), through
 * the retry loop of every faultline entry point, with `@faultline/resilience`'s shared health
 * (a key a Retry-After cooled waits, an open breaker fails at once). What leaves is a
 * `FaultlineError` (a `FallbackChainError` whose cause is the model's classified error, whose cause
 * is the SDK's). Give the chat model `maxRetries: 0`.
 */
export function faultlineModelRetryMiddleware(
  options: FaultlineModelRetryOptions = {},
): FaultlineAgentMiddleware {
  const scope = 'faultlineModelRetryMiddleware';
  if (options === null || typeof options !== 'object') throw invalid(scope, 'options', 'an object', options);
  checkOptionKeys(scope, options, RETRY_KEYS);
  checkOptionKeys(scope, options.retry, RETRY_OPTION_KEYS, 'retry');
  return middleware(scope, 'faultlineModelRetryMiddleware', options as FaultlineModelFallbackOptions, []);
}

/**
 * langchain 1's agent middleware for `createAgent`, in the place of its `modelFallbackMiddleware`
 * (which moves on after any error): the agent's model, then `models` in order, moved on as
 * faultline's taxonomy says (`@faultline/resilience`'s fallback policy: a spent quota or an
 * overload moves on, `context_overflow` only to a larger window, `auth` only to another
 * credential, a bad request never), each model retried first as {@link faultlineModelRetryMiddleware}
 * does. When every model fails, a `FallbackChainError` with each model's outcome.
 */
export function faultlineModelFallbackMiddleware(
  options: FaultlineModelFallbackOptions,
): FaultlineAgentMiddleware {
  const scope = 'faultlineModelFallbackMiddleware';
  if (options === null || typeof options !== 'object')
    throw invalid(scope, 'options', 'an object with models', options);
  checkOptionKeys(scope, options, FALLBACK_KEYS);
  checkOptionKeys(scope, options.retry, RETRY_OPTION_KEYS, 'retry');
  if (!Array.isArray(options.models) || options.models.length === 0)
    throw invalid(scope, 'models', 'a non-empty array of chat models', options.models);
  const fallbacks = options.models.map((candidate, index) => fallbackOf(scope, candidate, index));
  return middleware(scope, 'faultlineModelFallbackMiddleware', options, fallbacks);
}
