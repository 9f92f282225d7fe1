import { invalidOption } from '@faultline/classify/toolkit';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { MEMORY_HEALTH_STORE_OPTION_KEYS } from './option-keys.ts';

/** One stored number and the milliseconds it has left to live. */
export interface StoredEntry {
  readonly value: number;
  readonly ttlMs: number;
}

/**
 * How `write` treats a key that already exists: `always` replaces it, `absent` writes only a new
 * key (SET NX), `longer` keeps whichever of the two expires later (a cooldown is only ever
 * extended by a concurrent caller, never shortened).
 */
export type WriteMode = 'always' | 'absent' | 'longer';

/**
 * Where the health registry keeps its state: numbers with relative time-to-live. Every operation
 * is atomic on one key. TTLs are relative on purpose: a store shared by several hosts (Redis)
 * keeps time with its own clock, so no host's clock skew changes how long a key cools.
 */
export interface HealthStore {
  /** The value and remaining TTL of each key, `undefined` where absent. */
  read(keys: readonly string[]): Promise<ReadonlyArray<StoredEntry | undefined>>;
  /** Adds `by` (default 1) and returns the new value; a key created here lives `ttlMs`. */
  increment(key: string, ttlMs: number, by?: number): Promise<number>;
  /** Writes `value` for `ttlMs` as `mode` says; true when written. */
  write(key: string, value: number, ttlMs: number, mode?: WriteMode): Promise<boolean>;
  delete(keys: readonly string[]): Promise<void>;
  /**
   * The store's clock (milliseconds, monotonic), when it keeps time itself: the registry measures an
   * answer's age on it, so that the TTLs it shortens and the age agree. Absent (Redis keeps time on
   * the server): the registry uses `performance.now()`.
   */
  now?(): number;
}

export interface MemoryHealthStoreOptions {
  /** The clock, in milliseconds. Default `performance.now()` (monotonic). Tests pass a fake one. */
  readonly now?: (() => number) | undefined;
}

interface MemoryEntry {
  value: number;
  expiresAt: number;
}

/** Past this many keys, writes first drop the expired ones (the map never grows with dead keys). */
const SWEEP_AT = 10_000;

/** The default store: one process's memory, with an injectable clock. */
export class MemoryHealthStore implements HealthStore {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #now: () => number;

  constructor(options: MemoryHealthStoreOptions = {}) {
    checkOptionKeys('MemoryHealthStore', options, MEMORY_HEALTH_STORE_OPTION_KEYS);
    const now: unknown = options.now;
    if (now !== undefined && typeof now !== 'function')
      throw invalidOption('MemoryHealthStore', 'now', 'a function returning milliseconds', now);
    this.#now = (now as (() => number) | undefined) ?? (() => performance.now());
  }

  /** The store's clock (the injected `now`, else `performance.now()`): the registry reads answers' ages on it. */
  now(): number {
    return this.#now();
  }

  #live(key: string, now: number): MemoryEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(now: number): void {
    if (this.#entries.size < SWEEP_AT) return;
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  readNow(keys: readonly string[]): Array<StoredEntry | undefined> {
    const now = this.#now();
    return keys.map((key) => {
      const entry = this.#live(key, now);
      return entry === undefined ? undefined : { value: entry.value, ttlMs: entry.expiresAt - now };
    });
  }

  incrementNow(key: string, ttlMs: number, by = 1): number {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (entry !== undefined) {
      entry.value += by;
      return entry.value;
    }
    this.#sweep(now);
    this.#entries.set(key, { value: by, expiresAt: now + Math.max(1, ttlMs) });
    return by;
  }

  writeNow(key: string, value: number, ttlMs: number, mode: WriteMode = 'always'): boolean {
    const now = this.#now();
    const entry = this.#live(key, now);
    const expiresAt = now + Math.max(1, ttlMs);
    if (entry !== undefined && mode === 'absent') return false;
    if (entry !== undefined && mode === 'longer' && entry.expiresAt >= expiresAt) return false;
    this.#sweep(now);
    this.#entries.set(key, { value, expiresAt });
    return true;
  }

  deleteNow(keys: readonly string[]): void {
    for (const key of keys) this.#entries.delete(key);
  }

  read(keys: readonly string[]): Promise<ReadonlyArray<StoredEntry | undefined>> {
    return Promise.resolve(this.readNow(keys));
  }

  increment(key: string, ttlMs: number, by = 1): Promise<number> {
    return Promise.resolve(this.incrementNow(key, ttlMs, by));
  }

  write(key: string, value: number, ttlMs: number, mode: WriteMode = 'always'): Promise<boolean> {
    return Promise.resolve(this.writeNow(key, value, ttlMs, mode));
  }

  delete(keys: readonly string[]): Promise<void> {
    this.deleteNow(keys);
    return Promise.resolve();
  }
}
