import { type FailureReason, TAXONOMY } from '@faultline/classify';
import { invalidOption, safeGet } from '@faultline/classify/toolkit';
import { type ErrorReport, type FaultlineError, outputDelivered } from '@faultline/render';
import { checkOptionKeys, isSignalOption, settledBy } from '@faultline/render/toolkit';
import { classifyLangChainError, type LangChainClassifyOptions } from './classify-langchain-error.ts';
import {
  CALLBACK_HANDLER_OPTION_KEYS,
  checkShouldFallBackKeys,
  INVOKE_WITH_FALLBACKS_OPTION_KEYS,
  LANGCHAIN_CLASSIFY_OPTION_KEYS,
  ON_FAILED_ATTEMPT_OPTION_KEYS,
} from './option-keys.ts';

/**
 * A retry predicate for LangGraph's `RetryPolicy.retryOn` and anything else that asks "retry
 * this?": true only when faultline's classification says a retry can help (transient; an
 * ambiguous failure only with `idempotent: true`). `unknown` is never retried, unlike LangChain's
 * default, which retries every error but a short list of statuses.
 */
export function faultlineRetryOn(options: LangChainClassifyOptions = {}): (error: unknown) => boolean {
  checkOptionKeys('faultlineRetryOn', options, LANGCHAIN_CLASSIFY_OPTION_KEYS);
  return (error) => {
    const failure = classifyLangChainError(error, options);
    return failure.classification.retryable && !failure.classification.callerAborted;
  };
}

export interface OnFailedAttemptOptions extends LangChainClassifyOptions {
  /**
   * The `stopAfterAttempt` given to `withRetry` (LangChain's default is 3). LangChain tells its
   * `onFailedAttempt` neither the attempt nor the attempts left (@langchain/core 1): with this, the
   * last failed attempt of a call is thrown classified too, instead of the SDK's own error that
   * LangChain throws once its attempts run out. Attempts are counted per call by its input (an
   * object, by identity; a string or number, by value).
   */
  readonly stopAfterAttempt?: number | undefined;
}

/** Failed attempts so far, per call (its input); a call's entry goes once its last attempt failed. */
class AttemptCounter {
  private readonly byObject = new WeakMap<object, number>();
  private readonly byValue = new Map<unknown, number>();

  /** This failure's attempt number for the call whose input is `input`. */
  next(input: unknown, last: number): number {
    const keyed = input !== null && (typeof input === 'object' || typeof input === 'function');
    const count = (keyed ? this.byObject.get(input as object) : this.byValue.get(input)) ?? 0;
    const attempt = count + 1;
    if (attempt >= last) {
      if (keyed) this.byObject.delete(input as object);
      else this.byValue.delete(input);
    } else if (keyed) this.byObject.set(input as object, attempt);
    else if (this.byValue.size < 1024 || this.byValue.has(input)) this.byValue.set(input, attempt);
    return attempt;
  }
}

/**
 * An `onFailedAttempt` for LangChain's `runnable.withRetry({ stopAfterAttempt, onFailedAttempt })`:
 * throws the classified error (which stops LangChain's retries) when a retry cannot help, and
 * returns (so LangChain retries) when it can. Given `stopAfterAttempt`, the last attempt's failure
 * is thrown classified as well, so what leaves `withRetry` is always a
 * `FaultlineError` whose cause is the SDK's error.
 */
export function faultlineOnFailedAttempt(
  options: OnFailedAttemptOptions = {},
): (error: unknown, input?: unknown) => void {
  checkOptionKeys('faultlineOnFailedAttempt', options, ON_FAILED_ATTEMPT_OPTION_KEYS);
  const { stopAfterAttempt, ...classifyOptions } = options;
  if (
    stopAfterAttempt !== undefined &&
    (typeof stopAfterAttempt !== 'number' || !Number.isInteger(stopAfterAttempt) || stopAfterAttempt < 1)
  )
    throw new TypeError(
      `faultlineOnFailedAttempt: stopAfterAttempt must be a whole number ≥ 1, got ${String(stopAfterAttempt)}`,
    );
  const counter = stopAfterAttempt === undefined ? undefined : new AttemptCounter();
  return (error, input) => {
    const failure = classifyLangChainError(error, classifyOptions);
    if (!failure.classification.retryable || failure.classification.callerAborted) throw failure;
    // @langchain/core 0.3's p-retry marks the error itself with the retries left.
    const retriesLeft = safeGet(error, 'retriesLeft');
    const attempt = counter?.next(input, stopAfterAttempt ?? 1);
    if (retriesLeft === 0 || (attempt !== undefined && attempt >= (stopAfterAttempt ?? 1))) throw failure;
  };
}

/** Options of {@link shouldFallBack}: `fallbackOn` and `fallbackAfterOutput` as in `@faultline/resilience`'s chains. */
export interface ShouldFallBackOptions extends LangChainClassifyOptions {
  /**
   * Turn rows of the taxonomy's fallback column on (`{ content_policy: true }`) or off
   * (`{ rate_limit: false }`). The rows that move on only to a model that qualifies
   * (`context_overflow`: a larger window; `auth`, `permission`: another credential or provider) need
   * your word that your fallbacks do (`{ context_overflow: true }`): this predicate cannot see them.
   */
  readonly fallbackOn?: Partial<Record<FailureReason, boolean>> | undefined;
  /** Move on after a failure that had already delivered output (a stream cut mid-answer). Default false. */
  readonly fallbackAfterOutput?: boolean | undefined;
}

/**
 * Whether a failure should move on to the next model of a fallback chain (LangChain's
 * `withFallbacks`, a LangGraph conditional edge): the taxonomy's fallback column (`TAXONOMY`), as
 * `@faultline/resilience` reads it. Never after the caller's abort, nor after output was delivered
 * unless `fallbackAfterOutput`.
 */
export function shouldFallBack(error: unknown, options: ShouldFallBackOptions = {}): boolean {
  checkShouldFallBackKeys('shouldFallBack', options);
  return fallsBack(error, options);
}

/** {@link shouldFallBack} on options already checked. */
function fallsBack(error: unknown, options: ShouldFallBackOptions): boolean {
  const { fallbackOn, fallbackAfterOutput, ...classifyOptions } = options;
  const failure = classifyLangChainError(error, classifyOptions);
  const { classification } = failure;
  if (classification.callerAborted) return false;
  if (outputDelivered(failure.metadata?.delivered) && fallbackAfterOutput !== true) return false;
  const rule = TAXONOMY[classification.reason]?.fallback ?? 'no';
  const on = fallbackOn?.[classification.reason];
  if (rule === 'no' || on === false) return false;
  return rule === 'yes' || on === true;
}

/** What {@link invokeWithFallbacks} calls: a chat model, a chain, any runnable. */
export interface InvokableLike<I, O> {
  invoke(input: I, options?: { signal?: AbortSignal }): PromiseLike<O>;
}

/** The options of {@link invokeWithFallbacks}: {@link ShouldFallBackOptions}, and the caller's signal. */
export interface InvokeWithFallbacksOptions extends ShouldFallBackOptions {
  /**
   * The caller's signal, given to each runnable's `invoke` (`{ signal }`). Once it fires, the chain
   * tries no other runnable and leaves with what the runnable threw, untouched; or, when the runnable
   * has not settled a second later (an integration that drops the signal), with the signal's reason.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Calls each runnable in turn with `input` and returns the first answer; a failure moves on to the
 * next only when {@link shouldFallBack} says so (with these options). What leaves is the classified
 * `FaultlineError` of the last failure (its cause the SDK's error): the one that stopped the chain,
 * or the last candidate's. The caller's abort (`signal`) leaves untouched.
 */
export async function invokeWithFallbacks<I, O>(
  runnables: readonly InvokableLike<I, O>[],
  input: I,
  options: InvokeWithFallbacksOptions = {},
): Promise<O> {
  if (!Array.isArray(runnables) || runnables.length === 0)
    throw new TypeError('invokeWithFallbacks: give at least one runnable');
  checkShouldFallBackKeys('invokeWithFallbacks', options, INVOKE_WITH_FALLBACKS_OPTION_KEYS);
  const { signal, ...fallbackOptions } = options;
  if (!isSignalOption(signal)) throw invalidOption('invokeWithFallbacks', 'signal', 'an AbortSignal', signal);
  let last: unknown;
  for (const runnable of runnables) {
    try {
      if (signal === undefined) return await runnable.invoke(input);
      return await settledBy(Promise.resolve(runnable.invoke(input, { signal })), signal);
    } catch (error) {
      // Once the caller's signal has fired, whatever the runnable threw is the caller's abort.
      if (signal?.aborted === true) throw error;
      last = error;
      if (!fallsBack(error, fallbackOptions)) break;
    }
  }
  const { fallbackOn: _fallbackOn, fallbackAfterOutput: _fallbackAfterOutput, ...rest } = fallbackOptions;
  throw classifyLangChainError(last, rest);
}

export interface FaultlineCallbackHandlerOptions extends LangChainClassifyOptions {
  /** Called with each classified failure (a throwing listener is ignored). */
  readonly onFailure?: ((report: ErrorReport, error: FaultlineError) => void) | undefined;
  /** How many reports `failures` keeps (the newest): a whole number from 0 to 10 000. Default 100. */
  readonly keep?: number | undefined;
}

/** The most reports a callback handler keeps: a bound on its memory. */
const MAX_KEPT_REPORTS = 10_000;

/** The callback handler {@link faultlineCallbackHandler} returns. */
export interface FaultlineCallbackHandler {
  readonly name: string;
  /** The classified failures seen, newest last (bounded by `keep`). */
  readonly failures: readonly ErrorReport[];
  handleLLMError(error: unknown): void;
  handleChainError(error: unknown): void;
  handleToolError(error: unknown): void;
  handleRetrieverError(error: unknown): void;
}

/**
 * A LangChain callback handler (pass it in `callbacks: [...]`; LangChain takes a plain object of
 * handler methods) that classifies every failure of a model, chain, tool or retriever run and
 * records its report: `failures`, and `onFailure(report, error)`. It never throws into LangChain.
 */
export function faultlineCallbackHandler(
  options: FaultlineCallbackHandlerOptions = {},
): FaultlineCallbackHandler {
  checkOptionKeys('faultlineCallbackHandler', options, CALLBACK_HANDLER_OPTION_KEYS);
  const { onFailure, keep: kept, ...classifyOptions } = options;
  const failures: ErrorReport[] = [];
  if (kept !== undefined && !(Number.isInteger(kept) && kept >= 0 && kept <= MAX_KEPT_REPORTS))
    throw invalidOption(
      'faultlineCallbackHandler',
      'keep',
      `a whole number from 0 to ${MAX_KEPT_REPORTS}`,
      kept,
    );
  const keep = kept ?? 100;
  const seen = new WeakSet<object>();
  const record = (error: unknown): void => {
    try {
      // A chain re-reports its model's error: record each error once.
      if (error !== null && typeof error === 'object') {
        if (seen.has(error)) return;
        seen.add(error);
      }
      const failure = classifyLangChainError(error, classifyOptions);
      const report = failure.toErrorReport();
      failures.push(report);
      if (failures.length > keep) failures.splice(0, failures.length - keep);
      onFailure?.(report, failure);
    } catch {
      // A callback never breaks the run it observes.
    }
  };
  return {
    name: 'faultline',
    failures,
    handleLLMError: record,
    handleChainError: record,
    handleToolError: record,
    handleRetrieverError: record,
  };
}
