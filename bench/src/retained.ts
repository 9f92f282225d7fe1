import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface RetainedRow {
  readonly provider: string;
  readonly errors: number;
  /** Heap retained per real SDK error, held alive. */
  readonly sdkBytesPerError: number;
  /** Heap a FaultlineError and its report add per error, the SDK error (their cause) already held. */
  readonly faultlineBytesPerError: number;
  /**
   * The floor (retained-floor.ts): the same facts as the smallest plain data, the report, its
   * per-call provider metadata, the error's metadata and an Error with the error's fields, each
   * with exactly its members in-object, every value shared. Measured the same way.
   */
  readonly floorBytesPerError: number;
  /** faultlineBytesPerError / sdkBytesPerError. */
  readonly ratio: number;
  /** The goal: faultline retains no more than the SDK error already does. */
  readonly met: boolean;
  /** The goal is out of any design's reach: the floor alone is above the SDK error. */
  readonly floorAboveGoal: boolean;
}

/**
 * Retained memory per error (retained-worker.ts, in a fresh process with --expose-gc, through the
 * same loader and conditions as this process): `count` real SDK errors of each provider held
 * alive, then a FaultlineError and its report for each, then the floor's objects for each.
 */
export function benchRetained(count = 100_000): RetainedRow[] {
  const worker = fileURLToPath(new URL('./retained-worker.ts', import.meta.url));
  const output = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', worker, String(count)], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rows = JSON.parse(output.toString()) as Array<Omit<RetainedRow, 'ratio' | 'met' | 'floorAboveGoal'>>;
  return rows.map((row) => ({
    ...row,
    ratio: row.faultlineBytesPerError / row.sdkBytesPerError,
    met: row.faultlineBytesPerError <= row.sdkBytesPerError,
    floorAboveGoal: row.floorBytesPerError > row.sdkBytesPerError,
  }));
}
