import type { RateLimitBudget } from '@faultline/classify';
import { type Classification, type FailureReason, TAXONOMY } from '@faultline/classify';
import { invalidOption } from '@faultline/classify/toolkit';
import { type HealthStore, MemoryHealthStore } from './health-store.ts';
import { checkRegistryKeys } from './option-keys.ts';
import { type BudgetTake, recordBudget, takeBudget } from './rate-limit-budget.ts';

/**
 * What a cooldown, a breaker and a budget are kept for: one provider, one model, one credential.
 * `credentialId` is a label of your choosing ("team-a", "key-2"), never the key itself: it is
 * written to the store and to events.
 */
export interface HealthKey {
  readonly provider: string;
  readonly model: string;
  readonly credentialId?: string | undefined;
}

export interface CircuitBreakerOptions {
  /** Infrastructure failures within `windowMs` that open the breaker. Default 5. */
  readonly failureThreshold?: number | undefined;
  /** The window failures are counted in (a fixed window starting at the first failure). Default 30 000. */
  readonly windowMs?: number | undefined;
  /**
   * How long the breaker stays open before its first probe, when the failure that tripped it named
   * no wait. Short on purpose: a probe is one call, and the provider may be back any moment. When
   * the failure named a wait (a 503's Retry-After), the breaker stays open exactly that long.
   * Default 1 000.
   */
  readonly openMs?: number | undefined;
  /** Each failed probe multiplies the open time by this. Default 2. */
  readonly backoffFactor?: number | undefined;
  /**
   * The longest open time with no wait named: at least one probe this often during an outage, so
   * that traffic is back within this long of the provider's recovery. Default 2 000.
   */
  readonly maxOpenMs?: number | undefined;
  /** A probe that has not reported within this long frees the half-open slot for another. Default 60 000. */
  readonly probeTimeoutMs?: number | undefined;
}

export interface RetryBudgetOptions {
  /** Retries may add at most this fraction of the calls made in the window. Default 0.2. */
  readonly ratio?: number | undefined;
  /** Retries always allowed per window, so a quiet key can still retry. Default 10. */
  readonly minRetries?: number | undefined;
  /** The window calls and retries are counted in. Default 10 000. */
  readonly windowMs?: number | undefined;
}

export type HealthEvent =
  | {
      readonly type: 'cooldown';
      readonly key: HealthKey;
      readonly ms: number;
      readonly reason: FailureReason;
    }
  | {
      readonly type: 'breaker-open';
      readonly key: HealthKey;
      readonly ms: number;
      readonly afterProbe: boolean;
    }
  | { readonly type: 'breaker-closed'; readonly key: HealthKey }
  /** The provider refused this key (`auth`, `permission`): a person must fix it; chains move to another. */
  | {
      readonly type: 'credential-rejected';
      readonly key: HealthKey;
      readonly reason: FailureReason;
      /** How long the key is set aside for every caller of the registry (0: not set aside). */
      readonly ms: number;
    }
  | { readonly type: 'retry-budget-exhausted'; readonly key: HealthKey };

export interface HealthRegistryOptions {
  /** Default: a `MemoryHealthStore` of this process. `RedisHealthStore` shares state between processes. */
  readonly store?: HealthStore | undefined;
  /** `false` turns the breakers off. */
  readonly breaker?: false | CircuitBreakerOptions | undefined;
  /** `false` turns the retry budget off. */
  readonly retryBudget?: false | RetryBudgetOptions | undefined;
  /** The longest a provider's wait may cool a key. Default 3 600 000 (an hour). */
  readonly maxCooldownMs?: number | undefined;
  /**
   * A spent allowance (`quota`, `billing`) that names no wait cools its key this long, so that
   * calls stop paying a request each to learn it again. Default 60 000; 0 turns it off.
   */
  readonly capacityCooldownMs?: number | undefined;
  /**
   * A key the provider rejected (`auth`, `permission`) is set aside this long for every caller of
   * the registry (and, with Redis, every process): no call sends it a request in the meantime.
   * After it, one call finds out whether a person fixed it. Default 300 000; 0 turns it off.
   */
  readonly rejectedKeyMs?: number | undefined;
  /**
   * Holds back the first wave to a key whose outcome is not known yet (no answer recorded, or its
   * set-aside just ended): while one call to it is in flight, other calls to it wait up to this long
   * for that call's outcome (a success or an opened stream, a failure, or its abort), then go to it,
   * or on to the next candidate if the outcome set the key aside (a spent quota, a rejected key). So
   * a dead key costs one request per registry (per store, with Redis), not one per concurrent call.
   * Off (0) by default: it delays the other first calls to a healthy key by the first call's answer
   * time (a stream's opening), up to this bound. A caller's abort ends the wait.
   */
  readonly firstCallWaitMs?: number | undefined;
  /** Called on each change of state; a throwing listener is ignored. */
  readonly onEvent?: ((event: HealthEvent) => void) | undefined;
}

/** What `admit` decided for one call to one key. */
export type Admission =
  | {
      readonly kind: 'allow';
      /**
       * No outcome of the key was known when this call was admitted (`firstCallWaitMs`): its
       * outcome (`recordOpened`, `recordSuccess`, `recordFailure`, `release`) becomes the key's
       * known state and lets the calls waiting for it go.
       */
      readonly first?: true | undefined;
    }
  /** The breaker is half-open and this call is its probe: report its outcome with `probe: true`. */
  | { readonly kind: 'probe' }
  /** A provider's wait is cooling the key for `waitMs`. */
  | { readonly kind: 'cooling'; readonly waitMs: number }
  /** The breaker is open (or half-open with a probe in flight) for about `waitMs`. */
  | { readonly kind: 'open'; readonly waitMs: number }
  /** The provider rejected this key (`reason`): it is set aside for `waitMs`, for every caller. */
  | { readonly kind: 'rejected'; readonly waitMs: number; readonly reason: FailureReason };

/** What a failed call tells the registry beyond its classification. */
export interface FailureFacts {
  /**
   * A stream that had delivered output was cut, the provider silent on why (no error event, no
   * status): a dropped connection mid-answer says little about the provider's health, so it does
   * not count toward the breaker (and, for a probe, the provider answered: it is up).
   */
  readonly cutAfterOutput?: boolean | undefined;
  /**
   * When the failure's answer arrived, on the registry's clock (`registry.now()`): the wait it
   * names (a Retry-After in seconds) counts from then, not from when it is recorded. Default: now.
   */
  readonly receivedAt?: number | undefined;
}

/** The reasons that set a key aside, by the number stored for them. */
const REJECTED_REASONS: readonly FailureReason[] = ['auth', 'permission'];

/** The reasons that count toward a circuit breaker: the provider's infrastructure failed. */
export const BREAKER_REASONS: ReadonlySet<FailureReason> = new Set<FailureReason>([
  'server_error',
  'overloaded',
  'timeout',
  'connection',
  'interrupted',
]);

interface BreakerPolicy {
  readonly failureThreshold: number;
  readonly windowMs: number;
  readonly openMs: number;
  readonly backoffFactor: number;
  readonly maxOpenMs: number;
  readonly probeTimeoutMs: number;
}

interface BudgetPolicy {
  readonly ratio: number;
  readonly minRetries: number;
  readonly windowMs: number;
}

/** A numeric option: absent, its default; given, a finite number ≥ `minimum`, else a TypeError. */
function number(name: string, value: unknown, fallback: number, minimum = 0): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value >= minimum) return value;
  throw invalidOption('HealthRegistry', name, `a finite number ≥ ${minimum}`, value);
}

/** `breaker` and `retryBudget`: absent (the defaults), `false` (off), or an options object. */
function policyOption(name: string, value: unknown): void {
  if (value === undefined || value === false || (value !== null && typeof value === 'object')) return;
  throw invalidOption('HealthRegistry', name, 'false or an options object', value);
}

/** A tripped breaker's level is kept this long after it last opened (then it is forgotten). */
const TRIPPED_TTL_FACTOR = 4;

/**
 * How long a key's answer is remembered as its known outcome (`firstCallWaitMs`); while the key is
 * admitted, the memory is renewed once it is half gone, so a key in use is never held back again.
 */
const SEEN_MS = 3_600_000;
/** The `seen:` values: the key answered; the key was set aside (the gate re-arms when that ends). */
const SEEN_ANSWERED = 1;
const SEEN_SET_ASIDE = 0;
/**
 * How often calls waiting for a key's first outcome read the store, for an outcome recorded by
 * another process (one read per key per process: the waiters of one key share it). An outcome
 * recorded in this process wakes them at once.
 */
const FIRST_OUTCOME_POLL_MS = 25;

/** The calls of this process waiting for one key's first outcome, and how to wake them. */
interface FirstOutcomeWatch {
  readonly settled: Promise<void>;
  readonly wake: () => void;
}

/**
 * The shared health of every (provider, model, credential): provider-asked cooldowns, circuit
 * breakers and retry budgets, kept in a `HealthStore` so that every concurrent call (and, with
 * Redis, every process) sees what any one call learned.
 *
 * Written here rather than with cockatiel (evaluated: `circuitBreaker()` with `SamplingBreaker` /
 * `ConsecutiveBreaker`, `halfOpenAfter` backoff, `bulkhead()`): cockatiel keeps a breaker's state in
 * the policy object of one process (its `toJSON()`/`initialState` is a snapshot to restore, not an
 * atomic shared update), so two workers would overwrite each other's counts and both send probes;
 * it reads `Date.now()` of each host; and it decides on "the call threw" plus a predicate rather
 * than on the per-key cooldown a Retry-After asks for. Its bulkhead limits one process's
 * concurrency, which is not the cross-call budget asked for here. What it would have given us
 * (a three-state machine with backoff) is the small part; the shared, skew-free state is the job.
 */
export class HealthRegistry {
  readonly store: HealthStore;
  readonly #breaker: BreakerPolicy | undefined;
  readonly #budget: BudgetPolicy | undefined;
  readonly #maxCooldownMs: number;
  readonly #capacityCooldownMs: number;
  readonly #rejectedKeyMs: number;
  readonly #firstCallWaitMs: number;
  readonly #now: () => number;
  readonly #watches = new Map<string, FirstOutcomeWatch>();
  readonly #onEvent: ((event: HealthEvent) => void) | undefined;

  constructor(options: HealthRegistryOptions = {}) {
    checkRegistryKeys(options);
    this.#firstCallWaitMs = number('firstCallWaitMs', options.firstCallWaitMs, 0);
    const store = options.store ?? new MemoryHealthStore();
    this.store = store;
    // The store's clock when it keeps one (a MemoryHealthStore's, fake in tests), so that an
    // answer's age and the TTLs it shortens are read on one clock; else this host's monotonic one.
    this.#now =
      typeof store.now === 'function'
        ? () => (store as Required<HealthStore>).now()
        : () => performance.now();
    const breaker = options.breaker;
    policyOption('breaker', breaker);
    this.#breaker =
      breaker === false
        ? undefined
        : {
            failureThreshold: Math.max(
              1,
              Math.floor(number('breaker.failureThreshold', breaker?.failureThreshold, 5, 1)),
            ),
            windowMs: number('breaker.windowMs', breaker?.windowMs, 30_000, 1),
            openMs: number('breaker.openMs', breaker?.openMs, 1_000, 1),
            backoffFactor: number('breaker.backoffFactor', breaker?.backoffFactor, 2, 1),
            maxOpenMs: number('breaker.maxOpenMs', breaker?.maxOpenMs, 2_000, 1),
            probeTimeoutMs: number('breaker.probeTimeoutMs', breaker?.probeTimeoutMs, 60_000, 1),
          };
    const budget = options.retryBudget;
    policyOption('retryBudget', budget);
    this.#budget =
      budget === false
        ? undefined
        : {
            ratio: number('retryBudget.ratio', budget?.ratio, 0.2),
            minRetries: Math.floor(number('retryBudget.minRetries', budget?.minRetries, 10)),
            windowMs: number('retryBudget.windowMs', budget?.windowMs, 10_000, 1),
          };
    this.#maxCooldownMs = number('maxCooldownMs', options.maxCooldownMs, 3_600_000, 1);
    this.#capacityCooldownMs = number('capacityCooldownMs', options.capacityCooldownMs, 60_000);
    this.#rejectedKeyMs = number('rejectedKeyMs', options.rejectedKeyMs, 300_000);
    const onEvent: unknown = options.onEvent;
    if (onEvent !== undefined && typeof onEvent !== 'function')
      throw invalidOption('HealthRegistry', 'onEvent', 'a function', onEvent);
    this.#onEvent = onEvent as ((event: HealthEvent) => void) | undefined;
  }

  /**
   * The registry's clock (milliseconds, monotonic): what `receivedAt` arguments are stamped with.
   * The store's (`HealthStore.now`) when it has one, else `performance.now()`.
   */
  now(): number {
    return this.#now();
  }

  /** What is left of `ms` counted from `receivedAt` (the moment an answer stating it arrived). */
  #left(ms: number, receivedAt: number | undefined): number {
    if (receivedAt === undefined) return ms;
    return ms - Math.max(0, this.#now() - receivedAt);
  }

  #emit(event: HealthEvent): void {
    if (this.#onEvent === undefined) return;
    try {
      this.#onEvent(event);
    } catch {
      // A listener never changes the outcome.
    }
  }

  /**
   * May a call go to `key` now? Rejected, cooling and open keys are refused with the wait left; a
   * half-open breaker lets exactly one call through as its probe. With `firstCallWaitMs`, a call to
   * a key whose outcome is not known waits (up to that bound, or until `signal` aborts: then it
   * rejects with the signal's reason) while another call to it is in flight, and is then decided on
   * what that call learned. An admitted call counts toward the retry budget's volume.
   */
  async admit(
    key: HealthKey,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<Admission> {
    const id = keyId(key);
    const gate = this.#firstCallWaitMs;
    // What is left of the bound, measured on this host's clock by the waits themselves (never the
    // store's, which a test may hold still): a first call that never settles holds no one longer.
    let left = gate;
    for (;;) {
      const [cool, open, tripped, rejected, seen] = await this.store.read([
        `cool:${id}`,
        `open:${id}`,
        `tripped:${id}`,
        `rejected:${id}`,
        ...(gate > 0 ? [`seen:${id}`] : []),
      ]);
      if (rejected !== undefined)
        return {
          kind: 'rejected',
          waitMs: rejected.ttlMs,
          reason: REJECTED_REASONS[rejected.value] ?? 'auth',
        };
      if (cool !== undefined) return { kind: 'cooling', waitMs: cool.ttlMs };
      if (this.#breaker !== undefined) {
        if (open !== undefined) return { kind: 'open', waitMs: open.ttlMs };
        if (tripped !== undefined) {
          const probing = await this.store.write(`probe:${id}`, 1, this.#breaker.probeTimeoutMs, 'absent');
          if (!probing) return { kind: 'open', waitMs: this.#breaker.probeTimeoutMs };
          await this.#countCall(id);
          return { kind: 'probe' };
        }
      }
      if (gate > 0 && seen === undefined) {
        if (left > 0 && !(await this.store.write(`first:${id}`, 1, gate, 'absent'))) {
          const began = performance.now();
          const woken = await this.#waitForFirstOutcome(id, left, options.signal);
          left = woken ? left - Math.max(1, performance.now() - began) : 0;
          continue;
        }
        await this.#countCall(id);
        return { kind: 'allow', first: true };
      }
      // A key in use stays known: its memory is renewed once half gone (a set-aside one is not).
      if (seen !== undefined && seen.value === SEEN_ANSWERED && seen.ttlMs < SEEN_MS / 2)
        await this.store.write(`seen:${id}`, SEEN_ANSWERED, SEEN_MS, 'always');
      await this.#countCall(id);
      return { kind: 'allow' };
    }
  }

  /**
   * Waits until the first outcome of `id` is recorded (in this process, or found in the store): true;
   * or for `ms` at most: false. Rejects with `signal`'s reason when it aborts.
   */
  #waitForFirstOutcome(id: string, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        done();
        resolve(false);
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#watch(id).then(() => {
        done();
        resolve(true);
      });
    });
  }

  /** One watch per key in this process, shared by its waiters: woken by an outcome recorded here, or by a poll. */
  #watch(id: string): Promise<void> {
    const existing = this.#watches.get(id);
    if (existing !== undefined) return existing.settled;
    let wake = () => {};
    const settled = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const watch: FirstOutcomeWatch = { settled, wake };
    this.#watches.set(id, watch);
    void this.#poll(id, watch);
    return settled;
  }

  /**
   * Reads the store until the key's first call has settled (its marker gone, or an outcome known):
   * another process may record it. Ends when the watch is woken; the marker lives `firstCallWaitMs`
   * at most, so this ends within that bound.
   */
  async #poll(id: string, watch: FirstOutcomeWatch): Promise<void> {
    while (this.#watches.get(id) === watch) {
      await new Promise<void>((resolve) => {
        // The poll alone never keeps a process alive: its waiters' own timers do, for as long as they wait.
        setTimeout(resolve, FIRST_OUTCOME_POLL_MS).unref?.();
      });
      if (this.#watches.get(id) !== watch) return;
      try {
        const [first, seen] = await this.store.read([`first:${id}`, `seen:${id}`]);
        if (first === undefined || seen !== undefined) this.#wake(id);
      } catch {
        // A store that throws cannot say: the waiters go (never held on a failing store).
        this.#wake(id);
      }
    }
  }

  #wake(id: string): void {
    const watch = this.#watches.get(id);
    if (watch === undefined) return;
    this.#watches.delete(id);
    watch.wake();
  }

  /**
   * Records what a call admitted as the key's first (`admission.first`) learned (the key answered,
   * or, with `answered` false, nothing: a set-aside is recorded by `recordFailure`, an abort gives
   * no verdict), then lets the calls waiting for it go.
   */
  async #settleFirst(id: string, admission: Admission, answered: boolean): Promise<void> {
    if (admission.kind !== 'allow' || admission.first !== true) return;
    if (answered) await this.store.write(`seen:${id}`, SEEN_ANSWERED, SEEN_MS, 'always');
    await this.store.delete([`first:${id}`]);
    this.#wake(id);
  }

  async #countCall(id: string): Promise<void> {
    if (this.#budget !== undefined) await this.store.increment(`calls:${id}`, this.#budget.windowMs);
  }

  /**
   * Takes one retry from the key's budget: true when retries stay within `ratio` of the calls
   * made in the window (plus `minRetries`). Always true with the budget off.
   */
  async tryRetry(key: HealthKey): Promise<boolean> {
    const budget = this.#budget;
    if (budget === undefined) return true;
    const id = keyId(key);
    const [calls] = await this.store.read([`calls:${id}`]);
    // Spend first, then check: each increment is atomic, so concurrent callers never overspend.
    const spent = await this.store.increment(`retries:${id}`, budget.windowMs);
    const allowed = budget.minRetries + budget.ratio * (calls?.value ?? 0);
    if (spent <= allowed) return true;
    await this.store.increment(`retries:${id}`, budget.windowMs, -1);
    this.#emit({ type: 'retry-budget-exhausted', key });
    return false;
  }

  /**
   * Cools `key` for `ms` (only ever extended, never shortened, by concurrent calls), counted from
   * `receivedAt` (the registry's clock) when given: a wait an answer named runs from its arrival.
   * Returns how long the key now cools for (0: not at all).
   */
  async cool(
    key: HealthKey,
    ms: number,
    reason: FailureReason = 'rate_limit',
    receivedAt?: number,
  ): Promise<number> {
    const wait = Math.min(Math.max(0, this.#left(ms, receivedAt)), this.#maxCooldownMs);
    if (!(wait > 0)) return 0;
    const written = await this.store.write(`cool:${keyId(key)}`, 1, wait, 'longer');
    if (written) this.#emit({ type: 'cooldown', key, ms: wait, reason });
    return wait;
  }

  /**
   * Records a failed call: a provider's wait (Retry-After, rate-limit reset) cools the key for every
   * caller; a rejected key is set aside for every caller; an infrastructure failure counts toward
   * the breaker (a 4xx verdict never does, nor a stream cut after output: `facts`). The breaker
   * opens for the failure's wait when it named one, else for a short interval that grows with each
   * failed probe. A probe that failed on infrastructure reopens it; a probe answered with any other
   * verdict shows the provider is up and closes it.
   */
  async recordFailure(
    key: HealthKey,
    classification: Classification,
    admission: Admission,
    facts: FailureFacts = {},
  ): Promise<void> {
    if (classification.callerAborted) {
      await this.release(key, admission);
      return;
    }
    const id = keyId(key);
    // How long the failure sets the key aside for every caller (a rejected key, a spent allowance).
    let setAsideMs = 0;
    if (TAXONOMY[classification.reason]?.fallback === 'other_credential') {
      const ms = this.#rejectedKeyMs;
      if (ms > 0) {
        await this.store.write(
          `rejected:${id}`,
          REJECTED_REASONS.indexOf(classification.reason),
          ms,
          'longer',
        );
        setAsideMs = ms;
      }
      this.#emit({ type: 'credential-rejected', key, reason: classification.reason, ms });
    }
    const wait = classification.retryAfterSeconds;
    const receivedAt = facts.receivedAt;
    let cooled = 0;
    if (typeof wait === 'number' && wait > 0)
      cooled = await this.cool(key, wait * 1000, classification.reason, receivedAt);
    else if (classification.category === 'capacity' && this.#capacityCooldownMs > 0)
      cooled = await this.cool(key, this.#capacityCooldownMs, classification.reason);
    if (classification.category === 'capacity') setAsideMs = Math.max(setAsideMs, cooled);
    if (this.#firstCallWaitMs > 0) {
      // A key set aside is unknown again when the set-aside ends: the first wave after it sends one
      // call, not one each. Any other failure is an answer (the key is reachable and takes calls).
      if (setAsideMs > 0) await this.store.write(`seen:${id}`, SEEN_SET_ASIDE, setAsideMs, 'always');
      await this.#settleFirst(id, admission, setAsideMs === 0);
    }
    const breaker = this.#breaker;
    if (breaker === undefined) return;
    if (!BREAKER_REASONS.has(classification.reason) || facts.cutAfterOutput === true) {
      if (admission.kind === 'probe') await this.#close(key, id);
      return;
    }
    // The provider's own wait says when it could be healthy again: probe then, not later.
    const named =
      typeof wait === 'number' && wait > 0
        ? Math.min(Math.max(1, this.#left(wait * 1000, receivedAt)), this.#maxCooldownMs)
        : undefined;
    const openFor = (level: number) =>
      named ?? Math.min(breaker.openMs * breaker.backoffFactor ** level, breaker.maxOpenMs);
    if (admission.kind === 'probe') {
      const [tripped] = await this.store.read([`tripped:${id}`]);
      const level = (tripped?.value ?? 0) + 1;
      const ms = openFor(level);
      await this.store.write(`tripped:${id}`, level, ms * TRIPPED_TTL_FACTOR + breaker.windowMs);
      await this.store.write(`open:${id}`, level, ms);
      await this.store.delete([`probe:${id}`]);
      this.#emit({ type: 'breaker-open', key, ms, afterProbe: true });
      return;
    }
    const failures = await this.store.increment(`failures:${id}`, breaker.windowMs);
    if (failures < breaker.failureThreshold) return;
    // Only the caller that trips it opens it (SET NX): concurrent failures do not restart the timer.
    const ms = openFor(0);
    const first = await this.store.write(
      `tripped:${id}`,
      0,
      ms * TRIPPED_TTL_FACTOR + breaker.windowMs,
      'absent',
    );
    if (!first) return;
    await this.store.write(`open:${id}`, 0, ms);
    await this.store.delete([`failures:${id}`]);
    this.#emit({ type: 'breaker-open', key, ms, afterProbe: false });
  }

  /**
   * Gives back what an admission holds when its call ends with no verdict on the provider (the
   * caller aborted, a stream's consumer stopped): a probe's slot, for the next caller to take.
   */
  async release(key: HealthKey, admission: Admission): Promise<void> {
    if (admission.kind === 'probe') await this.store.delete([`probe:${keyId(key)}`]);
    await this.#settleFirst(keyId(key), admission, false);
  }

  /**
   * Records that a stream to `key` opened (its answer began, its end not known yet): the key
   * answers, so the calls `firstCallWaitMs` holds for its first outcome go now rather than after
   * the whole answer. The stream's end is recorded with `recordSuccess` or `recordFailure` as usual.
   */
  async recordOpened(key: HealthKey, admission: Admission): Promise<void> {
    await this.#settleFirst(keyId(key), admission, true);
  }

  /** Records a call that succeeded: a successful probe closes the breaker at once (the next call is admitted as usual). */
  async recordSuccess(key: HealthKey, admission: Admission): Promise<void> {
    if (admission.kind === 'probe') await this.#close(key, keyId(key));
    await this.#settleFirst(keyId(key), admission, true);
  }

  async #close(key: HealthKey, id: string): Promise<void> {
    await this.store.delete([`tripped:${id}`, `open:${id}`, `probe:${id}`, `failures:${id}`]);
    this.#emit({ type: 'breaker-closed', key });
  }

  /**
   * Records the rate-limit budget an answer's headers stated for `key` (an adapter's
   * `readRateLimit`, or `error.metadata.rateLimit`): calls to the key are then paced by it, for
   * every caller sharing the store. Fallback chains call it for you. `receivedAt` (the registry's
   * clock, `registry.now()`): when the answer arrived; its resets count from then. Default: now.
   */
  async recordRateLimit(key: HealthKey, budget: RateLimitBudget, receivedAt?: number): Promise<void> {
    await recordBudget(this.store, keyId(key), budget, () => -this.#left(0, receivedAt));
  }

  /**
   * Records on `key` what a failure of another key with the same limits (a key of the same account)
   * said of those limits: its wait cools this key too, and a spent allowance its cooldown (after
   * which, with `firstCallWaitMs`, the key is unknown again, as the key that failed is: one call
   * goes first). Nothing else (breaker, rejection) is shared: those belong to the key that failed.
   * The wait counts from `receivedAt` (the registry's clock) when given.
   */
  async recordSharedLimit(
    key: HealthKey,
    classification: Classification,
    receivedAt?: number,
  ): Promise<void> {
    const wait = classification.retryAfterSeconds;
    const limited = classification.reason === 'rate_limit' || classification.category === 'capacity';
    if (!limited || classification.callerAborted) return;
    let cooled = 0;
    if (typeof wait === 'number' && wait > 0)
      cooled = await this.cool(key, wait * 1000, classification.reason, receivedAt);
    else if (classification.category === 'capacity' && this.#capacityCooldownMs > 0)
      cooled = await this.cool(key, this.#capacityCooldownMs, classification.reason);
    // Set aside by a spent allowance like the key that failed: unknown again when that ends.
    if (this.#firstCallWaitMs > 0 && classification.category === 'capacity' && cooled > 0)
      await this.store.write(`seen:${keyId(key)}`, SEEN_SET_ASIDE, cooled, 'always');
  }

  /** Takes one request from `key`'s budget: `spent`, with the time to its reset, when none is left. */
  async takeRateLimit(key: HealthKey): Promise<BudgetTake> {
    return takeBudget(this.store, keyId(key));
  }
}

/**
 * The store key of a health key: each part URI-encoded (so no part can forge a separator), inside
 * a Redis Cluster hash tag so that one key's entries share a slot (the read script spans them).
 */
export function keyId(key: HealthKey): string {
  return `{${encodeURIComponent(key.provider)}:${encodeURIComponent(key.model)}:${encodeURIComponent(key.credentialId ?? 'default')}}`;
}
