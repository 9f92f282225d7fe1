import { type AiSdkClassifyOptions, AiSdkErrorPart, classifyAiSdkError } from '@faultline/ai-sdk';
import type { ClassificationOverride } from '@faultline/classify';
import { constructorName, safeGet } from '@faultline/classify/toolkit';
import { type FaultlineError, outputDelivered, type RetryOptions } from '@faultline/render';
import { abortableSleep, checkOptionKeys, retryPolicy } from '@faultline/render/toolkit';
import {
  checkMastraOptions,
  ERROR_PROCESSOR_OPTION_KEYS,
  MASTRA_CLASSIFY_OPTION_KEYS,
} from './option-keys.ts';

/** Options of {@link classifyMastraError}: those of `classifyAiSdkError`. */
export interface MastraClassifyOptions extends AiSdkClassifyOptions {}

/**
 * Classifies what a Mastra agent reports for a failed model call (what `generate()` throws, a
 * stream's `error` chunk, `onError`'s error, the `error` an error processor is handed) into a
 * `FaultlineError`. Mastra hands on what the model failed with: an AI SDK `APICallError` (read with
 * its provider's body rules, from `provider` or the request URL), the provider's error event from a
 * 200 stream, or a `FaultlineError` from {@link withFaultline}, which passes through as is. Total:
 * any thrown value gets a classification.
 */
export function classifyMastraError(error: unknown, options: MastraClassifyOptions = {}): FaultlineError {
  checkOptionKeys('classifyMastraError', options, MASTRA_CLASSIFY_OPTION_KEYS);
  const part = errorPartValue(error);
  return part === undefined
    ? classifyAiSdkError(error, options)
    : classifyAiSdkError(new AiSdkErrorPart(part), { ...options, streaming: true });
}

/**
 * What a stream's error part held, when `error` is Mastra's rebuild of it. A provider package puts
 * the provider's error event in the part as a plain object (`{ type: 'rate_limit_error', message }`);
 * Mastra's `getErrorFromUnknown` turns such an object into a plain `Error` with the object's own
 * fields assigned to it, and its `stack` set to the object's, which an event never has. A thrown
 * `Error` always has its stack: one without it, of the base class, is that rebuild, and its fields
 * are the provider's event, read as an error part.
 */
function errorPartValue(error: unknown): Record<string, unknown> | undefined {
  try {
    if (
      !(error instanceof Error) ||
      constructorName(error) !== 'Error' ||
      safeGet(error, 'stack') !== undefined
    )
      return undefined;
    const value: Record<string, unknown> = {};
    for (const key of Object.keys(error)) {
      const field = safeGet(error, key);
      if (key !== 'toJSON' && key !== 'stack' && typeof field !== 'function') value[key] = field;
    }
    value.message = safeGet(error, 'message');
    return value;
  } catch {
    // A value whose prototype or keys cannot be read (a hostile Proxy) is no rebuild of a part.
    return undefined;
  }
}

/** Options of {@link faultlineErrorProcessor}. */
export interface FaultlineErrorProcessorOptions {
  /**
   * Attempts per model and step, their backoff and the longest Retry-After waited for: the option
   * and defaults of every entry point (3 attempts; docs/retries.md). `false`: never retry.
   */
  readonly retry?: boolean | RetryOptions | undefined;
  /** The call may be retried after an ambiguous failure (`interrupted`). */
  readonly idempotent?: boolean | undefined;
  /** An AI SDK provider id or faultline provider name, when the error does not say (a stream's error event). */
  readonly provider?: string | undefined;
  readonly override?: ClassificationOverride | undefined;
}

/** The members of Mastra's `ProcessAPIErrorArgs` the processor reads. */
export interface MastraApiErrorArgs {
  readonly error: unknown;
  readonly stepNumber: number;
  /** The processor's state for this request (Mastra keeps one per processor and request). */
  readonly state: Record<string, unknown>;
  readonly abortSignal?: AbortSignal | undefined;
}

/** An error processor for Mastra's `errorProcessors` (an `ErrorProcessor`). */
export interface FaultlineErrorProcessor {
  readonly id: 'faultline';
  readonly name: string;
  processAPIError(args: MastraApiErrorArgs): Promise<{ retry: boolean }>;
}

/**
 * An error processor for a Mastra agent's `errorProcessors`, deciding by faultline's classification
 * whether the model is asked again: only a transient failure (a rate limit, an overload, a server
 * error, a refused connection) is retried, after its Retry-After or the backoff, up to
 * `retry.maxAttempts` per model and step; a spent quota, a bad key, an overflow or an unclassified
 * failure never is, nor a failure after output reached the caller, nor the caller's abort. Not
 * retried, a failure goes on to Mastra's next model, when the agent has a fallback list.
 *
 * A failure faultline already retried (a model under {@link withFaultline}) is not retried again:
 * the processor and the wrapper together make at most `maxAttempts` requests per model, never their
 * product. Give the agent `maxRetries: 0` for the same reason.
 */
export function faultlineErrorProcessor(
  options: FaultlineErrorProcessorOptions = {},
): FaultlineErrorProcessor {
  checkMastraOptions('faultlineErrorProcessor', options, ERROR_PROCESSOR_OPTION_KEYS);
  const policy = retryPolicy(options.retry, 'faultlineErrorProcessor');
  const { idempotent, provider, override } = options;
  return {
    id: 'faultline',
    name: "faultline's retry decision",
    async processAPIError({ error, stepNumber, state, abortSignal }) {
      if (policy === undefined || abortSignal?.aborted === true) return { retry: false };
      const failure = classifyMastraError(error, { idempotent, provider, override });
      const report = failure.toErrorReport();
      if (report.callerAborted || outputDelivered(report.delivered)) return { retry: false };
      // Retried already, by faultline's own loop around the model: the failure outlived its retries
      // (or its wait is over the cap); asking again here would multiply the attempts.
      if (report.retriesExhausted === true || (report.attempts?.made ?? 1) > 1) return { retry: false };
      if (!report.retryable) return { retry: false };
      const wait = report.retryAfterSeconds;
      if (wait !== undefined && wait > policy.maxRetryAfterSeconds) return { retry: false };
      // Attempts are counted per step and model: after a fallback, the next model has its own.
      const key = `attempts:${stepNumber}:${report.provider ?? ''}:${report.model ?? ''}`;
      const made = (typeof state[key] === 'number' ? (state[key] as number) : 0) + 1;
      state[key] = made;
      if (made >= policy.maxAttempts) return { retry: false };
      // The retry loop's wait (render's retryLoop): full-jitter backoff, never shorter than Retry-After.
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (made - 1));
      const jitter = Math.min(Math.max(policy.random(), 0), 1);
      const delayMs = Math.max(Math.floor(jitter * ceiling), Math.ceil((wait ?? 0) * 1000));
      try {
        policy.onRetry?.({ attempt: made, delayMs, error: failure, report });
      } catch {
        // A listener never changes the outcome.
      }
      try {
        await abortableSleep(delayMs, abortSignal);
      } catch {
        return { retry: false };
      }
      return { retry: true };
    },
  };
}
