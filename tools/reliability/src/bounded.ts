import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The longest any single call may take: a sanity bound for "never hangs", not a performance claim. */
export const CALL_LIMIT_MS = 2_000;

export interface BoundedOutcome<T> {
  readonly value?: T;
  readonly error?: unknown;
  readonly hung: boolean;
  readonly elapsedMs: number;
}

/**
 * Runs `work` and reports how it ended, giving up after `limitMs` (a hang becomes `hung: true`
 * instead of a test that never ends). The give-up timer is always cleared.
 */
export async function bounded<T>(
  work: () => Promise<T>,
  limitMs = CALL_LIMIT_MS * 5,
): Promise<BoundedOutcome<T>> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), limitMs);
  });
  try {
    const result = await Promise.race([work().then((value) => ({ value })), hang]);
    const elapsedMs = performance.now() - started;
    if (result === 'hung') return { hung: true, elapsedMs };
    return { value: result.value, hung: false, elapsedMs };
  } catch (error) {
    return { error, hung: false, elapsedMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

let collector: (() => void) | undefined;
/** A full garbage collection (exposed at run time, so no `--expose-gc` flag is needed). */
export function collectGarbage(): void {
  if (collector === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collector = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as () => void;
    }
  }
  collector();
  collector();
}

/** heapUsed after a full collection, in bytes. */
export function settledHeapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
