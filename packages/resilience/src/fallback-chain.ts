import {
  type Classification,
  classificationFor,
  type DeliveredOutput,
  type Extractor,
  type FailureReason,
  type RateLimitBudget,
  TAXONOMY,
} from '@faultline/classify';
import { invalidOption } from '@faultline/classify/toolkit';
import {
  type AttemptContext,
  classifyError,
  type ErrorReport,
  FaultlineContextError,
  FaultlineError,
  type InferenceFamily,
  outputDelivered as isOutputDelivered,
  type RetryOptions,
} from '@faultline/render';
import {
  abortableSleep,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  checkOptionKeys,
  RETRY_OPTION_KEYS,
  type RetryPolicy,
  type RetryState,
  retryLoop,
  retryPolicy,
} from '@faultline/render/toolkit';
import {
  type PooledCredential,
  type QuotaScope,
  type ResolvedCandidate as Resolved,
  resolveCandidates,
} from './credential-pool.ts';
import { fallbackRule } from './fallback-policy.ts';
import { type Admission, type HealthKey, HealthRegistry } from './health-registry.ts';
import { type ModelCatalog, modelLimits } from './model-catalog.ts';
import { FALLBACK_OPTION_KEYS } from './option-keys.ts';

/** What every candidate holds, whether it makes its call with one key or with a pool. */
export interface CandidateOptions<T> extends HealthKey {
  /**
   * The adapter's bound `withClassifiedErrors` (`@faultline/extract-openai`'s, ...), which knows
   * how to read this SDK's errors. Without it, render's own with `extractors`.
   */
  readonly withClassifiedErrors?: BoundWithClassifiedErrors | undefined;
  /** Extractors for render's `withClassifiedErrors` when no bound one is given. */
  readonly extractors?: readonly Extractor[] | undefined;
  /**
   * The model's context window in tokens: a `context_overflow` moves only to a larger one.
   * Default: the model catalog's (`modelCatalog`), when it lists the model.
   */
  readonly contextWindow?: number | undefined;
  /**
   * Reads the rate-limit budget of a success from what `call` returned: the adapter's
   * `readRateLimit` (given a `withResponse()` result or a `Response`; for a stream, read as soon as
   * it opens, the stream with its `response` attached: `Object.assign(guardStream(data), { response })`
   * of a `withResponse()`). Calls are then paced by it; a failure's budget is read without it.
   */
  readonly readRateLimit?: ((result: T) => RateLimitBudget | undefined) | undefined;
  /**
   * Counts the prompt's tokens as this candidate's model does (your tokenizer for it, or the
   * provider's count endpoint), for a candidate whose window is known: a prompt larger than the
   * window skips it with no request (`input_over_window`). Without it, `inputTokens` decides (a
   * lower bound: a prompt between one and about two windows is still sent). Called once per chain,
   * when the candidate is reached and the lower bound does not already rule it out; a counter that
   * throws or returns anything but a finite number ≥ 0 counts nothing (the lower bound decides). No
   * tokenizer is bundled.
   */
  readonly countTokens?:
    | ((context: { readonly signal: AbortSignal | undefined }) => number | Promise<number>)
    | undefined;
  /**
   * Whether the provider's limits belong to each key (`credential`) or to the project, organization
   * or account that holds it (`account`). Default: what the provider states (`QUOTA_SCOPES`), else
   * `credential`.
   */
  readonly quotaScope?: QuotaScope | undefined;
}

/**
 * One provider and model to try, with its own call (or a pool of keys, each with its call) and its
 * own adapter.
 */
export type Candidate<T> = CandidateOptions<T> &
  (
    | {
        /** Runs the call (for a stream: opens it and returns the guarded stream). Pass `signal` to the SDK. */
        readonly call: (context: AttemptContext) => Promise<T> | T;
        readonly credentials?: undefined;
      }
    | {
        /**
         * A credential pool: the keys tried in order, each with its own call. A 429 or a spent
         * allowance moves to the next key of another account first (keys of one account share its
         * limits where the provider says so, and cool together); a rejected key is set aside.
         */
        readonly credentials: readonly PooledCredential<T>[];
        readonly call?: undefined;
      }
  );

export interface FallbackOptions {
  /** Shared health (cooldowns, breakers, budgets). Default: one registry for the whole process. */
  readonly registry?: HealthRegistry | undefined;
  /**
   * Turn rows of the taxonomy's fallback column on (`{ content_policy: true }`) or off
   * (`{ rate_limit: false }`); a row that never moves on (`invalid_request` ...) cannot be turned on.
   */
  readonly fallbackOn?: Partial<Record<FailureReason, boolean>> | undefined;
  /**
   * Retries on one candidate before moving on: the same option, defaults and loop as
   * `withClassifiedErrors` (3 attempts; docs/retries.md). `false`: one attempt each.
   */
  readonly retry?: boolean | RetryOptions | undefined;
  /** When only cooling keys are left, wait this long at most for the soonest. Default 10 000; 0 never waits. */
  readonly maxCooldownWaitMs?: number | undefined;
  /**
   * A key whose rate limit resets (its budget spent, or a 429's wait) within this long is waited for
   * rather than left for the next candidate; a later reset moves on. Default 250; 0 never waits.
   */
  readonly maxResetWaitMs?: number | undefined;
  /**
   * Where a candidate that declares no `contextWindow` gets one: the shipped catalog
   * (`modelLimits`, a dated snapshot of models.dev) by default, a lookup of your own, or `false`
   * for none (a `context_overflow` then moves on only between declared windows).
   */
  readonly modelCatalog?: ModelCatalog | false | undefined;
  /**
   * The prompt's size in tokens, or a lower bound of it (`minimumTokenCount(text)`, with no
   * tokenizer): a candidate whose window (declared, or the catalog's) is smaller is skipped with no
   * request (`input_over_window`); a candidate whose window is not known is called. A candidate's
   * own `countTokens`, when it has one, counts for it instead.
   */
  readonly inputTokens?: number | undefined;
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
  /** The prompt (`inputTokens`) is larger than the candidate's window: no request could succeed. */
  | 'input_over_window'
  | 'same_credential'
  /** The provider rejected this key on an earlier call (any caller of the registry): it is set aside. */
  | 'credential_rejected'
  | 'chain_ended';

/** Why a candidate's retries stopped before its attempts ran out. */
export type RetryStop =
  | 'retry_budget'
  | 'key_cooling'
  | 'retry_after_over_cap'
  /** The next wait would have ended past `retry.maxElapsedMs`. */
  | 'time_budget'
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
  /** For a candidate skipped as `input_over_window`: the prompt's tokens (its `countTokens`, else at least `inputTokens`). */
  readonly inputTokens?: number | undefined;
  /** For a candidate skipped as `input_over_window`: its window, declared or the catalog's. */
  readonly contextWindow?: number | undefined;
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

interface Policy {
  readonly registry: HealthRegistry;
  readonly retry: RetryPolicy | undefined;
  readonly maxCooldownWaitMs: number;
  readonly maxResetWaitMs: number;
  readonly modelCatalog: ModelCatalog | undefined;
  readonly inputTokens: number | undefined;
  readonly sleep: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
}

/**
 * Checks a chain's options (a TypeError naming `scope`, before any call): for an integration that
 * builds its chains later, per call, and must refuse a bad option where it is given.
 */
export function checkFallbackOptions(options: FallbackOptions, scope: string): void {
  policyOf(options, scope);
}

/** Checks a chain's options (a TypeError naming `scope`, before any call) and fills in the defaults. */
function policyOf(options: FallbackOptions, scope: string): Policy {
  if (options === null || typeof options !== 'object')
    throw invalidOption(scope, 'options', 'an object', options);
  checkOptionKeys(scope, options, FALLBACK_OPTION_KEYS);
  checkOptionKeys(scope, (options as { retry?: unknown }).retry, RETRY_OPTION_KEYS, 'retry');
  const fallbackOn: unknown = options.fallbackOn;
  if (fallbackOn !== undefined) {
    if (fallbackOn === null || typeof fallbackOn !== 'object')
      throw invalidOption(scope, 'fallbackOn', 'an object of reasons', fallbackOn);
    for (const [reason, on] of Object.entries(fallbackOn)) {
      if (typeof on !== 'boolean')
        throw new TypeError(`${scope}: fallbackOn.${reason} must be a boolean (got ${String(on)})`);
      const row = (TAXONOMY as Readonly<Record<string, { fallback: string } | undefined>>)[reason];
      if (row === undefined) throw new TypeError(`${scope}: fallbackOn.${reason} is not a failure reason`);
      if (on && row.fallback === 'no')
        throw new TypeError(
          `${scope}: fallbackOn.${reason} cannot be turned on: no other candidate can fix it`,
        );
    }
  }
  const nonNegative = (name: string, value: unknown): number | undefined => {
    if (value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0))
      return value;
    throw invalidOption(scope, name, 'a finite number ≥ 0', value);
  };
  const wait = nonNegative('maxCooldownWaitMs', options.maxCooldownWaitMs);
  const resetWait = nonNegative('maxResetWaitMs', options.maxResetWaitMs);
  const inputTokens = nonNegative('inputTokens', options.inputTokens);
  const sleep: unknown = options.sleep;
  if (sleep !== undefined && typeof sleep !== 'function')
    throw invalidOption(scope, 'sleep', 'a function (ms, signal) => Promise', sleep);
  const registry: unknown = options.registry;
  // Structural, not instanceof: an app may hold two copies of this package.
  if (registry !== undefined && typeof (registry as { admit?: unknown } | null)?.admit !== 'function')
    throw invalidOption(scope, 'registry', 'a HealthRegistry', registry);
  const catalog: unknown = options.modelCatalog;
  if (catalog !== undefined && catalog !== false && typeof catalog !== 'function')
    throw invalidOption(scope, 'modelCatalog', 'a function (provider, model) => limits, or false', catalog);
  return {
    registry: options.registry ?? defaultHealthRegistry(),
    retry: retryPolicy(options.retry, scope),
    maxCooldownWaitMs: wait ?? 10_000,
    maxResetWaitMs: resetWait ?? 250,
    modelCatalog: catalog === false ? undefined : ((catalog as ModelCatalog | undefined) ?? modelLimits),
    inputTokens,
    sleep: options.sleep ?? abortableSleep,
  };
}

/** Runs one attempt of a candidate; yields a stream's chunks, returns the call's result. */
type Attempt<T, C> = (
  candidate: Resolved<T>,
  context: AttemptContext,
  /** Called with a stream as soon as it is open, before its first chunk (its budget is read then). */
  opened: (value: T) => Promise<void>,
) => AsyncGenerator<C, T, undefined>;

/** Thrown inside the core to end the chain with the caller's abort, untouched. */
class CallerAbort {
  constructor(readonly thrown: unknown) {}
}

/** `registry.admit`, whose only throw (the caller's abort ending a wait for a key's first outcome) is the caller's. */
async function admitted(
  registry: HealthRegistry,
  key: HealthKey,
  signal: AbortSignal | undefined,
): Promise<Admission> {
  try {
    return await registry.admit(key, { signal });
  } catch (thrown) {
    throw new CallerAbort(thrown);
  }
}

// A candidate without its adapter's withClassifiedErrors gives its extractors per call.
const withCandidateExtractors: BoundWithClassifiedErrors = bindWithClassifiedErrors({});

function withClassifiedErrorsOf<T>(candidate: Resolved<T>): BoundWithClassifiedErrors {
  return typeof candidate.withClassifiedErrors === 'function'
    ? candidate.withClassifiedErrors
    : withCandidateExtractors;
}

function retryable(classification: Classification, idempotent: boolean | undefined): boolean {
  return classification.retryable || (idempotent === true && classification.category === 'ambiguous');
}

/** A candidate's credential as the chain compares them: another provider is another credential. */
function credentialOf(candidate: HealthKey): string {
  return `${candidate.provider}\u0000${candidate.credentialId ?? 'default'}`;
}

/**
 * The chain itself, for calls and streams alike: candidates in order, each admitted by the
 * registry (cooling and open keys are skipped), retried through render's retry loop, whose hooks
 * ask the key's budget before each wait and its breaker and cooldown after it, and left for the
 * next as the taxonomy's fallback column says.
 */
async function* runChain<T, C>(
  candidates: readonly Resolved<T>[],
  options: FallbackOptions,
  policy: Policy,
  attempt: Attempt<T, C>,
): AsyncGenerator<C, T, undefined> {
  const { registry } = policy;
  const signal = options.signal;
  const outcomes: Array<CandidateOutcome | undefined> = candidates.map(() => undefined);
  const deferred: Array<{ index: number; waitMs: number }> = [];
  let lastError: FaultlineError | undefined;
  let lastIndex = -1;
  let ended = false;
  // Each candidate's window: its own, else the catalog's (a throwing or odd lookup gives none).
  const windows = candidates.map((candidate) => {
    if (candidate.contextWindow !== undefined) return candidate.contextWindow;
    try {
      const window = policy.modelCatalog?.(candidate.provider, candidate.model)?.contextWindow;
      return typeof window === 'number' && window > 0 ? window : undefined;
    } catch {
      return undefined;
    }
  });
  // Constraints a failure puts on the candidates after it.
  let minContextWindow: number | undefined;
  const rejectedCredentials = new Set<string>();
  // The reason a key set aside by the registry was rejected (for the error when nothing was called).
  let rejectedReason: FailureReason | undefined;
  let outputSeen = false;
  // Each counter's count of the prompt (undefined: it counted nothing).
  const counts = new Map<NonNullable<Resolved<T>['countTokens']>, number | undefined>();

  const settle = (index: number, outcome: CandidateOutcome) => {
    outcomes[index] = outcome;
    if (typeof options.onOutcome !== 'function') return;
    try {
      options.onOutcome(outcome, index);
    } catch {
      // A listener never changes the outcome.
    }
  };
  const keyOf = (candidate: Resolved<T>): HealthKey => ({
    provider: candidate.provider,
    model: candidate.model,
    credentialId: candidate.credentialId,
  });
  const base = (candidate: Resolved<T>) => ({
    provider: candidate.provider,
    model: candidate.model,
    ...(candidate.credentialId === undefined ? {} : { credentialId: candidate.credentialId }),
  });
  /** The other keys whose limits are this key's (a pool's keys of one account, same model). */
  const sharing = (index: number): Array<Resolved<T>> => {
    const own = candidates[index] as Resolved<T>;
    return candidates.filter(
      (other, at) =>
        at !== index &&
        other.account === own.account &&
        other.provider === own.provider &&
        other.model === own.model &&
        other.credentialId !== own.credentialId,
    );
  };
  /** Records a budget the provider stated for a key, on every key that shares its limits. */
  const recordBudget = async (
    index: number,
    budget: RateLimitBudget | undefined,
    receivedAt: number,
  ): Promise<void> => {
    if (budget === undefined) return;
    for (const candidate of [candidates[index] as Resolved<T>, ...sharing(index)])
      await registry.recordRateLimit(keyOf(candidate), budget, receivedAt);
  };
  /** A success's budget, read by the candidate's `readRateLimit` (a throwing reader reads nothing). */
  const budgetOf = (candidate: Resolved<T>, value: T): RateLimitBudget | undefined => {
    if (typeof candidate.readRateLimit !== 'function') return undefined;
    try {
      return candidate.readRateLimit(value);
    } catch {
      return undefined;
    }
  };
  /** A later candidate, usable now, that is another account's key of the same pool: rotate to it. */
  const otherAccountNext = (index: number): boolean => {
    const own = candidates[index] as Resolved<T>;
    return candidates.some(
      (other, at) =>
        at > index &&
        other.provider === own.provider &&
        other.model === own.model &&
        other.account !== own.account &&
        skipReason(at) === undefined,
    );
  };

  /**
   * Admits a call to a key, waiting (up to `maxResetWaitMs` in all) for a reset that is near: a
   * cooldown, or a budget the provider said is spent. A later reset returns `cooling` with its wait,
   * for the chain to move on; the waits made are added to `waits`.
   */
  async function admitPaced(index: number, waits: number[]): Promise<Admission> {
    const key = keyOf(candidates[index] as Resolved<T>);
    let left = policy.maxResetWaitMs;
    for (;;) {
      const admission = await admitted(registry, key, signal);
      let waitMs: number;
      if (admission.kind === 'cooling') waitMs = admission.waitMs;
      else if (admission.kind === 'open' || admission.kind === 'rejected') return admission;
      else {
        const take = await registry.takeRateLimit(key);
        if (take.kind === 'allow') return admission;
        await registry.release(key, admission);
        waitMs = take.waitMs;
        if (waitMs > left) return { kind: 'cooling', waitMs };
      }
      if (waitMs > left) return admission;
      try {
        await policy.sleep(waitMs, signal);
      } catch (thrown) {
        throw new CallerAbort(thrown);
      }
      waits.push(Math.ceil(waitMs));
      left -= Math.max(1, waitMs);
    }
  }

  /** Calls one admitted candidate, with its retries, until it succeeds or is given up on. */
  async function* tryCandidate(
    index: number,
    firstAdmission: Admission,
    initialWaits: number[],
  ): AsyncGenerator<C, { ok: true; value: T } | { ok: false }, undefined> {
    const candidate = candidates[index] as Resolved<T>;
    const key = keyOf(candidate);
    const guard = withClassifiedErrorsOf(candidate);
    const waitsMs = initialWaits;
    let admission = firstAdmission;
    let retryStopped: RetryStop | undefined;
    let made = 0;
    let deliveredOutput: DeliveredOutput | undefined;
    let outputDelivered = false;
    // When the attempt's answer arrived, on the registry's clock: the moment its call settled here
    // (a stream: when it opened). A reset or wait the answer states relative to itself ("1s",
    // Retry-After in seconds) counts from then, not from when it is recorded after the store's own
    // waits (later under load: the key would stay cool too long). The request's send time is known
    // too, but the provider counts from when it answered, up to a whole call later: counting from
    // the send would end a cooldown early and cost a 429.
    let receivedAt: number | undefined;

    /** One attempt; a failure is recorded with the registry and thrown classified, for the loop. */
    async function* once({ attempt: number }: RetryState): AsyncGenerator<C, T, undefined> {
      made = number;
      receivedAt = undefined;
      let delivered = 0;
      // Characters of the chunks this chain relayed itself, for a stream no guard measured: a string
      // chunk's length; an object's shape is its SDK's, which only that adapter's guard can read.
      let characters = 0;
      let error: FaultlineError;
      const generator = attempt(
        {
          ...candidate,
          // Each attempt through the adapter's own guard, retries off: the chain's loop decides them.
          call: (attemptContext) =>
            guard(() => candidate.call(attemptContext), {
              signal,
              retry: false,
              model: candidate.model,
              ...(candidate.withClassifiedErrors === undefined
                ? { provider: candidate.provider, extractors: candidate.extractors }
                : {}),
              ...(options.operation === undefined ? {} : { operation: options.operation }),
              ...(options.family === undefined ? {} : { family: options.family }),
              ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
            }),
        },
        { signal, attempt: number },
        async (value) => {
          receivedAt = registry.now();
          const budget = budgetOf(candidate, value);
          await registry.recordOpened(key, admission);
          await recordBudget(index, budget, receivedAt);
        },
      );
      let finished = false;
      try {
        for (;;) {
          const step = await generator.next();
          if (step.done === true) {
            finished = true;
            // A stream's budget was read as it opened, from the same headers: recorded once.
            const opened = receivedAt !== undefined;
            receivedAt ??= registry.now();
            const budget = opened ? undefined : budgetOf(candidate, step.value);
            await registry.recordSuccess(key, admission);
            await recordBudget(index, budget, receivedAt);
            return step.value;
          }
          delivered++;
          if (typeof step.value === 'string') characters += step.value.length;
          yield step.value;
        }
      } catch (thrown) {
        finished = true;
        receivedAt = registry.now();
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
              ...(delivered > 0 ? { delivered: { chunks: delivered, characters } } : {}),
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
      deliveredOutput = delivered > 0 ? (error.delivered ?? { chunks: delivered, characters }) : undefined;
      // Output is content that reached the consumer (render's `outputDelivered`, what the report
      // says): chunks without it (a `message_start`, a role delta) do not stop a fallback, so the
      // chain's decision and the report it attaches read the same measure.
      outputDelivered = isOutputDelivered(deliveredOutput);
      if (outputDelivered) outputSeen = true;
      // The provider said it failed only through an error event (or a status); a bare cut is the network's.
      const origin = error.metadata.origin;
      await registry.recordFailure(key, error.classification, admission, {
        cutAfterOutput: outputDelivered && origin !== 'stream_event' && origin !== 'http',
        receivedAt,
      });
      for (const other of sharing(index))
        await registry.recordSharedLimit(keyOf(other), error.classification, receivedAt);
      await recordBudget(index, error.metadata.rateLimit, receivedAt);
      throw error;
    }

    let value: T;
    try {
      value = yield* retryLoop(once, {
        policy: policy.retry,
        signal,
        idempotent: options.idempotent,
        sleep: policy.sleep,
        shouldRetry: async ({ error }) => {
          const wait = error.classification.retryAfterSeconds;
          // A rate limit that resets within the cap is waited for on this key (the provider paces
          // the retry, so it takes nothing from the retry budget), unless another account's key of
          // the same pool can answer now.
          const nearReset =
            error.classification.reason === 'rate_limit' &&
            wait !== undefined &&
            wait * 1000 <= policy.maxResetWaitMs &&
            !otherAccountNext(index);
          if (outputDelivered) retryStopped = 'output_delivered';
          // The provider asked for a wait: the key now cools for everyone; another candidate answers now.
          else if (
            wait !== undefined &&
            !nearReset &&
            candidates.some((_, later) => later > index && skipReason(later) === undefined)
          )
            retryStopped = 'key_cooling';
          else if (!nearReset && !(await registry.tryRetry(key))) retryStopped = 'retry_budget';
          return retryStopped === undefined;
        },
        beforeRetry: async ({ delayMs }) => {
          waitsMs.push(delayMs);
          // Another call may have opened the breaker, cooled the key or set the key aside meanwhile;
          // our own wait is over. A reset within the cap is waited for.
          const next = await admitPaced(index, waitsMs);
          if (next.kind === 'open' || next.kind === 'rejected') retryStopped = 'breaker_open';
          else if (next.kind === 'cooling' && next.waitMs > 0) retryStopped = 'key_cooling';
          else admission = next;
          return retryStopped === undefined;
        },
      });
    } catch (thrown) {
      // The caller's abort (in a call or a wait) leaves the chain untouched.
      if (!FaultlineError.isInstance(thrown)) throw thrown;
      const error = thrown;
      lastError = error;
      lastIndex = index;
      // A retryable failure the loop gave up on short of its attempts, with no hook refusing: the
      // time budget ended it (the loop marks that exhausted), or its Retry-After was over the cap.
      if (
        retryStopped === undefined &&
        made < (policy.retry?.maxAttempts ?? 1) &&
        retryable(error.classification, options.idempotent)
      )
        retryStopped = error.attempts?.exhausted === true ? 'time_budget' : 'retry_after_over_cap';
      settle(index, {
        ...base(candidate),
        status: 'failed',
        attempts: made,
        waitsMs,
        report: error.toErrorReport(),
        ...(retryStopped === undefined ? {} : { retryStopped }),
        ...(deliveredOutput === undefined ? {} : { delivered: deliveredOutput }),
        ...(admission.kind === 'probe' ? { probe: true } : {}),
      });
      return { ok: false };
    }
    settle(index, {
      ...base(candidate),
      status: 'succeeded',
      attempts: made,
      waitsMs,
      ...(admission.kind === 'probe' ? { probe: true } : {}),
    });
    return { ok: true, value };
  }

  /** The prompt's tokens for a candidate: its own count once made, else the lower bound. */
  const tokensFor = (index: number): number | undefined => {
    const counter = (candidates[index] as Resolved<T>).countTokens;
    return (counter === undefined ? undefined : counts.get(counter)) ?? policy.inputTokens;
  };

  /**
   * Runs a reached candidate's `countTokens` (once per counter: a pool's keys share it) when its
   * window is known and the lower bound does not already rule it out.
   */
  async function count(index: number): Promise<void> {
    const counter = (candidates[index] as Resolved<T>).countTokens;
    const window = windows[index];
    if (typeof counter !== 'function' || window === undefined || counts.has(counter)) return;
    if (policy.inputTokens !== undefined && policy.inputTokens > window) return;
    let tokens: unknown;
    try {
      tokens = await counter({ signal });
    } catch {
      // A counter that fails counts nothing: the lower bound decides, as with none.
    }
    if (signal?.aborted === true) throw new CallerAbort(signal.reason);
    counts.set(
      counter,
      typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? tokens : undefined,
    );
  }

  /** Why a later candidate may not be called given the constraints so far (undefined: it may). */
  function skipReason(index: number): SkipReason | undefined {
    const candidate = candidates[index] as Resolved<T>;
    const window = windows[index];
    const tokens = tokensFor(index);
    if (tokens !== undefined && window !== undefined && tokens > window) return 'input_over_window';
    if (minContextWindow !== undefined && !((windows[index] ?? 0) > minContextWindow))
      return 'smaller_context_window';
    if (rejectedCredentials.has(credentialOf(candidate))) return 'same_credential';
    return undefined;
  }

  /** After a failure: may the chain go on (the taxonomy's fallback column), and under which constraint? */
  function decide(index: number): boolean {
    const error = lastError;
    if (error === undefined) return true;
    const candidate = candidates[index] as Resolved<T>;
    if (outputSeen && options.fallbackAfterOutput !== true) return false;
    const rule = fallbackRule(error.classification.reason, options.fallbackOn);
    if (rule === 'no') return false;
    if (rule === 'larger_window') {
      // Without the failed candidate's window there is nothing to compare a larger one with.
      const window = windows[index];
      if (window === undefined) return false;
      minContextWindow = Math.max(minContextWindow ?? 0, window);
    }
    if (rule === 'other_credential') rejectedCredentials.add(credentialOf(candidate));
    return true;
  }

  try {
    for (let index = 0; index < candidates.length; index++) {
      const candidate = candidates[index] as Resolved<T>;
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
      await count(index);
      const skipped = skipReason(index);
      if (skipped !== undefined) {
        settle(index, {
          ...base(candidate),
          status: 'skipped',
          skipped,
          ...(skipped === 'input_over_window'
            ? { inputTokens: tokensFor(index), contextWindow: windows[index] }
            : {}),
          attempts: 0,
          waitsMs: [],
        });
        continue;
      }
      const paceWaits: number[] = [];
      const admission = await admitPaced(index, paceWaits);
      if (admission.kind === 'rejected') {
        // As if this call had seen the rejection itself: the credential's other candidates are skipped too.
        rejectedCredentials.add(credentialOf(candidate));
        rejectedReason ??= admission.reason;
        // With that reason's fallback turned off, the chain ends here, as if the call had been made.
        if (fallbackRule(admission.reason, options.fallbackOn) === 'no') ended = true;
      }
      if (admission.kind === 'cooling' || admission.kind === 'open' || admission.kind === 'rejected') {
        settle(index, {
          ...base(candidate),
          status: 'skipped',
          skipped:
            admission.kind === 'cooling'
              ? 'cooling'
              : admission.kind === 'open'
                ? 'breaker_open'
                : 'credential_rejected',
          waitMs: admission.waitMs,
          attempts: 0,
          waitsMs: paceWaits,
        });
        if (admission.kind === 'cooling') deferred.push({ index, waitMs: admission.waitMs });
        continue;
      }
      const result = yield* tryCandidate(index, admission, paceWaits);
      if (result.ok) return result.value;
      if (!decide(index)) ended = true;
    }
    // Only cooling keys left: wait for the soonest when within the cap, then try it once more.
    if (!ended && deferred.length > 0) {
      const soonest = deferred.reduce((best, entry) => (entry.waitMs < best.waitMs ? entry : best));
      if (soonest.waitMs <= policy.maxCooldownWaitMs && skipReason(soonest.index) === undefined) {
        try {
          await policy.sleep(soonest.waitMs, signal);
        } catch (thrown) {
          throw new CallerAbort(thrown);
        }
        const candidate = candidates[soonest.index] as Resolved<T>;
        const admission = await admitted(registry, keyOf(candidate), signal);
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
  throw chainError(candidates, outcomes, lastError, lastIndex, options, rejectedReason);
}

function chainError<T>(
  candidates: readonly Resolved<T>[],
  outcomes: ReadonlyArray<CandidateOutcome | undefined>,
  lastError: FaultlineError | undefined,
  lastIndex: number,
  options: FallbackOptions,
  rejectedReason: FailureReason | undefined,
): FallbackChainError {
  const list = outcomes.map(
    (outcome, index): CandidateOutcome =>
      outcome ?? {
        provider: (candidates[index] as Resolved<T>).provider,
        model: (candidates[index] as Resolved<T>).model,
        status: 'skipped',
        skipped: 'chain_ended',
        attempts: 0,
        waitsMs: [],
      },
  );
  const tried = list.filter((outcome) => outcome.status === 'failed').length;
  if (lastError !== undefined) {
    const last = candidates[lastIndex] as Resolved<T>;
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
  // Nothing was called: every key was cooling, its breaker open, set aside as rejected, or its window
  // too small for the prompt. Transient, with the soonest wait; when no key was cooling or open, the
  // rejection (a person must fix a key), else the overflow with its numbers (the prompt must shrink).
  const transient = list.filter(
    (outcome) =>
      outcome.skipped !== 'credential_rejected' &&
      outcome.skipped !== 'same_credential' &&
      outcome.skipped !== 'input_over_window' &&
      outcome.skipped !== 'chain_ended',
  );
  const waits = transient
    .map((outcome) => outcome.waitMs)
    .filter((wait): wait is number => typeof wait === 'number');
  const soonest = waits.length > 0 ? Math.min(...waits) : undefined;
  const allCooling = transient.length > 0 && transient.every((outcome) => outcome.skipped === 'cooling');
  const overWindow = list.filter((outcome) => outcome.skipped === 'input_over_window');
  const largest = Math.max(0, ...overWindow.map((outcome) => outcome.contextWindow ?? 0));
  const fewest = Math.min(...overWindow.map((outcome) => outcome.inputTokens ?? Number.POSITIVE_INFINITY));
  const classification =
    transient.length === 0 && rejectedReason !== undefined
      ? classificationFor(rejectedReason)
      : transient.length === 0 && overWindow.length > 0
        ? classificationFor('context_overflow', {
            userActionDetail: `The prompt takes at least ${fewest} tokens; the largest window among the candidates is ${largest} tokens. Shorten it, or add a candidate with a larger window.`,
          })
        : classificationFor(allCooling ? 'rate_limit' : 'overloaded', {
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
 * `withClassifiedErrors`; a failure moves on as the taxonomy's fallback column says (`TAXONOMY[reason].fallback`, `fallbackOn`), a
 * cooling or open key is skipped, the caller's abort ends the chain untouched. When all fail, a
 * `FallbackChainError` carries the last classification and every candidate's outcome.
 */
export async function runWithFallback<T>(
  candidates: readonly Candidate<T>[],
  options: FallbackOptions = {},
): Promise<T> {
  const policy = policyOf(options, 'runWithFallback');
  const resolved = resolveCandidates(candidates, 'runWithFallback');
  // biome-ignore lint/correctness/useYield: the chain runs calls and streams alike; a call yields no chunk.
  const chain = runChain<T, never>(resolved, options, policy, async function* (candidate, context) {
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
  const policy = policyOf(options, 'streamWithFallback');
  const resolved = resolveCandidates(candidates, 'streamWithFallback');
  return {
    [Symbol.asyncIterator]() {
      const generator = runChain<S, Chunk>(
        resolved,
        options,
        policy,
        async function* (candidate, context, opened) {
          const stream = await candidate.call(context);
          await opened(stream);
          for await (const chunk of stream) yield chunk as Chunk;
          return stream;
        },
      );
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
