import type { ClassificationOverride } from '@faultline/classify';
import { type FaultlineError, type RetryOptions, withClassifiedErrors } from '@faultline/render';
import { type AiSdkStreamPart, aiSdkExtractorFor, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { detectAiSdkBlockedAnswer } from './extract-ai-sdk.ts';
import { checkAiSdkOptions } from './option-keys.ts';

/** Options of {@link faultlineMiddleware} and {@link withFaultlineEmbedding}. */
export interface FaultlineAiSdkOptions {
  /**
   * faultline's retries of transient failures (Retry-After honoured, `unknown` never retried).
   * Default `{ maxAttempts: 3 }`; `false` turns them off. Call the AI SDK with `maxRetries: 0`:
   * the AI SDK retries only its own `APICallError`s, so with this middleware its retries never
   * stack on faultline's, but `maxRetries: 0` says so in the code.
   */
  readonly retry?: false | RetryOptions | undefined;
  /** The call may be retried after an ambiguous failure (`interrupted`). */
  readonly idempotent?: boolean | undefined;
  /** The whole call, retries and waits included, must end within this many milliseconds. */
  readonly deadlineMs?: number | undefined;
  /** Longest wait for the next stream part (default 60 000; 0 turns it off). */
  readonly idleTimeoutMs?: number | undefined;
  /** An AI SDK provider id or faultline provider name; default: the model's `provider`. */
  readonly provider?: string | undefined;
  readonly override?: ClassificationOverride | undefined;
  /** Called with each classified failure that leaves the middleware (a throwing listener is ignored). */
  readonly onError?: ((error: FaultlineError) => void) | undefined;
}

/** What the middleware reads of a language model (LanguageModelV2 of ai 5, V3 of ai 6). */
interface ModelLike {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: CallOptionsLike): PromiseLike<unknown>;
  doStream(options: CallOptionsLike): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
}

interface CallOptionsLike {
  readonly abortSignal?: AbortSignal | undefined;
  readonly [key: string]: unknown;
}

interface WrapOptions<R> {
  readonly doGenerate: () => PromiseLike<R>;
  readonly doStream: () => PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
  readonly params: CallOptionsLike;
  readonly model: ModelLike;
}

/** The middleware object `wrapLanguageModel({ model, middleware })` takes (ai 5 and 6). */
export interface FaultlineLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  readonly middlewareVersion: 'v2';
  wrapGenerate(options: WrapOptions<unknown>): Promise<unknown>;
  wrapStream(options: WrapOptions<unknown>): Promise<{ stream: ReadableStream<AiSdkStreamPart> }>;
}

function notify(options: FaultlineAiSdkOptions, error: unknown): void {
  try {
    options.onError?.(error as FaultlineError);
  } catch {
    // A listener's failure never replaces the call's.
  }
}

function retryOf(options: FaultlineAiSdkOptions): false | RetryOptions {
  return options.retry === undefined ? { maxAttempts: 3 } : options.retry;
}

/** The call with this attempt's signal (the caller's, or one that also fires at the deadline). */
function withSignal(params: CallOptionsLike, signal: AbortSignal | undefined): CallOptionsLike {
  return signal === undefined || signal === params.abortSignal ? params : { ...params, abortSignal: signal };
}

/** The model's parts, classified: a failure becomes one `error` part holding a FaultlineError, then the end. */
function classifiedParts(
  stream: ReadableStream<AiSdkStreamPart>,
  model: ModelLike,
  params: CallOptionsLike,
  options: FaultlineAiSdkOptions,
): ReadableStream<AiSdkStreamPart> {
  const guarded = guardAiSdkStream(stream as unknown as AsyncIterable<AiSdkStreamPart>, {
    provider: options.provider ?? model.provider,
    model: model.modelId,
    operation: 'stream',
    family: 'completion',
    signal: params.abortSignal,
    idleTimeoutMs: options.idleTimeoutMs,
    override: options.override,
    idempotent: options.idempotent,
    onAbandon: () => {
      stream.cancel().catch(() => undefined);
    },
  });
  const iterator = guarded[Symbol.asyncIterator]();
  return new ReadableStream<AiSdkStreamPart>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        notify(options, error);
        if (params.abortSignal?.aborted === true && error === params.abortSignal.reason) {
          controller.error(error);
          return;
        }
        controller.enqueue({ type: 'error', error });
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * A language-model middleware for `wrapLanguageModel` (ai 5 and 6) that gives `generateText`,
 * `streamText`, `generateObject` and `streamObject` faultline's classification and retries:
 * a failed call is retried when its classification says so (transient, after the provider's
 * Retry-After), and leaves as a `FaultlineError` whose `cause` is what the provider package threw.
 * In a stream, an error part, a dropped connection, a stall and a stream ending without its finish
 * part become one `error` part holding the classified error. Use with `maxRetries: 0`.
 */
export function faultlineMiddleware(options: FaultlineAiSdkOptions = {}): FaultlineLanguageModelMiddleware {
  checkAiSdkOptions('faultlineMiddleware', options);
  return {
    specificationVersion: 'v3',
    middlewareVersion: 'v2',
    async wrapGenerate({ doGenerate, params, model }) {
      try {
        return await withClassifiedErrors(
          ({ signal }) =>
            signal === undefined ? doGenerate() : model.doGenerate(withSignal(params, signal)),
          {
            extractors: [aiSdkExtractorFor(options.provider ?? model.provider)],
            retry: retryOf(options),
            idempotent: options.idempotent,
            deadlineMs: options.deadlineMs,
            signal: params.abortSignal,
            override: options.override,
            model: model.modelId,
            operation: 'generate',
            family: 'completion',
            inspectResult: detectAiSdkBlockedAnswer,
          },
        );
      } catch (error) {
        notify(options, error);
        throw error;
      }
    },
    async wrapStream({ doStream, params, model }) {
      let result: { stream: ReadableStream<AiSdkStreamPart> };
      try {
        result = await withClassifiedErrors(
          async ({ signal }) =>
            await (signal === undefined ? doStream() : model.doStream(withSignal(params, signal))),
          {
            extractors: [aiSdkExtractorFor(options.provider ?? model.provider)],
            retry: retryOf(options),
            idempotent: options.idempotent,
            deadlineMs: options.deadlineMs,
            signal: params.abortSignal,
            override: options.override,
            model: model.modelId,
            operation: 'stream',
            family: 'completion',
          },
        );
      } catch (error) {
        notify(options, error);
        throw error;
      }
      return { ...result, stream: classifiedParts(result.stream, model, params, options) };
    },
  };
}

/** What {@link withFaultlineEmbedding} reads of an embedding model (EmbeddingModelV2 / V3). */
export interface EmbeddingModelLike {
  readonly provider: string;
  readonly modelId: string;
  doEmbed(options: CallOptionsLike): PromiseLike<unknown>;
}

/**
 * An embedding model (for `embed` / `embedMany`) whose `doEmbed` runs under faultline: retries of
 * transient failures and a classified `FaultlineError` (an EmbeddingError) for every failure.
 * Every other member of the model is the model's own. Use with `maxRetries: 0`.
 */
export function withFaultlineEmbedding<M extends EmbeddingModelLike>(
  model: M,
  options: FaultlineAiSdkOptions = {},
): M {
  checkAiSdkOptions('withFaultlineEmbedding', options);
  const doEmbed = async (params: CallOptionsLike): Promise<unknown> => {
    try {
      return await withClassifiedErrors(
        async ({ signal }) => await model.doEmbed(withSignal(params, signal)),
        {
          extractors: [aiSdkExtractorFor(options.provider ?? model.provider)],
          retry: retryOf(options),
          idempotent: options.idempotent ?? true,
          deadlineMs: options.deadlineMs,
          signal: params.abortSignal,
          override: options.override,
          model: model.modelId,
          operation: 'embed',
          family: 'embedding',
        },
      );
    } catch (error) {
      notify(options, error);
      throw error;
    }
  };
  // A Proxy keeps the model's getters (maxEmbeddingsPerCall, supportsParallelCalls) and fields.
  return new Proxy(model, {
    get(target, key, receiver) {
      if (key === 'doEmbed') return doEmbed;
      return Reflect.get(target, key, receiver);
    },
  });
}
