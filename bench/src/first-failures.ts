import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadScenario, startLoopbackServer } from '@faultline/llm-mock';
import { quantile } from './statistics.ts';
import { healthy } from './success-path.ts';

const run = promisify(execFile);

/** The cold goal: the first five failures of a fresh process, classified and reported, in this much CPU time. */
export const FIRST_FAILURES_GOAL_MS = 5;
/** The warm goal: one failure's error and decision under this share of the fastest real call. */
export const WARM_GOAL_SHARE = 0.01;
/** Fresh processes measured; the figures are their median and spread. */
export const FIRST_FAILURE_PROCESSES = 21;

/**
 * Five different failures a function meets, from three SDKs: each scenario's real SDK error is
 * what the worker classifies, and the report must give the scenario's expected reason.
 */
export const FIRST_FAILURE_SCENARIOS = [
  'openai/rate-limit-retry-after-ms',
  'openai/insufficient-quota',
  'anthropic/prompt-too-long',
  'anthropic/stream-cut',
  'google-genai/gemini-internal-error',
] as const;

interface WorkerResult {
  readonly importCpuMs: number;
  readonly importWallMs: number;
  readonly totalCpuMs: number;
  readonly totalWallMs: number;
  readonly perFailure: ReadonlyArray<{ cpuMs: number; wallMs: number }>;
  readonly reasons: readonly string[];
  readonly warm?: WarmFigures;
}

/** Measured in the last process, once its first failures are done (medians over its rounds). */
export interface WarmFigures {
  readonly rounds: number;
  /** Each failure's error and decision (classified, its report built), wall time, ms. */
  readonly failureWallMs: number[];
  readonly failureCpuMs: number[];
  /** The fastest real call in the bench: a healthy loopback chat completion through openai, ms. */
  readonly callMs: number;
  /** The slowest failure against that call, taken within each round. */
  readonly share: number;
}

/** Median, quartiles and extremes of a sample, in its own unit. */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly min: number;
  readonly max: number;
}

function spreadOf(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    min: sorted[0]!,
    max: sorted.at(-1)!,
  };
}

export interface FirstFailuresResult {
  readonly processes: number;
  readonly scenarios: ReadonlyArray<{ id: string; reason: string }>;
  /** The five first classifications and reports together, per process. */
  readonly totalCpuMs: Spread;
  readonly totalWallMs: Spread;
  /** Each failure's own share, in the order met (the first pays for what runs once). */
  readonly perFailureCpuMs: Spread[];
  /** The three adapters' import, before the failures (not part of the goal; shown beside it). */
  readonly importCpuMs: Spread;
  readonly met: boolean;
  readonly warm: WarmFigures & { readonly met: boolean };
}

/**
 * The first failures in fresh processes (first-failures-worker.mjs): each process imports the
 * SDKs and adapters, gets the five scenarios' real SDK errors from the loopback server (in this
 * process), then times faultline classifying them and building their reports. The last process
 * also measures the warm figures.
 */
export async function benchFirstFailures(processes = FIRST_FAILURE_PROCESSES): Promise<FirstFailuresResult> {
  const server = await startLoopbackServer();
  try {
    const scenarios = FIRST_FAILURE_SCENARIOS.map((id) => loadScenario(id));
    const failures = scenarios.map((scenario) => ({
      id: scenario.id,
      provider: scenario.provider,
      stream: scenario.stream === true,
      baseUrl: server.baseUrlFor(scenario),
      expectedReason: scenario.expected.reason,
    }));
    const worker = fileURLToPath(new URL('./first-failures-worker.mjs', import.meta.url));
    const results: WorkerResult[] = [];
    for (let index = 0; index < processes; index += 1) {
      const last = index === processes - 1;
      const request = { failures, warm: last, healthyUrl: server.baseUrlFor(healthy) };
      // Asynchronous: the loopback server answering the worker runs in this process.
      const { stdout } = await run(process.execPath, [worker, JSON.stringify(request)], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      results.push(JSON.parse(stdout) as WorkerResult);
    }
    const warm = results.at(-1)!.warm!;
    const totalCpuMs = spreadOf(results.map((result) => result.totalCpuMs));
    return {
      processes,
      scenarios: failures.map((failure, index) => ({ id: failure.id, reason: results[0]!.reasons[index]! })),
      totalCpuMs,
      totalWallMs: spreadOf(results.map((result) => result.totalWallMs)),
      perFailureCpuMs: failures.map((_, index) =>
        spreadOf(results.map((result) => result.perFailure[index]!.cpuMs)),
      ),
      importCpuMs: spreadOf(results.map((result) => result.importCpuMs)),
      met: totalCpuMs.median <= FIRST_FAILURES_GOAL_MS,
      warm: { ...warm, met: warm.share < WARM_GOAL_SHARE },
    };
  } finally {
    await server.close();
  }
}
