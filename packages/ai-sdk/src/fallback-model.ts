import {
  type ClassificationOverride,
  type FailureReason,
  type RateLimitBudget,
  type RateLimitWindow,
  TAXONOMY,
} from '@faultline/classify';
import { FaultlineError, type RetryOptions } from '@faultline/render';
import { bindWithClassifiedErrors, checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import {
  type Candidate,
  type CandidateOutcome,
  checkFallbackOptions,
  type FallbackOptions,
  type HealthRegistry,
  minimumTokenCount,
  runWithFallback,
  streamWithFallback,
} from '@faultline/resilience';
import { type AiSdkStreamPart, aiSdkExtractorFor, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { detectAiSdkBlockedAnswer } from './extract-ai-sdk.ts';
import {
  type CallOptionsLike,
  failedStream,
  type ModelLike,
  partsStream,
  streamParams,
  withSignal,
} from './middleware.ts';
import { providerFromId, RATE_LIMIT_READERS } from './provider-of.ts';

/** What the fallback model reads of a language model: LanguageModelV2 (ai 5) or V3 (ai 6). */
export interface FallbackLanguageModelLike {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: unknown;
  doGenerate(options: CallOptionsLike): PromiseLike<unknown>;
  doStream(options: CallOptionsLike): PromiseLike<{ readonly stream: ReadableStream<unknown> }>;
}

/** The prompt a language model's calls take (LanguageModelV2's or V3's `prompt`). */
export type FallbackPrompt<M extends FallbackLanguageModelLike> = Parameters<M['doGenerate']>[0] extends {
  readonly prompt: infer P;
}
  ? P
  : unknown;

/** A candidate with what the chain needs to know of it beyond the model. */
export interface FallbackModelCandidate<M extends FallbackLanguageModelLike> {
  readonly model: M;
  /** The model's context window in tokens: a `context_overflow` moves only to a larger one. */
  readonly contextWindow?: number | undefined;
  /**
   * A label for the key this model is called with ("team-a", "key-2"), never the key itself. An
   * `auth` or `permission` failure moves only to a candidate with another label or provider.
   */
  readonly credentialId?: string | undefined;
  /**
   * Counts a call's prompt in this model's tokens (its tokenizer, or its provider's count
   * endpoint): when its window is known, a prompt larger than it skips the model with no request.
   * Without it, the prompt's text is measured with no tokenizer (a lower bound: a prompt up to about
   * twice the window is still sent). A counter that throws or returns anything but a finite number
   * ≥ 0 counts nothing.
   */
  readonly countTokens?: ((prompt: FallbackPrompt<M>) => number | Promise<number>) | undefined;
}

/** A model, or a model with its window and credential label. */
export type FallbackCandidate<M extends FallbackLanguageModelLike> = M | FallbackModelCandidate<M>;

/** Options of {@link faultlineFallback}. */
export interface FaultlineFallbackOptions<M extends FallbackLanguageModelLike> {
  /** The candidates, in order: all of one AI SDK major (LanguageModelV2 or V3). */
  readonly models: readonly FallbackCandidate<M>[];
  /**
   * Shared health (`@faultline/resilience`'s `HealthRegistry`): cooling keys, breakers, retry
   * budgets, seen by every call and, with a Redis store, every process. Default: one per process.
   */
  readonly registry?: HealthRegistry | undefined;
  /** Turn rows of the taxonomy's fallback column on (`{ content_policy: true }`) or off (`{ rate_limit: false }`). */
  readonly fallbackOn?: Partial<Record<FailureReason, boolean>> | undefined;
  /** Streams: move on even after output was streamed (the next answer follows it). Default false. */
  readonly fallbackAfterOutput?: boolean | undefined;
  /** Retries on one candidate before moving on (3 attempts by default; docs/retries.md); `false`: one each. */
  readonly retry?: boolean | RetryOptions | undefined;
  /** Ambiguous failures (`interrupted`) may be retried on the same candidate. */
  readonly idempotent?: boolean | undefined;
  /** When only cooling keys are left, wait this long at most for the soonest. Default 10 000; 0 never waits. */
  readonly maxCooldownWaitMs?: number | undefined;
  /** Longest wait for the next stream part (default 60 000; 0 turns it off). */
  readonly idleTimeoutMs?: number | undefined;
  readonly override?: ClassificationOverride | undefined;
  /** Each candidate's outcome as it is settled (a throwing listener is ignored). */
  readonly onOutcome?: ((outcome: CandidateOutcome, index: number) => void) | undefined;
  /** Each classified failure that leaves the model (a throwing listener is ignored). */
  readonly onError?: ((error: FaultlineError) => void) | undefined;
}

/**
 * The model {@link faultlineFallback} returns: the members of the AI SDK's language model
 * interface, typed as the candidates' own, so that it goes wherever they go.
 */
export type FaultlineFallbackModel<M extends FallbackLanguageModelLike> = Pick<
  M,
  'specificationVersion' | 'provider' | 'modelId' | 'supportedUrls' | 'doGenerate' | 'doStream'
>;

const FALLBACK_OPTION_KEYS = {
  models: true,
  registry: true,
  fallbackOn: true,
  fallbackAfterOutput: true,
  retry: true,
  idempotent: true,
  maxCooldownWaitMs: true,
  idleTimeoutMs: true,
  override: true,
  onOutcome: true,
  onError: true,
} as const satisfies Record<keyof FaultlineFallbackOptions<FallbackLanguageModelLike>, true>;

const CANDIDATE_KEYS = {
  model: true,
  contextWindow: true,
  credentialId: true,
  countTokens: true,
} as const satisfies Record<keyof FallbackModelCandidate<FallbackLanguageModelLike>, true>;

const SCOPE = 'faultlineFallback';

/** A value that cannot mean anything: a TypeError at the call, with Node's own code. */
function invalidOption(scope: string, name: string, expected: string, value: unknown): TypeError {
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

interface Entry {
  readonly model: FallbackLanguageModelLike;
  /** Reads the rate-limit budget a success's `response.headers` state (its provider's reader). */
  readonly readRateLimit: ((result: unknown) => RateLimitBudget | undefined) | undefined;
  readonly contextWindow: number | undefined;
  readonly credentialId: string | undefined;
  readonly countTokens: ((prompt: unknown) => number | Promise<number>) | undefined;
  /** The health key's provider: the AI SDK provider id's first part (`openai` of `openai.chat`, `azure`). */
  readonly provider: string;
}

function isModel(value: unknown): value is FallbackLanguageModelLike {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as FallbackLanguageModelLike).doGenerate === 'function' &&
    typeof (value as FallbackLanguageModelLike).doStream === 'function'
  );
}

function entryOf(candidate: unknown, index: number): Entry {
  const where = `models[${index}]`;
  let model: unknown = candidate;
  let contextWindow: unknown;
  let credentialId: unknown;
  let countTokens: unknown;
  if (!isModel(candidate)) {
    if (candidate === null || typeof candidate !== 'object')
      throw invalidOption(
        SCOPE,
        where,
        'a language model or { model, contextWindow?, credentialId? }',
        candidate,
      );
    checkOptionKeys(SCOPE, candidate, CANDIDATE_KEYS, where);
    ({ model, contextWindow, credentialId, countTokens } =
      candidate as FallbackModelCandidate<FallbackLanguageModelLike>);
    if (!isModel(model))
      throw invalidOption(SCOPE, `${where}.model`, 'an AI SDK language model (doGenerate, doStream)', model);
  }
  const checked = model as FallbackLanguageModelLike;
  if (checked.specificationVersion !== 'v2' && checked.specificationVersion !== 'v3')
    throw invalidOption(
      SCOPE,
      `${where}.specificationVersion`,
      '"v2" (ai 5) or "v3" (ai 6)',
      checked.specificationVersion,
    );
  if (
    contextWindow !== undefined &&
    (typeof contextWindow !== 'number' || !Number.isFinite(contextWindow) || contextWindow <= 0)
  )
    throw invalidOption(SCOPE, `${where}.contextWindow`, 'a positive number of tokens', contextWindow);
  if (credentialId !== undefined && (typeof credentialId !== 'string' || credentialId.length === 0))
    throw invalidOption(SCOPE, `${where}.credentialId`, 'a non-empty label', credentialId);
  if (countTokens !== undefined && typeof countTokens !== 'function')
    throw invalidOption(
      SCOPE,
      `${where}.countTokens`,
      'a function (prompt) => number | Promise<number>',
      countTokens,
    );
  const providerId = typeof checked.provider === 'string' ? checked.provider : 'unknown';
  const aiSdkProvider = providerFromId(providerId);
  return {
    model: checked,
    readRateLimit: aiSdkProvider === undefined ? undefined : RATE_LIMIT_READERS[aiSdkProvider],
    contextWindow: contextWindow as number | undefined,
    credentialId: credentialId as string | undefined,
    countTokens: countTokens as Entry['countTokens'],
    provider: providerId.split('.', 1)[0] || providerId,
  };
}

function notify<A extends unknown[]>(listener: ((...args: A) => void) | undefined, ...args: A): void {
  if (typeof listener !== 'function') return;
  try {
    listener(...args);
  } catch {
    // A listener never changes the outcome.
  }
}

/** Keys already warned about in this process: a rejected key is said once, not once per call. */
const warnedCredentials = new Set<string>();

/**
 * A candidate the provider refused (`auth`, `permission`) is a person's to fix even when another
 * candidate answered: it is said loudly, as a process warning, once per key.
 */
function warnOfRejectedCredential(outcome: CandidateOutcome): void {
  const reason = outcome.report?.reason;
  if (
    outcome.status !== 'failed' ||
    reason === undefined ||
    TAXONOMY[reason]?.fallback !== 'other_credential'
  )
    return;
  const key = `${outcome.provider}\u0000${outcome.model}\u0000${outcome.credentialId ?? 'default'}`;
  if (warnedCredentials.has(key) || warnedCredentials.size >= 1024) return;
  warnedCredentials.add(key);
  const label = outcome.credentialId === undefined ? '' : ` (credential "${outcome.credentialId}")`;
  globalThis.process?.emitWarning?.(
    `${outcome.provider}/${outcome.model}${label} refused its credential (${reason}); the fallback moved on, but a person must fix the key`,
    { code: 'FAULTLINE_CREDENTIAL_REJECTED' },
  );
}

/** The parts a provider sends before any output: held back, so that a failure among them can still move on. */
const FRAMING_PARTS: ReadonlySet<string> = new Set([
  'stream-start',
  'response-metadata',
  'raw',
  'text-start',
  'reasoning-start',
  'tool-input-start',
]);

/** Whether a part commits the answer to this candidate: output (a non-empty delta, a tool call, a file, a finish). */
function commits(part: AiSdkStreamPart): boolean {
  if (part === null || typeof part !== 'object' || FRAMING_PARTS.has(part.type)) return false;
  if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta') {
    const text = part.delta ?? part.text ?? part.textDelta;
    return typeof text !== 'string' || text.length > 0;
  }
  return true;
}

/**
 * A fallback language model for the AI SDK (ai 5's LanguageModelV2, ai 6's V3), moved on by
 * faultline's classification rather than by status codes: `generateText`, `streamText`,
 * `generateObject` and `streamObject` call the candidates in order, through `@faultline/resilience`'s
 * chain (its fallback policy, shared health and retries), each candidate's failures read by the AI
 * SDK extractor of its provider. A stream moves on when it fails before its first output (a 200
 * stream that begins with an error part included), never after unless `fallbackAfterOutput`.
 * When every candidate fails, the call fails with a `FallbackChainError`. Use with `maxRetries: 0`.
 */
export function faultlineFallback<M extends FallbackLanguageModelLike>(
  options: FaultlineFallbackOptions<M>,
): FaultlineFallbackModel<M> {
  if (options === null || typeof options !== 'object')
    throw invalidOption(SCOPE, 'options', 'an object with models', options);
  checkOptionKeys(SCOPE, options, FALLBACK_OPTION_KEYS);
  checkOptionKeys(SCOPE, (options as { retry?: unknown }).retry, RETRY_OPTION_KEYS, 'retry');
  const { models } = options;
  if (!Array.isArray(models) || models.length === 0)
    throw invalidOption(SCOPE, 'models', 'a non-empty array of language models', models);
  const entries = models.map(entryOf);
  const version = (entries[0] as Entry).model.specificationVersion;
  const mixed = entries.findIndex((entry) => entry.model.specificationVersion !== version);
  if (mixed !== -1)
    throw invalidOption(
      SCOPE,
      `models[${mixed}]`,
      `a model of the same AI SDK major as models[0] (specificationVersion "${version}")`,
      entries[mixed]?.model.specificationVersion,
    );
  for (const [name, value] of [
    ['fallbackAfterOutput', options.fallbackAfterOutput],
    ['idempotent', options.idempotent],
  ] as const)
    if (value !== undefined && typeof value !== 'boolean')
      throw invalidOption(SCOPE, name, 'a boolean', value);
  for (const name of ['onOutcome', 'onError'] as const)
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw invalidOption(SCOPE, name, 'a function', options[name]);
  const chainOptions = (
    signal: AbortSignal | undefined,
    operation: string,
    prompt?: unknown,
  ): FallbackOptions => ({
    registry: options.registry,
    // What the prompt's text takes at least: a candidate whose window is smaller is not sent it.
    ...(prompt === undefined ? {} : { inputTokens: minimumTokenCount(promptText(prompt)) }),
    fallbackOn: options.fallbackOn,
    fallbackAfterOutput: options.fallbackAfterOutput,
    retry: options.retry,
    idempotent: options.idempotent,
    maxCooldownWaitMs: options.maxCooldownWaitMs,
    signal,
    operation,
    family: 'completion',
    onOutcome: (outcome, index) => {
      warnOfRejectedCredential(outcome);
      notify(options.onOutcome, outcome, index);
    },
  });
  // The chain's own checks (fallbackOn, retry), here where the options are given, not at a call.
  checkFallbackOptions(chainOptions(undefined, 'generate'), SCOPE);

  const candidateOf = <T>(
    entry: Entry,
    call: NonNullable<Candidate<T>['call']>,
    inspect: boolean,
    prompt: unknown,
  ): Candidate<T> => ({
    provider: entry.provider,
    model: entry.model.modelId,
    credentialId: entry.credentialId,
    contextWindow: entry.contextWindow,
    // The model's own count of this call's prompt, where the caller gave a counter.
    countTokens:
      entry.countTokens === undefined || prompt === undefined
        ? undefined
        : () => (entry.countTokens as NonNullable<Entry['countTokens']>)(prompt),
    // A success's budget, from the headers the AI SDK keeps on the result (`response.headers`; a
    // stream's as soon as it opens): calls are paced by it before the provider answers 429.
    readRateLimit: readRateLimitOf(entry),
    withClassifiedErrors: bindWithClassifiedErrors({
      extractors: [aiSdkExtractorFor(entry.model.provider)],
      override: options.override,
      ...(inspect ? { inspectResult: detectAiSdkBlockedAnswer } : {}),
    }),
    call,
  });

  const first = (entries[0] as Entry).model;
  const fail = (error: unknown): void => {
    if (FaultlineError.isInstance(error)) notify(options.onError, error);
  };

  const doGenerate = async (params: CallOptionsLike): Promise<unknown> => {
    try {
      return await runWithFallback(
        entries.map((entry) =>
          candidateOf(
            entry,
            ({ signal }) => entry.model.doGenerate(withSignal(params, signal)),
            true,
            params.prompt,
          ),
        ),
        chainOptions(params.abortSignal, 'generate', params.prompt),
      );
    } catch (error) {
      fail(error);
      throw error;
    }
  };

  const doStream = async (params: CallOptionsLike): Promise<{ stream: ReadableStream<AiSdkStreamPart> }> => {
    // What the committed candidate's doStream gave besides its stream (request, response).
    let opened: Record<string, unknown> = {};
    const candidates = entries.map((entry) =>
      candidateOf<AsyncIterable<AiSdkStreamPart>>(
        entry,
        async ({ signal }) => {
          const { stream, ...rest } = (await entry.model.doStream(
            streamParams(entry.model as ModelLike, params, signal, entry.model.provider),
          )) as { stream: ReadableStream<AiSdkStreamPart>; response?: unknown };
          const receivedAt = performance.now();
          const guarded = guardAiSdkStream(stream as unknown as AsyncIterable<AiSdkStreamPart>, {
            provider: entry.model.provider,
            model: entry.model.modelId,
            operation: 'stream',
            family: 'completion',
            signal,
            idleTimeoutMs: options.idleTimeoutMs,
            override: options.override,
            idempotent: options.idempotent,
            onAbandon: () => {
              stream.cancel().catch(() => undefined);
            },
          });
          const iterator = guarded[Symbol.asyncIterator]();
          // Read up to the first output: a failure before it is this call's failure, which the
          // chain retries or moves on from like any other; what was read is then replayed.
          const head: AiSdkStreamPart[] = [];
          for (;;) {
            const step = await iterator.next();
            if (step.done === true) break;
            head.push(step.value);
            if (commits(step.value)) break;
          }
          opened = rest;
          // The stream's response rides along, for its budget to be read as it opens, with the
          // moment it arrived (its first output is read before the chain sees the stream open).
          return Object.assign(replay(head, iterator), { response: rest.response, receivedAt });
        },
        false,
        params.prompt,
      ),
    );
    const chain = streamWithFallback(candidates, chainOptions(params.abortSignal, 'stream', params.prompt))[
      Symbol.asyncIterator
    ]();
    let head: IteratorResult<AiSdkStreamPart>;
    try {
      head = await chain.next();
    } catch (error) {
      if (params.abortSignal?.aborted === true) throw error;
      fail(error);
      // As faultlineMiddleware: ai 6 turns a thrown error into a NoOutputGeneratedError that has
      // lost it, a stream that fails with it keeps it; ai 5 (V2) is thrown to.
      if (version === 'v2' || !FaultlineError.isInstance(error)) throw error;
      return { stream: failedStream(error) };
    }
    const parts = (async function* (): AsyncGenerator<AiSdkStreamPart> {
      try {
        let step = head;
        while (step.done !== true) {
          yield step.value;
          step = await chain.next();
        }
      } finally {
        // A consumer that stops early releases the candidate's stream (and a breaker's probe slot).
        await chain.return?.();
      }
    })();
    return { ...opened, stream: partsStream(parts, params, fail) };
  };

  return {
    specificationVersion: version,
    provider: first.provider,
    modelId: first.modelId,
    // The first candidate's: a URL it takes is passed as is, and a later candidate that cannot
    // fetch it fails as it would without the fallback.
    get supportedUrls() {
      return first.supportedUrls;
    },
    doGenerate,
    doStream,
  } as unknown as FaultlineFallbackModel<M>;
}

/**
 * The text a language model prompt (V2's and V3's: system, user, assistant and tool messages)
 * sends as tokens: text and reasoning, tool calls' inputs and tool results' outputs as written.
 * Files and images are left out (a model counts them by their size, not their bytes), as is any
 * part of a shape it does not know: what is read is a lower bound of what is sent.
 */
function promptText(prompt: unknown): string[] {
  const texts: string[] = [];
  if (!Array.isArray(prompt)) return texts;
  const add = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (value !== null && typeof value === 'object')
      try {
        const json = JSON.stringify(value);
        if (typeof json === 'string') texts.push(json);
      } catch {
        // A value JSON cannot write (a cycle, a throwing getter) is not what was sent: it counts 0.
      }
  };
  for (const message of prompt as unknown[]) {
    if (message === null || typeof message !== 'object') continue;
    const content = (message as { content?: unknown }).content;
    if (typeof content === 'string') texts.push(content);
    if (!Array.isArray(content)) continue;
    for (const part of content as unknown[]) {
      if (part === null || typeof part !== 'object') continue;
      const { type } = part as { type?: unknown };
      if (type === 'text' || type === 'reasoning') add((part as { text?: unknown }).text);
      else if (type === 'tool-call') add((part as { input?: unknown }).input);
      else if (type === 'tool-result') {
        const output = (part as { output?: unknown }).output as
          | { type?: unknown; value?: unknown }
          | undefined;
        if (output === null || typeof output !== 'object') continue;
        if (output.type === 'content' && Array.isArray(output.value)) {
          for (const item of output.value as unknown[])
            if (item !== null && typeof item === 'object' && (item as { type?: unknown }).type === 'text')
              add((item as { text?: unknown }).text);
        } else if (output.type !== 'content') add(output.value);
      }
    }
  }
  return texts;
}

/**
 * A candidate's budget reader. A stream's response arrived before its first output was read (the
 * chain sees the stream open only then): its resets, stated relative to the answer ("1s"), are
 * counted from the arrival (when `doStream` resolved: a provider that reads to the first output
 * before resolving hides any earlier moment), so the key is not held cool for the time to the first
 * token as well.
 */
function readRateLimitOf(entry: Entry): ((result: unknown) => RateLimitBudget | undefined) | undefined {
  const read = entry.readRateLimit;
  if (read === undefined) return undefined;
  return (result) => {
    const budget = read(result);
    const receivedAt = (result as { receivedAt?: unknown } | null)?.receivedAt;
    if (budget === undefined || typeof receivedAt !== 'number') return budget;
    const ageSeconds = Math.max(0, performance.now() - receivedAt) / 1000;
    const aged = (window: RateLimitWindow | undefined): RateLimitWindow | undefined =>
      window?.resetSeconds === undefined
        ? window
        : { ...window, resetSeconds: Math.max(0, window.resetSeconds - ageSeconds) };
    const requests = aged(budget.requests);
    const tokens = aged(budget.tokens);
    return {
      ...(requests === undefined ? {} : { requests }),
      ...(tokens === undefined ? {} : { tokens }),
    };
  };
}

/** The parts read before the output, then the rest of the stream. */
function replay(
  head: readonly AiSdkStreamPart[],
  iterator: AsyncIterator<AiSdkStreamPart>,
): AsyncIterable<AiSdkStreamPart> {
  return {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        next: () =>
          index < head.length
            ? Promise.resolve({ done: false, value: head[index++] as AiSdkStreamPart })
            : iterator.next(),
        return: async () => {
          index = head.length;
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
