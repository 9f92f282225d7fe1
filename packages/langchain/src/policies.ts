import { type FailureReason, TAXONOMY } from '@faultline/classify';
import type { ErrorReport, FaultlineError } from '@faultline/render';
import { classifyLangChainError, type LangChainClassifyOptions } from './classify-langchain-error.ts';

/**
 * A retry predicate for LangGraph's `RetryPolicy.retryOn` and anything else that asks "retry
 * this?": true only when faultline's classification says a retry can help (transient; an
 * ambiguous failure only with `idempotent: true`). `unknown` is never retried, unlike LangChain's
 * default, which retries every error but a short list of statuses.
 */
export function faultlineRetryOn(options: LangChainClassifyOptions = {}): (error: unknown) => boolean {
  return (error) => {
    const failure = classifyLangChainError(error, options);
    return failure.classification.retryable && !failure.classification.callerAborted;
  };
}

/**
 * An `onFailedAttempt` for LangChain's `runnable.withRetry({ stopAfterAttempt, onFailedAttempt })`:
 * throws the classified error (which stops LangChain's retries) when a retry cannot help, and
 * returns (so LangChain retries) when it can.
 */
export function faultlineOnFailedAttempt(
  options: LangChainClassifyOptions = {},
): (error: unknown, input?: unknown) => void {
  return (error) => {
    const failure = classifyLangChainError(error, options);
    if (!failure.classification.retryable || failure.classification.callerAborted) throw failure;
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
  const failure = classifyLangChainError(error, options);
  const { classification } = failure;
  if (classification.callerAborted) return false;
  const delivered = failure.metadata?.delivered;
  if (delivered !== undefined && delivered.chunks > 0 && options.fallbackAfterOutput !== true) return false;
  const rule = TAXONOMY[classification.reason]?.fallback ?? 'no';
  const on = options.fallbackOn?.[classification.reason];
  if (rule === 'no' || on === false) return false;
  return rule === 'yes' || on === true;
}

export interface FaultlineCallbackHandlerOptions extends LangChainClassifyOptions {
  /** Called with each classified failure (a throwing listener is ignored). */
  readonly onFailure?: ((report: ErrorReport, error: FaultlineError) => void) | undefined;
  /** How many reports `failures` keeps (the newest). Default 100. */
  readonly keep?: number | undefined;
}

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
  const failures: ErrorReport[] = [];
  const keep = Math.max(0, Math.min(options.keep ?? 100, 10_000));
  const seen = new WeakSet<object>();
  const record = (error: unknown): void => {
    try {
      // A chain re-reports its model's error: record each error once.
      if (error !== null && typeof error === 'object') {
        if (seen.has(error)) return;
        seen.add(error);
      }
      const failure = classifyLangChainError(error, options);
      const report = failure.toErrorReport();
      failures.push(report);
      if (failures.length > keep) failures.splice(0, failures.length - keep);
      options.onFailure?.(report, failure);
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
