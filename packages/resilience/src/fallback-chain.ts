import { setTimeout as wait } from 'node:timers/promises';
import {
  type Classification,
  classificationFor,
  type DeliveredOutput,
  type Extractor,
  type FailureReason,
} from '@faultline/classify';
import {
  type AttemptContext,
  classifyError,
  type ErrorReport,
  FaultlineContextError,
  FaultlineError,
  type InferenceFamily,
} from '@faultline/render';
import { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from '@faultline/render/toolkit';
import { fallsBack } from './fallback-policy.ts';
import { type Admission, type HealthKey, HealthRegistry } from './health-registry.ts';

/** One provider and model to try, with its own call and its own adapter. */
export interface Candidate<T> extends HealthKey {
  /** Runs the call (for a stream: opens it and returns the guarded stream). Pass `signal` to the SDK. */
  readonly call: (context: AttemptContext) => Promise<T> | T;
  /**
   * The adapter's bound `withClassifiedErrors` (`@faultline/extract-openai`'s, ...), which knows
   * how to read this SDK's errors. Without it, render's own with `extractors`.
   */
  readonly withClassifiedErrors?: BoundWithClassifiedErrors | undefined;
  /** Extractors for render's `withClassifiedErrors` when no bound one is given. */
  readonly extractors?: readonly Extractor[] | undefined;
  /** The model's context window in tokens: a `context_overflow` moves only to a larger one. */
  readonly contextWindow?: number | undefined;
}

export interface ChainRetryOptions {
  /** Attempts per candidate, the first included. Default 2. */
  readonly maxAttempts?: number | undefined;
  /** Backoff base: attempt n waits up to `baseDelayMs * 2^(n-1)` (full jitter). Default 500. */
  readonly baseDelayMs?: number | undefined;
  /** Backoff ceiling. Default 30 000. */
  readonly maxDelayMs?: number | undefined;
  /** A Retry-After longer than this ends the candidate instead of being waited for. Default 60. */
  readonly maxRetryAfterSeconds?: number | undefined;
}

export interface FallbackOptions {
  /** Shared health (cooldowns, breakers, budgets). Default: one registry for the whole process. */
  readonly registry?: HealthRegistry | undefined;
  /** Turn table rows on or off (`{ content_policy: true, context_overflow: true }`); see `DEFAULT_FALLBACK_ON`. */
  readonly fallbackOn?: Partial<Record<FailureReason, boolean>> | undefined;
  /** Retries on one candidate before moving on (transient failures only). `false`: one attempt each. */
  readonly retry?: false | ChainRetryOptions | undefined;
  /** When only cooling keys are left, wait this long at most for the soonest. Default 10 000; 0 never waits. */
  readonly maxCooldownWaitMs?: number | undefined;
  /** The caller's abort: ends the chain at once and leaves untouched. */
  readonly signal?: AbortSignal | undefined;
  /** Ambiguous failures (`interrupted`) may be retried on the same candidate. */
  readonly idempotent?: boolean | undefined;
  /** Streams: fall back even after output was delivered (the report then says how much). Default false. */
  readonly fallbackAfterOutput?: boolean | undefined;
  readonly operation?: string | undefined;
  readonly family?: InferenceFamily | undefined;
  /** Waits (backoff, cooldown); tests pass one that advances a fake clock. Must reject on `signal`. */
  readonly sleep?: ((milliseconds: number, signal: AbortSignal | undefined) => Promise<void>) | undefined;
  /** Jitter source, [0, 1). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
  /**
   * Called with each candidate's outcome as it is settled (a stream that fell back after output
   * learns here what the failed candidate had delivered). A throwing listener is ignored.
   */
  readonly onOutcome?: ((outcome: CandidateOutcome, index: number) => void) | undefined;
}

/** Why a candidate was not called. */
export type SkipReason =
  | 'cooling'
  | 'breaker_open'
  | 'smaller_context_window'
  | 'same_credential'
  | 'chain_ended';

/** Why a candidate's retries stopped before its attempts ran out. */
export type RetryStop =
  | 'retry_budget'
  | 'key_cooling'
  | 'retry_after_over_cap'
  | 'breaker_open'
  | 'output_delivered';

/** What happened to one candidate, in chain order. */
export interface CandidateOutcome {
  readonly provider: string;
  readonly model: string;
  readonly credentialId?: string | undefined;
  readonly status: 'succeeded' | 'failed' | 'skipped';
  readonly skipped?: SkipReason | undefined;
  /** For a skipped cooling or open key: how long it had left. */
  readonly waitMs?: number | undefined;
  /** Calls made to this candidate. */
  readonly attempts: number;
  /** The waits before each retry (and before a cooled key was waited for). */
  readonly waitsMs: readonly number[];
  readonly retryStopped?: RetryStop | undefined;
  /** The last failure's report (for a failed candidate). */
  readonly report?: ErrorReport | undefined;
  /** Output a stream had delivered from this candidate before it failed. */
  readonly delivered?: DeliveredOutput | undefined;
  /** This candidate was the breaker's half-open probe. */
  readonly probe?: boolean | undefined;
}

export interface FallbackChainErrorOptions {
  /** The last candidate's FaultlineError: the chain's classification is inherited from it. */
  readonly cause: unknown;
  readonly candidates: readonly CandidateOutcome[];
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly operation?: string | undefined;
}

/**
 * Every candidate of a chain failed or was skipped. A context wrapper: its classification (and so
 * `toErrorReport()`) is inherited from `cause`, the last candidate's own FaultlineError;
 * `candidates` holds every candidate's outcome and report, in order.
 */
export class FallbackChainError extends FaultlineContextError {
  static override readonly errorType: string = 'FallbackChainError';
  readonly candidates: readonly CandidateOutcome[];

  constructor(message: string, options: FallbackChainErrorOptions) {
    const limit = Error.stackTraceLimit;
    // A wrapper needs no stack of its own: the cause holds the frames that matter.
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.candidates = Object.freeze([...options.candidates]);
  }

  /** The last failure's report plus every candidate's outcome: JSON-only, safe to log. */
  toFallbackReport(): { readonly report: ErrorReport; readonly candidates: readonly CandidateOutcome[] } {
    return { report: this.toErrorReport(), candidates: this.candidates };
  }
}

let processRegistry: HealthRegistry | undefined;

/** The registry chains use when none is given: one per process, in memory. */
export function defaultHealthRegistry(): HealthRegistry {
  processRegistry ??= new HealthRegistry();
  return processRegistry;
}

/** Waits; rejects with the signal's own reason (the caller's abort, untouched) when it fires. */
async function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await wait(milliseconds, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    throw signal?.aborted === true ? signal.reason : error;
  }
}

function finite(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

interface Policy {
  readonly registry: HealthRegistry;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterSeconds: number;
  readonly maxCooldownWaitMs: number;
  readonly sleep: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
  readonly random: () => number;
}

function policyOf(options: FallbackOptions): Policy {
  const retry = options.retry === false ? { maxAttempts: 1 } : (options.retry ?? {});
  return {
    registry: options.registry ?? defaultHealthRegistry(),
    maxAttempts: Math.max(1, Math.floor(finite(retry.maxAttempts, 2))),
    baseDelayMs: finite(retry.baseDelayMs, 500),
    maxDelayMs: finite(retry.maxDelayMs, 30_000),
    maxRetryAfterSeconds: finite(retry.maxRetryAfterSeconds, 60),
    maxCooldownWaitMs: finite(options.maxCooldownWaitMs, 10_000),
    sleep: typeof options.sleep === 'function' ? options.sleep : sleep,
    random: typeof options.random === 'function' ? options.random : Math.random,
  };
}

/** Runs one attempt of a candidate; yields a stream's chunks, returns the call's result. */
type Attempt<T, C> = (candidate: Candidate<T>, context: AttemptContext) => AsyncGenerator<C, T, undefined>;

/** Thrown inside the core to end the chain with the caller's abort, untouched. */
class CallerAbort {
  constructor(readonly thrown: unknown) {}
}

// A candidate without its adapter's withClassifiedErrors gives its extractors per call.
const withCandidateExtractors: BoundWithClassifiedErrors = bindWithClassifiedErrors({});

function withClassifiedErrorsOf<T>(candidate: Candidate<T>): BoundWithClassifiedErrors {
  return typeof candidate.withClassifiedErrors === 'function'
    ? candidate.withClassifiedErrors
    : withCandidateExtractors;
}

function retryable(classification: Classification, idempotent: boolean | undefined): boolean {
  return classification.retryable || (idempotent === true && classification.category === 'ambiguous');
}

/**
 * The chain itself, for calls and streams alike: candidates in order, each admitted by the
 * registry (cooling and open keys are skipped), retried within its attempts and the key's budget,
 * left for the next when the table says so.
 *
 * The retry loop is this package's own, not withClassifiedErrors' (each attempt runs through the
 * candidate's withClassifiedErrors with its retries off): a retry here must ask the shared budget
 * and the key's cooldown and breaker before it is sent, and must not wait out a Retry-After when
 * another candidate can answer now; render's loop is per call and has no such hook.
 */
async function* runChain<T, C>(
  candidates: readonly Candidate<T>[],
  options: FallbackOptions,
  attempt: Attempt<T, C>,
): AsyncGenerator<C, T, undefined> {
  const policy = policyOf(options);
  const { registry } = policy;
  const signal = options.signal;
  const outcomes: Array<CandidateOutcome | undefined> = candidates.map(() => undefined);
  const deferred: Array<{ index: number; waitMs: number }> = [];
  let lastError: FaultlineError | undefined;
  let lastIndex = -1;
  let ended = false;
  // Constraints a failure puts on the candidates after it.
  let minContextWindow: number | undefined;
  let avoidCredential: string | undefined;
  let outputSeen = false;

  const settle = (index: number, outcome: CandidateOutcome) => {
    outcomes[index] = outcome;
    if (typeof options.onOutcome !== 'function') return;
    try {
      options.onOutcome(outcome, index);
    } catch {
      // A listener never changes the outcome.
    }
  };
  const keyOf = (candidate: Candidate<T>): HealthKey => ({
    provider: candidate.provider,
    model: candidate.model,
    credentialId: candidate.credentialId,
  });
  const base = (candidate: Candidate<T>) => ({
    provider: candidate.provider,
    model: candidate.model,
    ...(candidate.credentialId === undefined ? {} : { credentialId: candidate.credentialId }),
  });

  /** Calls one admitted candidate until it succeeds, or gives up on it. Returns true on success. */
  async function* tryCandidate(
    index: number,
    firstAdmission: Admission,
    initialWaits: number[],
  ): AsyncGenerator<C, { ok: true; value: T } | { ok: false }, undefined> {
    const candidate = candidates[index] as Candidate<T>;
    const key = keyOf(candidate);
    const guard = withClassifiedErrorsOf(candidate);
    const waitsMs = initialWaits;
    let admission = firstAdmission;
    let retryStopped: RetryStop | undefined;
    let delivered = 0;
    for (let number = 1; ; number++) {
      const context: AttemptContext = { signal, attempt: number };
      let error: FaultlineError;
      const generator = attempt(
        {
          ...candidate,
          // Each attempt through the adapter's own guard, retries off: this loop decides them.
          call: (attemptContext) =>
            guard(() => candidate.call(attemptContext), {
              signal,
              model: candidate.model,
              ...(candidate.withClassifiedErrors === undefined
                ? { provider: candidate.provider, extractors: candidate.extractors }
                : {}),
              ...(options.operation === undefined ? {} : { operation: options.operation }),
              ...(options.family === undefined ? {} : { family: options.family }),
              ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
            }),
        },
        context,
      );
      let finished = false;
      try {
        for (;;) {
          const step = await generator.next();
          if (step.done === true) {
            finished = true;
            await registry.recordSuccess(key, admission);
            settle(index, {
              ...base(candidate),
              status: 'succeeded',
              attempts: number,
              waitsMs,
              ...(admission.kind === 'probe' ? { probe: true } : {}),
            });
            return { ok: true, value: step.value };
          }
          delivered++;
          yield step.value;
        }
      } catch (thrown) {
        finished = true;
        if (signal?.aborted === true) {
          await registry.release(key, admission);
          throw new CallerAbort(thrown);
        }
        error = FaultlineError.isInstance(thrown)
          ? thrown
          : classifyError(thrown, {
              signal,
              provider: candidate.provider,
              model: candidate.model,
              extractors: candidate.extractors,
              streaming: delivered > 0,
              ...(delivered > 0 ? { delivered: { chunks: delivered, characters: 0 } } : {}),
            });
        if (error.classification.callerAborted) {
          await registry.release(key, admission);
          throw new CallerAbort(thrown);
        }
      } finally {
        // The consumer stopped early (return() on the chain): release the candidate's stream, and
        // the probe slot, since no verdict on the provider came back.
        if (!finished) {
          await generator.return(undefined as never);
          await registry.release(key, admission);
        }
      }
      const classification = error.classification;
      await registry.recordFailure(key, classification, admission);
      lastError = error;
      lastIndex = index;
      const deliveredOutput =
        delivered > 0 ? (error.delivered ?? { chunks: delivered, characters: 0 }) : undefined;
      // Output is what a guard measured (characters); a stream without a guard's measure counts
      // chunks. Chunks without output (a `message_start`, a role delta) do not stop a fallback.
      const outputDelivered =
        deliveredOutput !== undefined &&
        (error.delivered !== undefined ? deliveredOutput.characters > 0 : deliveredOutput.chunks > 0);
      if (outputDelivered) outputSeen = true;
      const fail = () => {
        settle(index, {
          ...base(candidate),
          status: 'failed',
          attempts: number,
          waitsMs,
          report: error.toErrorReport(),
          ...(retryStopped === undefined ? {} : { retryStopped }),
          ...(deliveredOutput === undefined ? {} : { delivered: deliveredOutput }),
          ...(admission.kind === 'probe' ? { probe: true } : {}),
        });
        return { ok: false } as const;
      };
      if (!retryable(classification, options.idempotent) || number >= policy.maxAttempts) return fail();
      if (outputDelivered) {
        retryStopped = 'output_delivered';
        return fail();
      }
      const waitSeconds = classification.retryAfterSeconds;
      // The provider asked for a wait: the key now cools for everyone; another candidate answers now.
      if (waitSeconds !== undefined && candidates.some((_, later) => later > index && usable(later))) {
        retryStopped = 'key_cooling';
        return fail();
      }
      if (waitSeconds !== undefined && waitSeconds > policy.maxRetryAfterSeconds) {
        retryStopped = 'retry_after_over_cap';
        return fail();
      }
      if (!(await registry.tryRetry(key))) {
        retryStopped = 'retry_budget';
        return fail();
      }
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (number - 1));
      const jitter = Math.min(Math.max(policy.random(), 0), 1);
      const delayMs = Math.max(Math.floor(jitter * ceiling), Math.ceil((waitSeconds ?? 0) * 1000));
      waitsMs.push(delayMs);
      try {
        await policy.sleep(delayMs, signal);
      } catch (thrown) {
        throw new CallerAbort(thrown);
      }
      // Another call may have opened the breaker meanwhile; our own Retry-After is over.
      const next = await registry.admit(key);
      if (next.kind === 'open') {
        retryStopped = 'breaker_open';
        return fail();
      }
      if (next.kind === 'cooling' && next.waitMs > 0) {
        retryStopped = 'key_cooling';
        return fail();
      }
      admission = next;
    }
  }

  /** Whether a later candidate may still be called given the constraints so far. */
  function usable(index: number): boolean {
    const candidate = candidates[index] as Candidate<T>;
    if (minContextWindow !== undefined && !((candidate.contextWindow ?? 0) > minContextWindow)) return false;
    if (avoidCredential !== undefined && candidate.credentialId === avoidCredential) return false;
    return true;
  }

  /** After a failure: may the chain go on, and under which constraint? */
  function decide(index: number): boolean {
    const error = lastError;
    if (error === undefined) return true;
    const candidate = candidates[index] as Candidate<T>;
    const reason = error.classification.reason;
    if (outputSeen && options.fallbackAfterOutput !== true) return false;
    if (!fallsBack(reason, options.fallbackOn)) return false;
    if (reason === 'context_overflow') {
      if (candidate.contextWindow === undefined) return false;
      minContextWindow = Math.max(minContextWindow ?? 0, candidate.contextWindow);
    }
    if (reason === 'auth') avoidCredential = candidate.credentialId ?? 'default';
    return true;
  }

  try {
    for (let index = 0; index < candidates.length; index++) {
      const candidate = candidates[index] as Candidate<T>;
      if (ended) {
        settle(index, {
          ...base(candidate),
          status: 'skipped',
          skipped: 'chain_ended',
          attempts: 0,
          waitsMs: [],
        });
        continue;
      }
      if (!usable(index)) {
        settle(index, {
          ...base(candidate),
          status: 'skipped',
          skipped: minContextWindow !== undefined ? 'smaller_context_window' : 'same_credential',
          attempts: 0,
          waitsMs: [],
        });
        continue;
      }
      const admission = await registry.admit(keyOf(candidate));
      if (admission.kind === 'cooling' || admission.kind === 'open') {
        settle(index, {
          ...base(candidate),
          status: 'skipped',
          skipped: admission.kind === 'cooling' ? 'cooling' : 'breaker_open',
          waitMs: admission.waitMs,
          attempts: 0,
          waitsMs: [],
        });
        if (admission.kind === 'cooling') deferred.push({ index, waitMs: admission.waitMs });
        continue;
      }
      const result = yield* tryCandidate(index, admission, []);
      if (result.ok) return result.value;
      if (!decide(index)) ended = true;
    }
    // Only cooling keys left: wait for the soonest when within the cap, then try it once more.
    if (!ended && deferred.length > 0) {
      const soonest = deferred.reduce((best, entry) => (entry.waitMs < best.waitMs ? entry : best));
      if (soonest.waitMs <= policy.maxCooldownWaitMs && usable(soonest.index)) {
        try {
          await policy.sleep(soonest.waitMs, signal);
        } catch (thrown) {
          throw new CallerAbort(thrown);
        }
        const candidate = candidates[soonest.index] as Candidate<T>;
        const admission = await registry.admit(keyOf(candidate));
        if (admission.kind === 'allow' || admission.kind === 'probe') {
          const result = yield* tryCandidate(soonest.index, admission, [soonest.waitMs]);
          if (result.ok) return result.value;
        }
      }
    }
  } catch (thrown) {
    if (thrown instanceof CallerAbort) throw thrown.thrown;
    throw thrown;
  }
  throw chainError(candidates, outcomes, lastError, lastIndex, options);
}

function chainError<T>(
  candidates: readonly Candidate<T>[],
  outcomes: ReadonlyArray<CandidateOutcome | undefined>,
  lastError: FaultlineError | undefined,
  lastIndex: number,
  options: FallbackOptions,
): FallbackChainError {
  const list = outcomes.map(
    (outcome, index): CandidateOutcome =>
      outcome ?? {
        provider: (candidates[index] as Candidate<T>).provider,
        model: (candidates[index] as Candidate<T>).model,
        status: 'skipped',
        skipped: 'chain_ended',
        attempts: 0,
        waitsMs: [],
      },
  );
  const tried = list.filter((outcome) => outcome.status === 'failed').length;
  if (lastError !== undefined) {
    const last = candidates[lastIndex] as Candidate<T>;
    return new FallbackChainError(
      `${tried} of ${candidates.length} candidates failed; the last (${last.provider}/${last.model}): ${lastError.message}`,
      {
        cause: lastError,
        candidates: list,
        provider: last.provider,
        model: last.model,
        operation: options.operation,
      },
    );
  }
  // Nothing was called: every key was cooling or its breaker open. Transient, with the soonest wait.
  const waits = list
    .map((outcome) => outcome.waitMs)
    .filter((wait): wait is number => typeof wait === 'number');
  const soonest = waits.length > 0 ? Math.min(...waits) : undefined;
  const allCooling = list.length > 0 && list.every((outcome) => outcome.skipped === 'cooling');
  const classification = classificationFor(allCooling ? 'rate_limit' : 'overloaded', {
    retryAfterSeconds: soonest === undefined ? undefined : Math.ceil(soonest) / 1000,
  });
  const message =
    candidates.length === 0
      ? 'The fallback chain has no candidates'
      : `No candidate could be called: ${list.map((outcome) => `${outcome.provider}/${outcome.model} ${outcome.skipped ?? outcome.status}`).join(', ')}`;
  return new FallbackChainError(message, {
    cause: new FaultlineError(message, { classification }),
    candidates: list,
    operation: options.operation,
  });
}

/**
 * Runs `candidates` in order until one succeeds. Each candidate's call runs through its adapter's
 * `withClassifiedErrors`; a failure moves on as DESIGN's table says (`DEFAULT_FALLBACK_ON`), a
 * cooling or open key is skipped, the caller's abort ends the chain untouched. When all fail, a
 * `FallbackChainError` carries the last classification and every candidate's outcome.
 */
export async function runWithFallback<T>(
  candidates: readonly Candidate<T>[],
  options: FallbackOptions = {},
): Promise<T> {
  // biome-ignore lint/correctness/useYield: the chain runs calls and streams alike; a call yields no chunk.
  const chain = runChain<T, never>(candidates, options, async function* (candidate, context) {
    return await candidate.call(context);
  });
  for (;;) {
    const step = await chain.next();
    if (step.done === true) return step.value;
  }
}

/**
 * A stream through a fallback chain: each candidate's `call` opens a stream (a guarded one, e.g.
 * `guardOpenAIStream(await client.chat.completions.create({ stream: true }))`). A candidate that
 * fails before delivering any chunk is left for the next as the table says; once a chunk has been
 * delivered the chain ends with the failure, unless `fallbackAfterOutput` (then the next candidate
 * starts its answer anew, and the outcome says how much the failed one had delivered).
 */
export function streamWithFallback<S extends AsyncIterable<unknown>>(
  candidates: readonly Candidate<S>[],
  options: FallbackOptions = {},
): AsyncIterable<S extends AsyncIterable<infer C> ? C : never> {
  type Chunk = S extends AsyncIterable<infer C> ? C : never;
  return {
    [Symbol.asyncIterator]() {
      const generator = runChain<S, Chunk>(candidates, options, async function* (candidate, context) {
        const stream = await candidate.call(context);
        for await (const chunk of stream) yield chunk as Chunk;
        return stream;
      });
      return {
        next: async () => {
          const step = await generator.next();
          return step.done === true ? { done: true, value: undefined } : step;
        },
        return: async () => {
          await generator.return(undefined as never);
          return { done: true, value: undefined };
        },
      } as AsyncIterator<Chunk>;
    },
  };
}
