// A provider outage under load: 200 concurrent callers, two candidates, three policies, one run.
import { withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { type Candidate, HealthRegistry, runWithFallback } from '@faultline/resilience';
import {
  type LoopbackServer,
  loadScenario,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import OpenAI from 'openai';
import { quantile } from './statistics.ts';

type ResponseScenario = Pick<Scenario, 'response'>;

/** One policy's figures over the whole run. */
export interface ResilienceRow {
  readonly policy: string;
  readonly calls: number;
  readonly succeeded: number;
  readonly successRate: number;
  /** Requests that reached the primary while it was down (counted at the loopback server). */
  readonly requestsToFailingProvider: number;
  /** Requests of every kind, to both providers. */
  readonly totalRequests: number;
  /** Requests to the primary after it came back (a breaker that never closes sends none). */
  readonly primaryRequestsAfterOutage: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface ResilienceResult {
  /** Simulated seconds per real second is 1 / scale. */
  readonly scale: number;
  readonly callers: number;
  /** Simulated seconds: before the outage, the outage, after it. */
  readonly phasesSeconds: readonly [number, number, number];
  readonly thinkSeconds: number;
  readonly rows: readonly ResilienceRow[];
}

const CALLERS = 200;
const BEFORE_S = 5;
const OUTAGE_S = 30;
const AFTER_S = 10;
const THINK_S = 1;
const PARAMS = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };

function answer(name: string): ResponseScenario {
  return {
    response: {
      kind: 'http',
      status: 200,
      headers: { 'x-request-id': `req_${name}` },
      body: JSON.stringify({
        id: `chatcmpl-${name}`,
        object: 'chat.completion',
        created: 1763760000,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: name }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      }),
    },
  };
}

/** ai-fallback's rule (remorses/ai-fallback `defaultShouldRetryThisError`): these statuses, or any 5xx. */
const AI_FALLBACK_STATUSES = [401, 403, 408, 409, 413, 429, 500];
const AI_FALLBACK_WORDS = [
  'overloaded',
  'service unavailable',
  'bad gateway',
  'too many requests',
  'internal server error',
  'gateway timeout',
  'rate_limit',
  'wrong-key',
  'unexpected',
  'capacity',
  'timeout',
  'server_error',
  '429',
  '500',
  '502',
  '503',
  '504',
];
function aiFallbackSwitches(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && (AI_FALLBACK_STATUSES.includes(status) || status > 500)) return true;
  const message = error instanceof Error ? error.message.toLowerCase() : '';
  return AI_FALLBACK_WORDS.some((word) => message.includes(word));
}

interface Providers {
  readonly outage: ResponseScenario;
  readonly primaryUp: ResponseScenario;
  readonly backup: ResponseScenario;
  /** The primary's client for now: the failing one during the outage. */
  primary(maxRetries?: number): OpenAI;
  backupClient(maxRetries?: number): OpenAI;
}

/**
 * Fresh scenarios per policy (so the server counts each policy apart). The outage is simulated by
 * the loopback server: during it the primary's requests reach a scenario answering 503 (OpenAI's
 * overloaded body), before and after it one answering 200; each request is routed at the moment it
 * is sent, so the count on the 503 scenario is exactly the requests sent to the failing provider.
 */
function providers(server: LoopbackServer, down: () => boolean): Providers {
  const outage: ResponseScenario = { response: loadScenario('openai/overloaded-503').response };
  const primaryUp = answer('primary');
  const backup = answer('backup');
  const clients = new Map<string, OpenAI>();
  const client = (scenario: ResponseScenario, name: string, maxRetries: number) => {
    const id = `${name}:${maxRetries}`;
    let found = clients.get(id);
    if (found === undefined) {
      found = new OpenAI({
        apiKey: 'sk-bench',
        maxRetries,
        baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
      });
      clients.set(id, found);
    }
    return found;
  };
  return {
    outage,
    primaryUp,
    backup,
    primary: (maxRetries = 0) =>
      down() ? client(outage, 'outage', maxRetries) : client(primaryUp, 'up', maxRetries),
    backupClient: (maxRetries = 0) => client(backup, 'backup', maxRetries),
  };
}

type Call = (providers: Providers) => Promise<unknown>;

async function drive(
  server: LoopbackServer,
  scale: number,
  policy: string,
  makeCall: (providers: Providers, down: () => boolean) => Call,
): Promise<ResilienceRow> {
  const start = performance.now();
  const elapsed = () => (performance.now() - start) / 1000 / scale;
  const down = () => elapsed() >= BEFORE_S && elapsed() < BEFORE_S + OUTAGE_S;
  const set = providers(server, down);
  const call = makeCall(set, down);
  const latencies: number[] = [];
  let calls = 0;
  let succeeded = 0;
  const end = BEFORE_S + OUTAGE_S + AFTER_S;
  let afterOutageStart = -1;
  const caller = async (index: number) => {
    // Spread the first calls over one think time, as arriving users would be.
    await new Promise((resolve) => setTimeout(resolve, (index / CALLERS) * THINK_S * 1000 * scale));
    while (elapsed() < end) {
      const began = performance.now();
      try {
        await call(set);
        succeeded++;
      } catch {
        // Counted as a failed call.
      }
      calls++;
      latencies.push(performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, THINK_S * 1000 * scale));
    }
  };
  const watcher = (async () => {
    while (elapsed() < BEFORE_S + OUTAGE_S) await new Promise((resolve) => setTimeout(resolve, 5));
    afterOutageStart = server.requests(set.primaryUp).length;
  })();
  await Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index)));
  await watcher;
  latencies.sort((a, b) => a - b);
  const toFailing = server.requests(set.outage).length;
  const primaryUp = server.requests(set.primaryUp).length;
  return {
    policy,
    calls,
    succeeded,
    successRate: succeeded / calls,
    requestsToFailingProvider: toFailing,
    totalRequests: toFailing + primaryUp + server.requests(set.backup).length,
    primaryRequestsAfterOutage: primaryUp - Math.max(0, afterOutageStart),
    // Latency in real milliseconds divided by the scale: simulated milliseconds.
    p50Ms: quantile(latencies, 0.5) / scale,
    p99Ms: quantile(latencies, 0.99) / scale,
  };
}

/**
 * A 30 s outage of the primary (5 s before, 10 s after) under 200 concurrent callers that each
 * call, wait a second, and call again; the backup stays healthy. `scale` compresses time (0.1:
 * every simulated second lasts 100 ms): the phases, think times, faultline's backoff, breaker and
 * budget windows are scaled, the SDK's own backoff (0.5–8 s, not configurable) is not.
 */
export async function benchResilience(scale = 1): Promise<ResilienceResult> {
  const server = await startLoopbackServer();
  try {
    const rows: ResilienceRow[] = [];
    // 1. The SDK's default: the primary only, with openai's own retries (2, exponential backoff).
    rows.push(
      await drive(
        server,
        scale,
        'openai SDK default retry (maxRetries 2), primary only',
        () => (set) => set.primary(2).chat.completions.create(PARAMS),
      ),
    );
    // 2. Status-based fallback, the rule of the `ai-fallback` package: on a listed status (or a
    // message word) switch to the next model and stay there until `modelResetInterval` (3 min).
    rows.push(
      await drive(server, scale, 'status-based fallback (ai-fallback rule), no retries', () => {
        const resetMs = 3 * 60 * 1000 * scale;
        let current = 0;
        let lastReset = performance.now();
        return async (set) => {
          if (current !== 0 && performance.now() - lastReset >= resetMs) {
            current = 0;
            lastReset = performance.now();
          }
          const initial = current;
          for (;;) {
            try {
              const client = current === 0 ? set.primary(0) : set.backupClient(0);
              return await client.chat.completions.create(PARAMS);
            } catch (error) {
              if (!aiFallbackSwitches(error)) throw error;
              current = (current + 1) % 2;
              if (current === initial) throw error;
            }
          }
        };
      }),
    );
    // 3. faultline: a chain [primary, backup] on the classification, with a shared breaker and budget.
    rows.push(
      await drive(server, scale, 'faultline chain: retry 2, breaker, budget, fallback', () => {
        const registry = new HealthRegistry({
          breaker: {
            failureThreshold: 5,
            windowMs: 10_000 * scale,
            openMs: 5_000 * scale,
            maxOpenMs: 60_000 * scale,
          },
          retryBudget: { ratio: 0.2, minRetries: 10, windowMs: 10_000 * scale },
        });
        return (set) => {
          const candidates: Candidate<unknown>[] = [
            {
              provider: 'openai',
              model: 'primary',
              withClassifiedErrors: withOpenAI,
              call: ({ signal }) => set.primary(0).chat.completions.create(PARAMS, { signal }),
            },
            {
              provider: 'backup',
              model: 'backup',
              withClassifiedErrors: withOpenAI,
              call: ({ signal }) => set.backupClient(0).chat.completions.create(PARAMS, { signal }),
            },
          ];
          return runWithFallback(candidates, {
            registry,
            retry: { maxAttempts: 2, baseDelayMs: 500 * scale },
          });
        };
      }),
    );
    return {
      scale,
      callers: CALLERS,
      phasesSeconds: [BEFORE_S, OUTAGE_S, AFTER_S],
      thinkSeconds: THINK_S,
      rows,
    };
  } finally {
    await server.close();
  }
}
