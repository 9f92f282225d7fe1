import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { callProvider, loadProvider, pinnedSdkVersion } from '@faultline/scenario-driver';
import { loadScenarios, type Scenario } from '@faultline/test-fixtures';
import { APICallError } from 'ai';

/** One policy's decisions over one provider's scenarios. */
export interface RetryDecisionRow {
  readonly provider: string;
  readonly policy: string;
  readonly scenarios: number;
  /** Retries spent on failures that no retry can fix (configuration, capacity, content, unknown). */
  readonly wastedRetries: number;
  /** Transient failures that were not retried at all. */
  readonly missedRetries: number;
  /** Transient failures handed back at once because the provider's wait exceeds the cap (a scheduler reschedules). */
  readonly deferred: number;
  /** Seconds of backoff spent before giving up on failures that no retry can fix. */
  readonly wastedBackoffSeconds: number;
}

const SDK_TIMEOUT_MS = 1234; // a sentinel: timers of this length are request timeouts, not backoff
const GIVE_UP_MS = 8000; // a stalled stream that no SDK timeout covers
const FAULTLINE_RETRY = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterSeconds: 60 };

/**
 * Records every backoff wait the code under test asks for, and skips it: no real time passes.
 * The wall clock (`Date.now`) advances by each skipped wait, so that policies bounded by elapsed
 * time (Mistral's `maxElapsedTime`) see the time they would really have spent.
 */
class BackoffRecorder {
  readonly delays: number[] = [];
  private readonly original = globalThis.setTimeout;
  private readonly originalNow = Date.now;
  private skipped = 0;

  install(): void {
    const recorder = this;
    const original = this.original;
    const realNow = this.originalNow;
    Date.now = () => realNow() + recorder.skipped;
    globalThis.setTimeout = function patched(
      callback: (...args: unknown[]) => void,
      ms?: number,
      ...rest: unknown[]
    ) {
      const wait = Number(ms ?? 0);
      // Only the waits of the code under test: undici's and Node's own timers (keep-alive, body
      // timeouts) are left to run, or skipping them would change what the transport does. Only the
      // immediate caller counts (the third stack line, after "Error" and this function).
      if (
        wait > 0 &&
        wait !== SDK_TIMEOUT_MS &&
        !/node:internal|[\\/]undici[\\/]/.test((new Error().stack ?? '').split('\n')[2] ?? '')
      ) {
        recorder.delays.push(wait);
        recorder.skipped += wait;
        return original(callback, 0, ...rest);
      }
      return original(callback, ms, ...rest);
    } as typeof setTimeout;
  }

  uninstall(): void {
    globalThis.setTimeout = this.original;
    Date.now = this.originalNow;
  }
}

class ServerWorker {
  private nextId = 1;
  private readonly pending = new Map<number, (value: any) => void>();
  readonly ready: Promise<void>;
  private readonly worker: ChildProcess;

  constructor() {
    // The servers' process runs TypeScript through the same tsx loader as the bench.
    this.worker = fork(fileURLToPath(new URL('./server-worker.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve) => {
      this.worker.on('message', (message: { id: number }) => {
        if (message.id === 0) resolve();
        this.pending.get(message.id)?.(message);
        this.pending.delete(message.id);
      });
    });
  }

  private ask(message: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.send({ ...message, id });
    });
  }

  async register(scenario: Scenario): Promise<{ key: string; baseUrl: string }> {
    const answer = await this.ask({ kind: 'register', scenarioId: scenario.id });
    return { key: String(answer.id), baseUrl: answer.baseUrl };
  }

  async count(key: string): Promise<number> {
    return (await this.ask({ kind: 'count', scenarioId: key })).count;
  }

  async close(): Promise<void> {
    await this.ask({ kind: 'close' });
    this.worker.kill();
  }
}

interface Attempted {
  readonly retries: number;
  readonly backoffMs: number;
  readonly deferred: boolean;
}

async function attempt(
  servers: ServerWorker,
  scenario: Scenario,
  run: (baseUrl: string, signal: AbortSignal) => Promise<unknown>,
): Promise<Attempted> {
  const { key, baseUrl } = await servers.register(scenario);
  const recorder = new BackoffRecorder();
  const controller = new AbortController();
  const realSetTimeout = globalThis.setTimeout;
  const guard = realSetTimeout(() => controller.abort(new Error('gave up')), GIVE_UP_MS);
  let deferred = false;
  recorder.install();
  try {
    await run(baseUrl, controller.signal);
  } catch (error) {
    const report = (
      error as { toErrorReport?: () => { retryable: boolean; retryAfterSeconds?: number } }
    ).toErrorReport?.();
    deferred =
      report?.retryable === true && (report.retryAfterSeconds ?? 0) > FAULTLINE_RETRY.maxRetryAfterSeconds;
  } finally {
    recorder.uninstall();
    clearTimeout(guard);
  }
  const requests = await servers.count(key);
  // DNS failures and refused connections reach no server: their retries are the waits before them.
  const retries = Math.max(
    requests - 1,
    scenario.response.kind === 'dns-failure' ||
      (scenario.response.kind === 'socket' && scenario.response.behaviour === 'refuse')
      ? recorder.delays.length
      : 0,
  );
  return { retries, backoffMs: recorder.delays.reduce((sum, delay) => sum + delay, 0), deferred };
}

/**
 * The Vercel AI SDK's default decision, from its real `APICallError.isRetryable` (408, 409, 429,
 * 5xx) with its default of 2 retries and 2 s doubling backoff; network failures become retryable
 * APICallErrors in its fetch wrapper, and errors inside a 200 stream are not retried. Its delay
 * rule (`getRetryDelayInMs`, not exported) honours retry-after-ms / retry-after under 60 s.
 */
function vercelDecision(scenario: Scenario): Attempted {
  const response = scenario.response;
  let retryable = false;
  let headers: Record<string, string> = {};
  if (response.kind === 'http') {
    headers = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    retryable = new APICallError({
      message: 'bench',
      url: 'http://127.0.0.1',
      requestBodyValues: {},
      statusCode: response.status,
      responseHeaders: headers,
      responseBody: response.body,
    }).isRetryable;
  } else if (response.kind === 'socket' || response.kind === 'dns-failure') {
    retryable = true;
  }
  if (!retryable) return { retries: 0, backoffMs: 0, deferred: false };
  let backoffMs = 0;
  for (let retry = 0, exponential = 2000; retry < 2; retry += 1, exponential *= 2) {
    let hinted: number | undefined;
    if (headers['retry-after-ms'] !== undefined) hinted = Number.parseFloat(headers['retry-after-ms']);
    else if (headers['retry-after'] !== undefined) {
      const seconds = Number.parseFloat(headers['retry-after']);
      hinted = Number.isNaN(seconds) ? Date.parse(headers['retry-after']) - Date.now() : seconds * 1000;
    }
    backoffMs +=
      hinted !== undefined && hinted >= 0 && (hinted < 60_000 || hinted < exponential) ? hinted : exponential;
  }
  return { retries: 2, backoffMs, deferred: false };
}

/** Every fixture scenario through faultline, each SDK's own retry rule, and the Vercel AI SDK's. */
export async function benchRetryDecisions(): Promise<RetryDecisionRow[]> {
  const servers = new ServerWorker();
  await servers.ready;
  const rows: RetryDecisionRow[] = [];
  try {
    const byProvider = new Map<string, Scenario[]>();
    for (const scenario of loadScenarios()) {
      byProvider.set(scenario.provider, [...(byProvider.get(scenario.provider) ?? []), scenario]);
    }
    for (const [provider, scenarios] of byProvider) {
      // The provider's bound wrapper and the names of its SDK's retry policies, from its driver.
      const { adapter, driver, entry } = await loadProvider(provider);
      const sdk =
        entry.sdk === null
          ? provider
          : `${entry.sdk} ${pinnedSdkVersion(entry.sdk)?.split('.')[0] ?? ''}`.trim();
      const policies: Array<[string, (scenario: Scenario) => Promise<Attempted>]> = [
        [
          'faultline (3 attempts)',
          (scenario) =>
            attempt(servers, scenario, (baseUrl, signal) =>
              adapter.withClassifiedErrors(
                () => callProvider(scenario, baseUrl, { timeoutMs: SDK_TIMEOUT_MS, signal }),
                {
                  retry: FAULTLINE_RETRY,
                  signal,
                },
              ),
            ),
        ],
        [
          `${sdk} ${driver.retryPolicies?.default ?? 'default'}`,
          (scenario) =>
            attempt(servers, scenario, (baseUrl, signal) =>
              callProvider(scenario, baseUrl, { timeoutMs: SDK_TIMEOUT_MS, signal, sdkRetries: 'default' }),
            ),
        ],
      ];
      const enabled = driver.retryPolicies?.enabled;
      if (enabled !== undefined) {
        policies.push([
          `${sdk} ${enabled}`,
          (scenario) =>
            attempt(servers, scenario, (baseUrl, signal) =>
              callProvider(scenario, baseUrl, { timeoutMs: SDK_TIMEOUT_MS, signal, sdkRetries: 'enabled' }),
            ),
        ]);
      }
      policies.push(['Vercel AI SDK isRetryable (2 retries)', async (scenario) => vercelDecision(scenario)]);
      for (const [policy, decide] of policies) {
        let wastedRetries = 0;
        let missedRetries = 0;
        let deferred = 0;
        let wastedBackoffMs = 0;
        for (const scenario of scenarios) {
          const outcome = await decide(scenario);
          const category = scenario.expected.category;
          if (category === 'transient') {
            if (outcome.deferred) deferred += 1;
            else if (outcome.retries === 0) missedRetries += 1;
          } else if (category !== 'ambiguous') {
            wastedRetries += outcome.retries;
            wastedBackoffMs += outcome.backoffMs;
          }
        }
        rows.push({
          provider,
          policy,
          scenarios: scenarios.length,
          wastedRetries,
          missedRetries,
          deferred,
          wastedBackoffSeconds: wastedBackoffMs / 1000,
        });
      }
    }
  } finally {
    await servers.close();
  }
  return rows;
}
