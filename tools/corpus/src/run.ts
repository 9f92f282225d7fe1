import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  driveScenario,
  ScenarioDidNotSettle,
  type ScenarioServers,
  startScenarioServers,
} from '@faultline/scenario-driver';
import type { CaseLabel, LoadedCase, ProviderCase } from './case.ts';
import { playMcp } from './mcp.ts';
import { type CorpusPath, callPath, PATH_PACKAGES, type PathOutcome, pathCovers } from './paths.ts';

/** The fields scored per case. `decision` is category + retryable: what a retry loop acts on. */
export const FIELDS = ['decision', 'reason', 'userAction', 'nextStep'] as const;
export type Field = (typeof FIELDS)[number];

/** What faultline said about one case (or that the SDK call did not fail at all). */
export type Got =
  | Required<CaseLabel>
  | { readonly succeeded: true }
  /** The call did not settle after its time limit (a client that ignores its abort). */
  | { readonly hung: true };

export interface CaseResult {
  readonly case: LoadedCase;
  /** The path the case was replayed through (the vendor SDK, the AI SDK, LangChain). */
  readonly path: CorpusPath;
  readonly got: Got;
  readonly hits: Readonly<Record<Field, boolean>>;
}

function score(expected: Required<CaseLabel>, got: Got): Record<Field, boolean> {
  if (!('category' in got)) return { decision: false, reason: false, userAction: false, nextStep: false };
  return {
    decision: got.category === expected.category && got.retryable === expected.retryable,
    reason: got.reason === expected.reason,
    userAction: got.userAction === expected.userAction,
    nextStep: got.nextStep === expected.nextStep,
  };
}

/**
 * The vendor SDK's call through the scenario driver. A client that does not settle well after
 * faultline's deadline aborted it is `hung`, a miss named in the table like the other paths' (not a
 * crash of the whole run): the scenario driver's own tests are where such a hang fails loudly.
 */
async function driveVendor(
  entry: ProviderCase,
  servers: ScenarioServers,
  timeoutMs: number | undefined,
): Promise<PathOutcome> {
  try {
    return await driveScenario(entry.scenario, servers, { timeoutMs });
  } catch (error) {
    if (error instanceof ScenarioDidNotSettle) return { kind: 'hung' };
    throw error;
  }
}

async function runOne(
  entry: LoadedCase,
  path: CorpusPath,
  servers: ScenarioServers,
  timeoutMs: number | undefined,
): Promise<CaseResult> {
  // pathCovers keeps MCP cases to the vendor path, whose client for them is the MCP client.
  const outcome: PathOutcome =
    entry.kind === 'mcp'
      ? await playMcp(entry)
      : path === 'vendor'
        ? await driveVendor(entry, servers, timeoutMs)
        : await callPath(path, entry, servers);
  let got: Got;
  if (outcome.kind === 'success') {
    got = { succeeded: true };
  } else if (outcome.kind === 'hung') {
    got = { hung: true };
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
  return { case: entry, path, got, hits: score(entry.label, got) };
}

export interface RunOptions {
  /**
   * The SDKs' request timeout and the guards' idle timeout. Default the driver's: short only where
   * the server never answers (never-answer and stall cases wait for it).
   */
  readonly timeoutMs?: number;
  /** Cases in flight at once. */
  readonly concurrency?: number;
  /** The paths each case is replayed through (default the vendor SDK only). */
  readonly paths?: readonly CorpusPath[];
}

/**
 * Replays every case through its SDK (the driver's latest major of each) against the loopback
 * servers, each call inside the provider's bound `withClassifiedErrors` with no retries, streams
 * drained through the provider's guard, and scores the report against the label. With `paths`,
 * each case is also replayed through the AI SDK and LangChain (paths.ts); results come per path,
 * in the order of `paths`, each in the cases' order.
 */
export async function runCorpus(
  cases: readonly LoadedCase[],
  options: RunOptions = {},
): Promise<CaseResult[]> {
  const timeoutMs = options.timeoutMs;
  const concurrency = options.concurrency ?? 6;
  const paths = options.paths ?? ['vendor'];
  const work = paths.flatMap((path) =>
    cases.filter((entry) => pathCovers(path, entry)).map((entry) => ({ path, entry })),
  );
  const servers = await startScenarioServers();
  try {
    const results: CaseResult[] = new Array(work.length);
    let next = 0;
    const worker = async () => {
      while (next < work.length) {
        const index = next;
        next += 1;
        const { path, entry } = work[index] as (typeof work)[number];
        results[index] = await runOne(entry, path, servers, timeoutMs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));
    return results;
  } finally {
    await servers.close();
  }
}

/** The client packages of the AI SDK and LangChain paths, at the versions this package pins. */
export function pathVersions(): Record<Exclude<CorpusPath, 'vendor'>, Record<string, string>> {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.map((name) => [name, manifest.dependencies[name] ?? 'unpinned']));
  return { 'ai-sdk': pick(PATH_PACKAGES['ai-sdk']), langchain: pick(PATH_PACKAGES.langchain) };
}

/**
 * The SDKs (and the versions, pinned by tools/scenario-driver) the corpus is played through, and the
 * MCP client its MCP cases are played to (pinned here).
 */
export function sdkVersions(): Record<string, string> {
  const path = createRequire(import.meta.url).resolve('@faultline/scenario-driver/package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { dependencies: Record<string, string> };
  const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const mcp = '@modelcontextprotocol/sdk';
  return Object.fromEntries(
    [...Object.entries(manifest.dependencies), [mcp, own.dependencies[mcp] ?? 'unpinned']]
      .filter(([name]) => !name!.startsWith('@faultline/'))
      .sort(([a], [b]) => (a! < b! ? -1 : 1)),
  );
}
