// The one option every durable-engine bridge (BullMQ, Temporal, Restate) takes to let a job wait for
// a spent allowance's reset instead of failing: the report says when (`retryAfterSeconds`,
// `retryableAt`, `waitKind: 'quota_reset'`), the job's owner says how long is worth waiting.
import { invalidOption } from './invalid-option.ts';
import type { ErrorReport } from './report.ts';

export interface ResetWaitOptions {
  /**
   * A failure no retry fixes now but whose report says when it can (a spent quota that resets,
   * `waitKind: 'quota_reset'`) is tried again once that wait is over, when it is at most this many
   * ms; a longer wait, or none, leaves the failure final. Default 0: never wait.
   */
  readonly maxWaitMs?: number | undefined;
}

/** The keys of `ResetWaitOptions`, for a bridge's option-key table. */
export const RESET_WAIT_OPTION_KEYS = { maxWaitMs: true } as const satisfies Record<
  keyof ResetWaitOptions,
  true
>;

/** Reads `options.maxWaitMs` (0 when absent); anything but a finite number ≥ 0 is a TypeError naming `scope`. */
export function maxResetWaitMs(options: ResetWaitOptions | undefined, scope: string): number {
  const value: unknown = options?.maxWaitMs;
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw invalidOption(scope, 'maxWaitMs', 'a finite number of ms ≥ 0', value);
  return value;
}

/**
 * How long to wait before trying again a failure that is final only until a spent allowance resets:
 * the report's wait in ms when it is a reset (`waitKind: 'quota_reset'`) within `maxWaitMs`, else
 * undefined (a retryable failure is the engine's ordinary retry; anything else stays final).
 */
export function resetWaitMs(report: ErrorReport, maxWaitMs: number): number | undefined {
  if (report.retryable || report.waitKind !== 'quota_reset' || report.retryAfterSeconds === undefined)
    return undefined;
  const milliseconds = Math.ceil(report.retryAfterSeconds * 1000);
  return milliseconds <= maxWaitMs ? milliseconds : undefined;
}
