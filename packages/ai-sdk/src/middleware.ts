import type { ClassificationOverride } from '@faultline/classify';
import { FaultlineError, type RetryOptions, withClassifiedErrors } from '@faultline/render';
import { type AiSdkStreamPart, aiSdkExtractorFor, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { detectAiSdkBlockedAnswer } from './extract-ai-sdk.ts';
import { checkAiSdkOptions } from './option-keys.ts';
import { providerFromId } from './provider-of.ts';

/** Options of {@link faultlineMiddleware} and {@link withFaultlineEmbedding}. */
export interface FaultlineAiSdkOptions {
  /**
   * faultline's retries of transient failures (Retry-After honoured, `unknown` never retried): the
   * option and default of every entry point (3 attempts; docs/retries.md); `false` turns them off.
   * Call the AI SDK with `maxRetries: 0`: the AI SDK retries only its own `APICallError`s, so with
   * this middleware its retries never stack on faultline's, but `maxRetries: 0` says so in the code.
   */
  readonly retry?: boolean | RetryOptions | undefined;
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
export interface ModelLike {
  readonly specificationVersion?: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: CallOptionsLike): PromiseLike<unknown>;
  doStream(options: CallOptionsLike): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
}

export interface CallOptionsLike {
  readonly abortSignal?: AbortSignal | undefined;
  readonly includeRawChunks?: boolean | undefined;
  readonly [key: string]: unknown;
}

interface WrapOptions<R> {
  readonly doGenerate: () => PromiseLike<R>;
  readonly doStream: () => PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
  readonly params: CallOptionsLike;
  readonly model: ModelLike;
}

/**
 * The middleware `wrapLanguageModel({ model, middleware })` takes. Its members are generic over
 * what the model returns, so that one object is the AI SDK's own middleware type of each supported
 * major (`LanguageModelV3Middleware` of ai 6, `LanguageModelV2Middleware` of ai 5): each major's
 * `wrapLanguageModel` instantiates them with its model's results, and no copy of either major's
 * types is pinned here.
 */
export interface FaultlineLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  readonly middlewareVersion: 'v2';
  wrapGenerate<R>(options: {
    readonly doGenerate: () => PromiseLike<R>;
    readonly params: CallOptionsLike;
    readonly model: ModelLike;
  }): Promise<R>;
  wrapStream<R extends { readonly stream: ReadableStream<unknown> }>(options: {
    readonly doStream: () => PromiseLike<R>;
    readonly params: CallOptionsLike;
    readonly model: ModelLike;
  }): Promise<R>;
}

function notify(options: FaultlineAiSdkOptions, error: unknown): void {
  try {
    options.onError?.(error as FaultlineError);
  } catch {
    // A listener's failure never replaces the call's.
  }
}

/** The call with this attempt's signal (the caller's, or one that also fires at the deadline). */
export function withSignal(params: CallOptionsLike, signal: AbortSignal | undefined): CallOptionsLike {
  return signal === undefined || signal === params.abortSignal ? params : { ...params, abortSignal: signal };
}

/**
 * The model's parts, classified: a failure (an error part, a dropped connection, a stall, a body
 * that ends without the provider's finish) becomes one error part holding the classified error,
 * and the stream then errors with it, as a dropped connection errors it without the middleware.
 * An error part alone would end the step with finish reason `error` and resolve `text` to what was
 * delivered: the AI SDK fails `text`, `textStream` and `fullStream` only on a stream that errors.
 */
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
  return partsStream(guarded, params, (error) => notify(options, error));
}

/**
 * A model's stream of `parts`, which fails as the AI SDK expects: a failure becomes one error part
 * (for what reads parts: streamText's `onError`, the UI message stream's error chunk), then the
 * stream errors with it at the next pull (`error()` drops what is still queued), which fails
 * `text`, `textStream` and `fullStream`. The caller's own abort errors the stream untouched.
 */
export function partsStream(
  parts: AsyncIterable<AiSdkStreamPart>,
  params: CallOptionsLike,
  onFailure: (error: unknown) => void,
): ReadableStream<AiSdkStreamPart> {
  const iterator = parts[Symbol.asyncIterator]();
  const signal = params.abortSignal;
  // Raw chunks asked for by faultline alone (see `streamParams`) stay inside it.
  const keepRaw = params.includeRawChunks === true;
  let failure: { readonly error: unknown } | undefined;
  return new ReadableStream<AiSdkStreamPart>({
    async pull(controller) {
      if (failure !== undefined) {
        controller.error(failure.error);
        return;
      }
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done === true) {
            controller.close();
            return;
          }
          if (!keepRaw && next.value !== null && typeof next.value === 'object' && next.value.type === 'raw')
            continue;
          controller.enqueue(next.value);
          return;
        }
      } catch (error) {
        if (signal?.aborted === true && error === signal.reason) {
          controller.error(error);
          return;
        }
        onFailure(error);
        controller.enqueue({ type: 'error', error });
        failure = { error };
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A model stream that fails at once with `error`: its error part, then the error. */
export function failedStream(error: FaultlineError): ReadableStream<AiSdkStreamPart> {
  let sent = false;
  // Each in a pull of its own: `error()` drops the parts still queued.
  return new ReadableStream<AiSdkStreamPart>({
    pull(controller) {
      if (sent) controller.error(error);
      else controller.enqueue({ type: 'error', error });
      sent = true;
    },
  });
}

/**
 * The stream call's options. A V2 model's `finish` part (ai 5) says `unknown` both when the
 * provider sent a reason its package does not map and when it sent none: the provider's raw chunks
 * tell the two apart, so the middleware asks for them (and drops them again, see `classifiedParts`).
 * A V3 model's `finish` part carries the provider's raw reason itself.
 */
export function streamParams(
  model: ModelLike,
  params: CallOptionsLike,
  signal: AbortSignal | undefined,
  provider: string | undefined,
): CallOptionsLike {
  const withAbort = withSignal(params, signal);
  if (params.includeRawChunks === true) return withAbort;
  // Bedrock's package hands on an exception frame's payload without its type (the chunk's member
  // name, `throttlingException`): the raw chunk still names it.
  if (model.specificationVersion !== 'v2' && providerFromId(provider) !== 'bedrock') return withAbort;
  return { ...withAbort, includeRawChunks: true };
}

/**
 * A language-model middleware for `wrapLanguageModel` (ai 5 and 6) that gives `generateText`,
 * `streamText`, `generateObject` and `streamObject` faultline's classification and retries:
 * a failed call is retried when its classification says so (transient, after the provider's
 * Retry-After), and leaves as a `FaultlineError` whose `cause` is what the provider package threw.
 * A stream that fails (an error event, a dropped connection, a stall, a body that ends without the
 * provider's finish) fails with the classified error, with what was `delivered`: `fullStream` and
 * `textStream` throw it, `text` rejects with it (ai 6), the UI message stream carries it to
 * `onError`. Use with `maxRetries: 0`.
 */
export function faultlineMiddleware(options: FaultlineAiSdkOptions = {}): FaultlineLanguageModelMiddleware {
  checkAiSdkOptions('faultlineMiddleware', options);
  const wrapGenerate = async ({ doGenerate, params, model }: WrapOptions<unknown>): Promise<unknown> => {
    try {
      return await withClassifiedErrors(
        ({ signal }) => (signal === undefined ? doGenerate() : model.doGenerate(withSignal(params, signal))),
        {
          extractors: [aiSdkExtractorFor(options.provider ?? model.provider)],
          retry: options.retry,
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
  };
  const wrapStream = async ({
    doStream,
    params,
    model,
  }: WrapOptions<unknown>): Promise<{ stream: ReadableStream<AiSdkStreamPart> }> => {
    let result: { stream: ReadableStream<AiSdkStreamPart> };
    const provider = options.provider ?? model.provider;
    const asIs = streamParams(model, params, undefined, provider) === params;
    try {
      result = await withClassifiedErrors(
        async ({ signal }) =>
          await (signal === undefined && asIs
            ? doStream()
            : model.doStream(streamParams(model, params, signal, provider))),
        {
          extractors: [aiSdkExtractorFor(options.provider ?? model.provider)],
          retry: options.retry,
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
      // ai 6 turns a thrown error into an error part and rejects `text` with a NoOutputGeneratedError
      // that has lost it; a stream that fails with it rejects `text` with the classified error
      // itself. ai 5 (V2) would leave `text` pending on a failed stream: there it is thrown.
      if (model.specificationVersion === 'v2' || !FaultlineError.isInstance(error)) throw error;
      return { stream: failedStream(error) };
    }
    return { ...result, stream: classifiedParts(result.stream, model, params, options) };
  };
  // The functions read the model's results structurally; what they return is what the model
  // returned (the stream classified part by part), so it is the caller's `R`.
  return {
    specificationVersion: 'v3',
    middlewareVersion: 'v2',
    wrapGenerate: wrapGenerate as FaultlineLanguageModelMiddleware['wrapGenerate'],
    wrapStream: wrapStream as FaultlineLanguageModelMiddleware['wrapStream'],
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
          retry: options.retry,
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
