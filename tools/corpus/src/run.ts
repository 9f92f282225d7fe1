import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { driveScenario, type ScenarioServers, startScenarioServers } from '@faultline/scenario-driver';
import type { CaseLabel, LoadedCase } from './case.ts';

/** The fields scored per case. `decision` is category + retryable: what a retry loop acts on. */
export const FIELDS = ['decision', 'reason', 'userAction', 'nextStep'] as const;
export type Field = (typeof FIELDS)[number];

/** What faultline said about one case (or that the SDK call did not fail at all). */
export type Got = Required<CaseLabel> | { readonly succeeded: true };

export interface CaseResult {
  readonly case: LoadedCase;
  readonly got: Got;
  readonly hits: Readonly<Record<Field, boolean>>;
}

function score(expected: Required<CaseLabel>, got: Got): Record<Field, boolean> {
  if ('succeeded' in got) return { decision: false, reason: false, userAction: false, nextStep: false };
  return {
    decision: got.category === expected.category && got.retryable === expected.retryable,
    reason: got.reason === expected.reason,
    userAction: got.userAction === expected.userAction,
    nextStep: got.nextStep === expected.nextStep,
  };
}

async function runOne(
  entry: LoadedCase,
  servers: ScenarioServers,
  timeoutMs: number | undefined,
): Promise<CaseResult> {
  const outcome = await driveScenario(entry.scenario, servers, { timeoutMs });
  let got: Got;
  if (outcome.kind === 'success') {
    got = { succeeded: true };
  } else {
    const report = outcome.error.toErrorReport();
    got = {
      category: report.category,
      reason: report.reason,
      retryable: report.retryable,
      userAction: report.userAction.kind,
      nextStep: report.nextStep,
    };
  }
  return { case: entry, got, hits: score(entry.label, got) };
}

export interface RunOptions {
  /**
   * The SDKs' request timeout and the guards' idle timeout. Default the driver's: short only where
   * the server never answers (never-answer and stall cases wait for it).
   */
  readonly timeoutMs?: number;
  /** Cases in flight at once. */
  readonly concurrency?: number;
}

/**
 * Replays every case through its SDK (the driver's latest major of each) against the loopback
 * servers, each call inside the provider's bound `withClassifiedErrors` with no retries, streams
 * drained through the provider's guard, and scores the report against the label.
 */
export async function runCorpus(
  cases: readonly LoadedCase[],
  options: RunOptions = {},
): Promise<CaseResult[]> {
  const timeoutMs = options.timeoutMs;
  const concurrency = options.concurrency ?? 6;
  const servers = await startScenarioServers();
  try {
    const results: CaseResult[] = [];
    for (let index = 0; index < cases.length; index += concurrency) {
      const batch = cases.slice(index, index + concurrency);
      results.push(...(await Promise.all(batch.map((entry) => runOne(entry, servers, timeoutMs)))));
    }
    return results;
  } finally {
    await servers.close();
  }
}

/** The SDKs (and the versions, pinned by tools/scenario-driver) the corpus is played through. */
export function sdkVersions(): Record<string, string> {
  const path = createRequire(import.meta.url).resolve('@faultline/scenario-driver/package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { dependencies: Record<string, string> };
  return Object.fromEntries(
    Object.entries(manifest.dependencies).filter(([name]) => !name.startsWith('@faultline/')),
  );
}
