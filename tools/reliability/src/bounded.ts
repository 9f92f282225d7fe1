import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How long a call may run before it counts as hung. It tells a hang (or work that grows faster than
 * the input) from a slow call on a busy machine, so it is far above what any call takes; how fast the
 * calls are is measured in `bench/`, never here.
 */
export const HANG_LIMIT_MS = 20_000;

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
  limitMs = HANG_LIMIT_MS,
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
