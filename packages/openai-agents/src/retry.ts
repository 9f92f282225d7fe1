import type { FailureReason } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import { type FaultlineError, outputDelivered } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { type AgentsClassifyOptions, classifyChecked } from './classify-agents-error.ts';
import { RETRY_OPTION_KEYS } from './option-keys.ts';

// The shapes below are the parts of `@openai/agents`' `RetryPolicyContext`, `RetryDecision`,
// `ModelRetryAdviceRequest` and `ModelRetryAdvice` (0.7 and later) that faultline reads or writes,
// declared here so that this package's types need no `@openai/agents` installed to resolve, and so
// that one build serves every version whose runner has `modelSettings.retry`.

/** What the runner tells a retry policy about a failed model call (`RetryPolicyContext`). */
export interface AgentsRetryPolicyContext {
  readonly error: unknown;
  /** The 1-based number of the failed attempt. */
  readonly attempt: number;
  readonly maxRetries: number;
  /** The failed request was streamed. */
  readonly stream: boolean;
  readonly normalized: { readonly isAbort: boolean };
  /** The provider had begun its answer when the call failed (the runner's evidence, 0.16 and later). */
  readonly responseStarted?: boolean | undefined;
}

/** A retry policy's answer (`RetryDecision`, object form). */
export interface AgentsRetryDecision {
  retry: boolean;
  delayMs?: number;
  reason?: string;
}

/** What the runner hands a model's `getRetryAdvice` (`ModelRetryAdviceRequest`). */
export interface AgentsRetryAdviceRequest {
  readonly error: unknown;
  readonly stream: boolean;
  readonly attempt: number;
  readonly request?: unknown;
}

/** A model's advice on a failed call (`ModelRetryAdvice`). */
export interface AgentsRetryAdvice {
  suggested?: boolean;
  retryAfterMs?: number;
  reason?: string;
  replaySafety?: 'safe' | 'unsafe';
  responseStarted?: boolean;
  normalized?: { isAbort?: boolean };
}

/** Options of {@link faultlineRetryPolicy}, {@link faultlineRetryAdvice} and the model wrappers. */
export interface FaultlineRetryOptions extends Omit<AgentsClassifyOptions, 'streaming' | 'delivered'> {
  /**
   * A Retry-After longer than this (seconds) is not waited out: the call ends at once, the wait in
   * its report (as `withClassifiedErrors`' `retry` does). Default 60.
   */
  readonly maxRetryAfterSeconds?: number | undefined;
}

/**
 * Failures where the provider refused the request before doing any work (its 429 or 503, or a
 * connection that never opened): sending it again repeats nothing.
 */
const REFUSED: ReadonlySet<FailureReason> = new Set(['rate_limit', 'overloaded', 'connection']);

interface Verdict {
  readonly retry: boolean;
  readonly delayMs: number | undefined;
  readonly reason: string;
  readonly failure: FaultlineError;
}

function checkRetryOptions(scope: string, options: FaultlineRetryOptions): number {
  checkOptionKeys(scope, options, RETRY_OPTION_KEYS);
  const max = options.maxRetryAfterSeconds ?? 60;
  if (typeof max !== 'number' || !Number.isFinite(max) || max < 0)
    throw new TypeError(
      `${scope}: maxRetryAfterSeconds must be a finite number of seconds ≥ 0, got ${String(max)}`,
    );
  return max;
}

/**
 * faultline's one decision on a failed model call. Only a transient failure is retried (an
 * ambiguous one only with `idempotent: true`), never the caller's abort, never once the answer had
 * started (the user saw it), and a provider's wait is honoured unless it is longer than
 * `maxRetryAfterSeconds`. The reason names the classification, never the provider's words (they
 * reach the runner's logs).
 */
function decide(
  error: unknown,
  stream: boolean,
  aborted: boolean,
  started: boolean,
  options: FaultlineRetryOptions,
  maxWaitSeconds: number,
): Verdict {
  const { maxRetryAfterSeconds: _max, ...classifyOptions } = options;
  const failure = classifyChecked(error, { ...classifyOptions, streaming: stream });
  const { classification } = failure;
  const label = `faultline: ${classification.reason} (${classification.category})`;
  if (aborted || classification.callerAborted)
    return { retry: false, delayMs: undefined, reason: 'faultline: the caller aborted the call', failure };
  if (started || outputDelivered(failure.metadata?.delivered))
    return { retry: false, delayMs: undefined, reason: `${label}, after output was delivered`, failure };
  if (!classification.retryable)
    return { retry: false, delayMs: undefined, reason: `${label}, not retryable`, failure };
  const wait = classification.retryAfterSeconds;
  if (wait !== undefined && wait > maxWaitSeconds)
    return {
      retry: false,
      delayMs: undefined,
      reason: `${label}, the provider asks for ${wait} s (more than ${maxWaitSeconds} s)`,
      failure,
    };
  return {
    retry: true,
    delayMs: wait === undefined ? undefined : Math.ceil(wait * 1000),
    reason: label,
    failure,
  };
}

/**
 * A retry policy for `@openai/agents`' `modelSettings.retry.policy`, decided by faultline's
 * classification: a spent quota, a bad key or a context overflow is never retried (the OpenAI
 * provider's own advice suggests a retry on every 429), a rate limit waits its Retry-After, and an
 * abort or an answer that had started is not replayed. Without a delay of its own (no Retry-After)
 * the runner's backoff applies. Unknown option keys are a TypeError here.
 */
export function faultlineRetryPolicy(
  options: FaultlineRetryOptions = {},
): (context: AgentsRetryPolicyContext) => AgentsRetryDecision {
  const maxWaitSeconds = checkRetryOptions('faultlineRetryPolicy', options);
  return (context) => {
    const verdict = decide(
      safeGet(context, 'error'),
      safeGet(context, 'stream') === true,
      safeGet(safeGet(context, 'normalized'), 'isAbort') === true,
      safeGet(context, 'responseStarted') === true,
      options,
      maxWaitSeconds,
    );
    return verdict.retry && verdict.delayMs !== undefined
      ? { retry: true, delayMs: verdict.delayMs, reason: verdict.reason }
      : { retry: verdict.retry, reason: verdict.reason };
  };
}

/**
 * A model's `getRetryAdvice`, from faultline's classification: `suggested` is faultline's decision,
 * `retryAfterMs` the provider's wait, and `replaySafety` what the failure says of the request:
 * `safe` when the provider refused it before doing any work (a rate limit, an overload, a refused
 * connection), `unsafe` when it was cut after it was sent (`interrupted`, unless `idempotent`), so
 * that the runner itself refuses to replay a streamed call that broke off.
 */
export function faultlineRetryAdvice(
  options: FaultlineRetryOptions = {},
): (request: AgentsRetryAdviceRequest) => AgentsRetryAdvice {
  const maxWaitSeconds = checkRetryOptions('faultlineRetryAdvice', options);
  return (request) => adviceFor(request, options, maxWaitSeconds);
}

function adviceFor(
  request: AgentsRetryAdviceRequest,
  options: FaultlineRetryOptions,
  maxWaitSeconds: number,
): AgentsRetryAdvice {
  const signal = safeGet(safeGet(request, 'request'), 'signal');
  const verdict = decide(
    safeGet(request, 'error'),
    safeGet(request, 'stream') === true,
    false,
    false,
    signal instanceof AbortSignal && options.signal === undefined ? { ...options, signal } : options,
    maxWaitSeconds,
  );
  const { classification, metadata } = verdict.failure;
  if (classification.callerAborted)
    return { suggested: false, reason: verdict.reason, normalized: { isAbort: true } };
  const advice: AgentsRetryAdvice = { suggested: verdict.retry, reason: verdict.reason };
  if (verdict.delayMs !== undefined) advice.retryAfterMs = verdict.delayMs;
  if (REFUSED.has(classification.reason)) advice.replaySafety = 'safe';
  else if (classification.reason === 'interrupted' && options.idempotent !== true)
    advice.replaySafety = 'unsafe';
  if (outputDelivered(metadata?.delivered) || metadata?.networkPhase === 'stream')
    advice.responseStarted = true;
  return advice;
}

/**
 * The model with faultline's {@link faultlineRetryAdvice} as its `getRetryAdvice` (replacing the
 * provider's own), everything else the model's: a view of it, not a copy, with its methods called
 * on the model itself (the OpenAI models keep their client in private fields).
 */
export function withFaultlineRetryAdvice<M extends object>(model: M, options: FaultlineRetryOptions = {}): M {
  const maxWaitSeconds = checkRetryOptions('withFaultlineRetryAdvice', options);
  if (model === null || typeof model !== 'object')
    throw new TypeError(`withFaultlineRetryAdvice: expected a model object, got ${String(model)}`);
  return adviseModel(model, options, maxWaitSeconds);
}

function adviseModel<M extends object>(model: M, options: FaultlineRetryOptions, maxWaitSeconds: number): M {
  const getRetryAdvice = (request: AgentsRetryAdviceRequest): AgentsRetryAdvice =>
    adviceFor(request, options, maxWaitSeconds);
  return new Proxy(model, {
    get(target, key) {
      if (key === 'getRetryAdvice') return getRetryAdvice;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A model provider (`OpenAIProvider`, or any `ModelProvider`) whose models give faultline's
 * {@link faultlineRetryAdvice}. Give it to `new Runner({ modelProvider })`.
 */
export function faultlineModelProvider<P extends { getModel(modelName?: string): unknown }>(
  provider: P,
  options: FaultlineRetryOptions = {},
): P {
  const maxWaitSeconds = checkRetryOptions('faultlineModelProvider', options);
  if (
    provider === null ||
    typeof provider !== 'object' ||
    typeof safeGet(provider, 'getModel') !== 'function'
  )
    throw new TypeError('faultlineModelProvider: expected a model provider (an object with getModel)');
  const advise = (model: unknown): unknown =>
    model !== null && typeof model === 'object' ? adviseModel(model, options, maxWaitSeconds) : model;
  const getModel = (modelName?: string): unknown => {
    const model = provider.getModel(modelName);
    return model instanceof Promise ? model.then(advise) : advise(model);
  };
  return new Proxy(provider, {
    get(target, key) {
      if (key === 'getModel') return getModel;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
