import {
  type AiSdkStreamPart,
  aiSdkExtractorFor,
  type FaultlineLanguageModelMiddleware,
  faultlineMiddleware,
} from '@faultline/ai-sdk';
import type { ClassificationOverride } from '@faultline/classify';
import { invalidOption } from '@faultline/classify/toolkit';
import { type RetryOptions, withClassifiedErrors } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { checkMastraOptions, MODEL_ENTRY_KEYS } from './option-keys.ts';

/** Options of {@link withFaultline} and {@link faultlineModels}. */
export interface FaultlineMastraOptions {
  /**
   * faultline's retries of a model call that fails before its first content part (Retry-After
   * honoured, a spent quota or an unclassified failure never retried): the option and default of
   * every entry point (3 attempts; docs/retries.md); `false` turns them off.
   */
  readonly retry?: boolean | RetryOptions | undefined;
  /** The call may be retried after an ambiguous failure (`interrupted`). */
  readonly idempotent?: boolean | undefined;
  /** Longest wait for the next stream part (default 60 000; 0 turns it off). */
  readonly idleTimeoutMs?: number | undefined;
  /** An AI SDK provider id or faultline provider name; default: the model's `provider`. */
  readonly provider?: string | undefined;
  readonly override?: ClassificationOverride | undefined;
}

/**
 * What faultline reads of a model Mastra calls: an AI SDK language model (V2, V3 or V4, such as
 * `openai('gpt-4o')`) or Mastra's `ModelRouterLanguageModel`, which implements the same interface.
 */
export interface MastraModelLike {
  readonly specificationVersion?: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<{ readonly stream: ReadableStream<unknown> }>;
}

/** A call's options as a model reads them: only the signal matters here. */
interface CallOptions {
  readonly abortSignal?: AbortSignal | undefined;
  readonly [key: string]: unknown;
}

/** The members of a model the wrapper calls, typed as the middleware reads them. */
interface CallableModel {
  readonly specificationVersion?: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: CallOptions): PromiseLike<unknown>;
  doStream(options: CallOptions): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
}

/** Parts that are output whole: a tool call, a tool's result, a file, a source. */
const CONTENT_PARTS: ReadonlySet<string> = new Set([
  'tool-input-start',
  'tool-call',
  'tool-result',
  'file',
  'source',
]);
/** Parts that are output once their delta holds a character: text, reasoning, a tool call's arguments. */
const DELTA_PARTS: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

/**
 * Whether a part shows the caller something. What comes before (`stream-start`,
 * `response-metadata`, a `text-start`, an empty delta) shows nothing: a failure after it is still
 * one before any output.
 */
function isContent(part: AiSdkStreamPart): boolean {
  if (part === null || typeof part !== 'object') return false;
  if (CONTENT_PARTS.has(part.type)) return true;
  return DELTA_PARTS.has(part.type) && typeof part.delta === 'string' && part.delta.length > 0;
}

function withSignal(params: CallOptions, signal: AbortSignal | undefined): CallOptions {
  return signal === undefined || signal === params.abortSignal ? params : { ...params, abortSignal: signal };
}

/**
 * The classified stream, read up to its first content part. A failure before it (the stream's
 * error part: a failed request, or an error event in a 200 answer) is thrown, so that the retry
 * loop around this read, Mastra's error processors and its fallback to the next model all see it
 * as the failed call it is. What was read is played again in front of the rest; a failure after
 * the first content part stays in the stream, classified, with what was delivered.
 */
async function untilFirstContent(
  stream: ReadableStream<AiSdkStreamPart>,
): Promise<ReadableStream<AiSdkStreamPart>> {
  const reader = stream.getReader();
  const held: AiSdkStreamPart[] = [];
  let done = false;
  for (;;) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    const part = next.value;
    if (part !== null && typeof part === 'object' && part.type === 'error') {
      reader.cancel().catch(() => undefined);
      throw part.error;
    }
    held.push(part);
    if (isContent(part)) break;
  }
  return new ReadableStream<AiSdkStreamPart>({
    async pull(controller) {
      const first = held.shift();
      if (first !== undefined) {
        controller.enqueue(first);
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * A model for a Mastra agent (`model: withFaultline(openai('gpt-4o'))`, or an entry of a fallback
 * list) whose calls run under faultline: a failure is classified once (a `FaultlineError` whose
 * `cause` is what the provider package threw), retried only when its classification says so, and a
 * stream that fails before its first content part (a 429, or a rate limit sent as an error event
 * inside a 200 stream) fails the call itself, so that Mastra's fallback moves to the next model.
 * Every other member is the model's own. Give the agent (or the fallback entry) `maxRetries: 0`:
 * Mastra's own retries would repeat each of faultline's attempts.
 */
export function withFaultline<M extends MastraModelLike>(model: M, options: FaultlineMastraOptions = {}): M {
  checkMastraOptions('withFaultline', options);
  checkModel('withFaultline', 'model', model);
  return wrap(model, options);
}

function checkModel(scope: string, name: string, model: unknown): asserts model is MastraModelLike {
  const callable =
    model !== null &&
    typeof model === 'object' &&
    typeof (model as { doStream?: unknown }).doStream === 'function' &&
    typeof (model as { doGenerate?: unknown }).doGenerate === 'function';
  if (!callable)
    throw invalidOption(
      scope,
      name,
      typeof model === 'string'
        ? "a model object (a model id string is resolved by Mastra itself: wrap `new ModelRouterLanguageModel('provider/model')` from @mastra/core/llm)"
        : 'a language model (an AI SDK model or a ModelRouterLanguageModel)',
      model,
    );
}

function wrap<M extends MastraModelLike>(model: M, options: FaultlineMastraOptions): M {
  const { retry, idempotent, idleTimeoutMs, provider, override } = options;
  const target = model as unknown as CallableModel;
  const generating: FaultlineLanguageModelMiddleware = faultlineMiddleware({
    retry,
    idempotent,
    provider,
    override,
  });
  // The stream's parts are classified by the middleware (retries off there): the loop below is the
  // one that retries, around the request and the read up to the first content part together.
  const streaming: FaultlineLanguageModelMiddleware = faultlineMiddleware({
    retry: false,
    idempotent,
    idleTimeoutMs,
    provider,
    override,
  });
  const doGenerate = (params: CallOptions): Promise<unknown> =>
    generating.wrapGenerate({ doGenerate: () => target.doGenerate(params), params, model: target });
  const doStream = (params: CallOptions): Promise<{ stream: ReadableStream<AiSdkStreamPart> }> =>
    withClassifiedErrors(
      async ({ signal }) => {
        const attempt = withSignal(params, signal);
        const result = await streaming.wrapStream({
          doStream: () => target.doStream(attempt),
          params: attempt,
          model: target,
        });
        return { ...result, stream: await untilFirstContent(result.stream) };
      },
      {
        extractors: [aiSdkExtractorFor(provider ?? target.provider)],
        retry,
        idempotent,
        signal: params.abortSignal,
        override,
        model: target.modelId,
        operation: 'stream',
        family: 'completion',
      },
    );
  // A Proxy keeps the model's class (Mastra checks `instanceof ModelRouterLanguageModel`), getters
  // and fields. Its methods and getters run on the model itself, not on the Proxy: a class with
  // private fields (`#lastStreamTransport` of Mastra's router model) cannot read them through one.
  return new Proxy(model, {
    get(wrapped, key) {
      if (key === 'doGenerate') return doGenerate;
      if (key === 'doStream') return doStream;
      const value: unknown = Reflect.get(wrapped, key, wrapped);
      return typeof value === 'function' ? value.bind(wrapped) : value;
    },
  });
}

/** An entry of a Mastra fallback list (`ModelWithRetries`) without `maxRetries`, which faultline sets. */
export interface FaultlineModelEntry {
  readonly model: MastraModelLike;
  readonly id?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly modelSettings?: unknown;
  readonly providerOptions?: unknown;
  readonly headers?: unknown;
  /** Only 0 is accepted: faultline's `retry` option decides how often a model is asked. */
  readonly maxRetries?: 0 | undefined;
}

/** What {@link faultlineModels} returns for each model or entry: Mastra's `ModelWithRetries`. */
export type FaultlineModelList<C> = Array<
  C extends { readonly model: infer M }
    ? Omit<C, 'maxRetries'> & { readonly model: M; readonly maxRetries: 0 }
    : { readonly model: C; readonly maxRetries: 0 }
>;

/**
 * A Mastra fallback list (`new Agent({ model: faultlineModels([primary, backup]) })`): each model
 * (or entry, with its own `id`, `modelSettings`, `providerOptions`, `headers`) under
 * {@link withFaultline}, and `maxRetries: 0`, so that faultline's retries are the only ones. A
 * failure before any output (a spent quota at once, a rate limit or an overload after faultline's
 * retries, an error event before the first chunk of a 200 stream) then reaches the next model.
 */
export function faultlineModels<C extends MastraModelLike | FaultlineModelEntry>(
  models: readonly C[],
  options: FaultlineMastraOptions = {},
): FaultlineModelList<C> {
  checkMastraOptions('faultlineModels', options);
  if (!Array.isArray(models) || models.length === 0)
    throw invalidOption('faultlineModels', 'models', 'a non-empty array of models or entries', models);
  return models.map((candidate: MastraModelLike | FaultlineModelEntry, index) => {
    const name = `models[${index}]`;
    if (candidate !== null && typeof candidate === 'object' && 'model' in candidate) {
      checkOptionKeys('faultlineModels', candidate, MODEL_ENTRY_KEYS, name);
      if (candidate.maxRetries !== undefined && candidate.maxRetries !== 0)
        throw invalidOption(
          'faultlineModels',
          `${name}.maxRetries`,
          "0 or nothing (faultline's `retry` option decides retries; Mastra's would repeat each of faultline's attempts)",
          candidate.maxRetries,
        );
      checkModel('faultlineModels', `${name}.model`, candidate.model);
      return { ...candidate, model: wrap(candidate.model, options), maxRetries: 0 as const };
    }
    checkModel('faultlineModels', name, candidate);
    return { model: wrap(candidate, options), maxRetries: 0 as const };
  }) as FaultlineModelList<C>;
}
