import { invalidOption } from '@faultline/classify/toolkit';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { type HealthStore, MemoryHealthStore, type StoredEntry, type WriteMode } from './health-store.ts';
import { REDIS_HEALTH_STORE_OPTION_KEYS } from './option-keys.ts';

/**
 * The part of an ioredis client (`new Redis(url)`, or a Cluster whose keys share a slot) this store
 * uses: `eval`. Typed structurally so that ioredis is not a dependency of this package.
 */
export interface RedisEvalClient {
  eval(script: string, numberOfKeys: number, ...keysAndArguments: Array<string | number>): Promise<unknown>;
  /** ioredis's connection state; `end` or `close` sends calls to local state at once. */
  readonly status?: string;
}

export interface RedisHealthStoreOptions {
  /** Prepended to every key. Default `faultline:health:`. */
  readonly prefix?: string | undefined;
  /** A Redis call slower than this counts as Redis being unreachable. Default 250 ms. */
  readonly timeoutMs?: number | undefined;
  /** After Redis failed, local state is used for this long before Redis is tried again. Default 5 000 ms. */
  readonly retryAfterMs?: number | undefined;
  /**
   * Called once when Redis becomes unreachable (then again only after it came back and failed
   * again); calls go on with this process's own state meanwhile. Default: `process.emitWarning`.
   */
  readonly onUnavailable?: ((error: unknown) => void) | undefined;
  /** Called once when Redis answers again after having been unreachable. */
  readonly onRecovered?: (() => void) | undefined;
  /** The local state used while Redis is unreachable (its clock, in tests). */
  readonly fallbackStore?: MemoryHealthStore | undefined;
}

// Every script works on relative TTLs (PTTL, PX): time is Redis's own, never a host's clock, so
// hosts whose clocks disagree still agree on how long a key cools.
const READ_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value then
    out[#out + 1] = value
    out[#out + 1] = redis.call('PTTL', key)
  else
    out[#out + 1] = false
    out[#out + 1] = -2
  end
end
return out`;

const INCREMENT_SCRIPT = `
local value = redis.call('INCRBY', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value`;

const WRITE_SCRIPT = `
local mode = ARGV[3]
if mode == 'absent' then
  if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
  return 0
end
if mode == 'longer' then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl >= tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const DELETE_SCRIPT = `
for i, key in ipairs(KEYS) do redis.call('DEL', key) end
return 1`;

function defaultUnavailable(error: unknown): void {
  const detail = error instanceof Error ? error.message : String(error);
  try {
    process.emitWarning(
      `Redis is unreachable (${detail.slice(0, 200)}); cooldowns, breakers and retry budgets go on with this process's own state until it answers again.`,
      { code: 'FAULTLINE_HEALTH_STORE_UNAVAILABLE' },
    );
  } catch {
    // No process (a worker without one): the hook is the only channel.
  }
}

class RedisTimeoutError extends Error {
  constructor(milliseconds: number) {
    super(`Redis did not answer within ${milliseconds} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * The health registry's state in Redis, shared by every process that uses the same prefix. Each
 * operation is one Lua script (atomic on the server). Redis unreachable (an error, a call slower
 * than `timeoutMs`, a client not `ready`) → the call uses this process's own state instead, says
 * so once through `onUnavailable`, and Redis is tried again after `retryAfterMs`: a failing Redis
 * never fails a model call (fail open).
 */
export class RedisHealthStore implements HealthStore {
  readonly #client: RedisEvalClient;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #onUnavailable: (error: unknown) => void;
  readonly #onRecovered: (() => void) | undefined;
  readonly #local: MemoryHealthStore;
  #downUntil = 0;
  #down = false;

  constructor(client: RedisEvalClient, options: RedisHealthStoreOptions = {}) {
    checkOptionKeys('RedisHealthStore', options, REDIS_HEALTH_STORE_OPTION_KEYS);
    this.#client = client;
    const { prefix, onUnavailable, onRecovered, fallbackStore } = options as Record<string, unknown>;
    if (prefix !== undefined && typeof prefix !== 'string')
      throw invalidOption('RedisHealthStore', 'prefix', 'a string', prefix);
    this.#prefix = prefix ?? 'faultline:health:';
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs, 250);
    this.#retryAfterMs = positive('retryAfterMs', options.retryAfterMs, 5000);
    this.#onUnavailable = callback('onUnavailable', onUnavailable) ?? defaultUnavailable;
    this.#onRecovered = callback('onRecovered', onRecovered) as (() => void) | undefined;
    if (fallbackStore !== undefined && !(fallbackStore instanceof MemoryHealthStore))
      throw invalidOption('RedisHealthStore', 'fallbackStore', 'a MemoryHealthStore', fallbackStore);
    this.#local = fallbackStore ?? new MemoryHealthStore();
  }

  /** True while calls go to local state because Redis failed. */
  get unavailable(): boolean {
    return this.#down;
  }

  async #run<T>(
    script: string,
    keys: readonly string[],
    args: Array<string | number>,
    local: () => T,
    parse: (raw: unknown) => T,
  ): Promise<T> {
    if (this.#down && performance.now() < this.#downUntil) return local();
    // A client that has ended will never answer; any other state (connecting, reconnecting) may,
    // within the timeout, from ioredis's offline queue.
    const status = this.#client.status;
    if (status === 'end' || status === 'close') {
      this.#fail(new Error(`the Redis client is ${status}`));
      return local();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const call = this.#client.eval(script, keys.length, ...keys.map((key) => this.#prefix + key), ...args);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RedisTimeoutError(this.#timeoutMs)), this.#timeoutMs);
      });
      const raw = await Promise.race([call, timeout]);
      const result = parse(raw);
      if (this.#down) {
        this.#down = false;
        try {
          this.#onRecovered?.();
        } catch {
          // A hook never changes the outcome.
        }
      }
      return result;
    } catch (error) {
      this.#fail(error);
      return local();
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  #fail(error: unknown): void {
    this.#downUntil = performance.now() + this.#retryAfterMs;
    if (this.#down) return;
    this.#down = true;
    try {
      this.#onUnavailable(error);
    } catch {
      // A hook never changes the outcome.
    }
  }

  read(keys: readonly string[]): Promise<ReadonlyArray<StoredEntry | undefined>> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.#run(
      READ_SCRIPT,
      keys,
      [],
      () => this.#local.readNow(keys),
      (raw) => {
        if (!Array.isArray(raw)) throw new Error('unexpected reply to the read script');
        return keys.map((_, index) => {
          const value = raw[index * 2];
          const ttl = Number(raw[index * 2 + 1]);
          if (value === null || value === undefined || value === false) return undefined;
          const number = Number(value);
          if (!Number.isFinite(number)) return undefined;
          // -1: a key without expiry (not written by this store); read it as living a long time.
          return { value: number, ttlMs: ttl >= 0 ? ttl : Number.MAX_SAFE_INTEGER };
        });
      },
    );
  }

  increment(key: string, ttlMs: number, by = 1): Promise<number> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    return this.#run(
      INCREMENT_SCRIPT,
      [key],
      [ttl, by],
      () => this.#local.incrementNow(key, ttl, by),
      (raw) => {
        const value = Number(raw);
        if (!Number.isFinite(value)) throw new Error('unexpected reply to the increment script');
        return value;
      },
    );
  }

  write(key: string, value: number, ttlMs: number, mode: WriteMode = 'always'): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    return this.#run(
      WRITE_SCRIPT,
      [key],
      [value, ttl, mode],
      () => this.#local.writeNow(key, value, ttl, mode),
      (raw) => Number(raw) === 1,
    );
  }

  delete(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.#run(
      DELETE_SCRIPT,
      keys,
      [],
      () => this.#local.deleteNow(keys),
      () => undefined,
    );
  }
}

/** A duration option: absent, its default; given, a finite number > 0, else a TypeError. */
function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  throw invalidOption('RedisHealthStore', name, 'a finite number of milliseconds > 0', value);
}

/** A callback option: absent, undefined; given, a function, else a TypeError. */
function callback(name: string, value: unknown): ((error: unknown) => void) | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return value as (error: unknown) => void;
  throw invalidOption('RedisHealthStore', name, 'a function', value);
}
