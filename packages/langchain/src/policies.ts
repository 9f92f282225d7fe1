import type { FailureReason } from '@faultline/classify';
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

export interface FallbackOptions extends LangChainClassifyOptions {
  /** Try another model after a content-policy refusal (another provider may accept). Default false. */
  readonly onContentPolicy?: boolean | undefined;
  /** Try another model after a context overflow (only one with a larger window helps). Default false. */
  readonly onContextOverflow?: boolean | undefined;
  /** Try another model after an interruption that had already delivered output. Default false. */
  readonly afterDeliveredOutput?: boolean | undefined;
}

/** DESIGN's "next candidate in a fallback chain?" column. */
const FALLBACK: Readonly<Record<FailureReason, 'yes' | 'opt_in' | 'no'>> = {
  quota: 'yes',
  billing: 'yes',
  model_not_found: 'yes',
  permission: 'yes',
  rate_limit: 'yes',
  overloaded: 'yes',
  server_error: 'yes',
  timeout: 'yes',
  connection: 'yes',
  interrupted: 'yes',
  content_policy: 'opt_in',
  context_overflow: 'opt_in',
  invalid_request: 'no',
  unsupported_media: 'no',
  auth: 'no',
  endpoint: 'no',
  not_found: 'no',
  local_bug: 'no',
  cancelled: 'no',
  unknown: 'no',
};

/**
 * Whether a failure should move on to the next model of a fallback chain (LangChain's
 * `withFallbacks`, a LangGraph conditional edge): DESIGN's table. The caller's abort never does.
 */
export function shouldFallBack(error: unknown, options: FallbackOptions = {}): boolean {
  const failure = classifyLangChainError(error, options);
  const { classification } = failure;
  if (classification.callerAborted) return false;
  const rule = FALLBACK[classification.reason];
  if (rule === 'opt_in') {
    return classification.reason === 'content_policy'
      ? options.onContentPolicy === true
      : options.onContextOverflow === true;
  }
  if (rule === 'no') return false;
  if (classification.reason === 'interrupted') {
    const delivered = failure.metadata?.delivered;
    return delivered === undefined || delivered.chunks === 0 || options.afterDeliveredOutput === true;
  }
  return true;
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
