// A rate-limited cheap primary under load: how much of what it admits each policy uses, one run.
import { readRateLimit, withClassifiedErrors as withOpenAI } from '@faultline/extract-openai';
import { type MockProvider, startMockProvider } from '@faultline/llm-mock';
import { type Candidate, HealthRegistry, runWithFallback } from '@faultline/resilience';
import OpenAI from 'openai';
import { quantile } from './statistics.ts';

/** One policy's figures over the whole run. */
export interface RateLimitRow {
  readonly policy: string;
  readonly calls: number;
  readonly succeeded: number;
  /** Answers the primary gave within the run's windows (counted at its server). */
  readonly primaryServed: number;
  /** What the primary could have admitted over the run's windows. */
  readonly primaryCapacity: number;
  /** Windows in which the callers began fewer calls than the limit (the capacity was not offered). */
  readonly underOfferedWindows: number;
  /** `primaryServed / primaryCapacity`. */
  readonly capacityShare: number;
  /** 429s the primary sent (requests made in vain). */
  readonly rateLimited: number;
  /** Calls the backup answered. */
  readonly backupServed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface RateLimitResult {
  readonly callers: number;
  readonly limitPerSecond: number;
  readonly seconds: number;
  readonly thinkMs: number;
  readonly rows: readonly RateLimitRow[];
}

const CALLERS = 20;
const LIMIT = 20;
const WINDOW_MS = 1000;
const SECONDS = 10;
const THINK_MS = 500;
const DEFAULT_RESET_WAIT_MS = 250;
const PARAMS = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };

/** The headers a chain before the budget could read: the 429's whole-second retry-after, no budget. */
const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
];
const withoutBudgetHeaders: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(response.headers);
  for (const name of RATE_LIMIT_HEADERS) headers.delete(name);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
};

interface Servers {
  readonly primary: MockProvider;
  readonly backup: MockProvider;
  primaryClient(options?: { maxRetries?: number; budgetHeaders?: boolean }): OpenAI;
  backupClient(): OpenAI;
}

async function servers(): Promise<Servers> {
  const primary = await startMockProvider({ providers: ['openai'], reply: 'primary' });
  const backup = await startMockProvider({ providers: ['openai'], reply: 'backup' });
  const clients = new Map<string, OpenAI>();
  const client = (key: string, make: () => OpenAI) => {
    let found = clients.get(key);
    if (found === undefined) {
      found = make();
      clients.set(key, found);
    }
    return found;
  };
  return {
    primary,
    backup,
    primaryClient: ({ maxRetries = 0, budgetHeaders = true } = {}) =>
      client(
        `primary:${maxRetries}:${budgetHeaders}`,
        () =>
          new OpenAI({
            apiKey: 'sk-bench',
            maxRetries,
            baseURL: primary.url('openai'),
            ...(budgetHeaders ? {} : { fetch: withoutBudgetHeaders }),
          }),
      ),
    backupClient: () =>
      client(
        'backup',
        () => new OpenAI({ apiKey: 'sk-bench', maxRetries: 0, baseURL: backup.url('openai') }),
      ),
  };
}

async function drive(
  policy: string,
  makeCall: (set: Servers) => () => Promise<unknown>,
): Promise<RateLimitRow> {
  const set = await servers();
  try {
    const call = makeCall(set);
    // The windows start here, with the run.
    set.primary.script('openai', { rateLimit: { requests: LIMIT, windowMs: WINDOW_MS } });
    const windowsStart = Date.now();
    const start = performance.now();
    const latencies: number[] = [];
    const offered = new Map<number, number>();
    let calls = 0;
    let succeeded = 0;
    const caller = async (index: number) => {
      // Spread the first calls over one think time, as arriving users would be.
      await new Promise((resolve) => setTimeout(resolve, (index / CALLERS) * THINK_MS));
      while (performance.now() - start < SECONDS * 1000) {
        const began = performance.now();
        const window = Math.floor((Date.now() - windowsStart) / WINDOW_MS);
        offered.set(window, (offered.get(window) ?? 0) + 1);
        try {
          await call();
          succeeded++;
        } catch {
          // Counted as a failed call.
        }
        calls++;
        latencies.push(performance.now() - began);
        await new Promise((resolve) => setTimeout(resolve, THINK_MS));
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index)));
    // The run's whole windows (aligned on when the limit was set): calls still in flight when the
    // callers stop fall in a window the callers no longer fill.
    const inRun = set.primary
      .requests('openai')
      .filter((request) => request.time < windowsStart + SECONDS * WINDOW_MS);
    const served = inRun.filter((request) => request.answer.kind === 'ok').length;
    const capacity = ((SECONDS * 1000) / WINDOW_MS) * LIMIT;
    let underOffered = 0;
    for (let window = 0; window < SECONDS; window++) if ((offered.get(window) ?? 0) < LIMIT) underOffered++;
    const requests = set.primary.requests('openai');
    latencies.sort((a, b) => a - b);
    return {
      policy,
      calls,
      succeeded,
      primaryServed: served,
      primaryCapacity: capacity,
      underOfferedWindows: underOffered,
      capacityShare: served / capacity,
      rateLimited: requests.filter((request) => request.answer.status === 429).length,
      backupServed: set.backup.requests('openai').length,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    };
  } finally {
    await Promise.all([set.primary.close(), set.backup.close()]);
  }
}

function chain(
  set: Servers,
  registry: HealthRegistry,
  budget: boolean,
  maxResetWaitMs: number,
): () => Promise<unknown> {
  const candidates: Candidate<unknown>[] = [
    budget
      ? {
          provider: 'openai',
          model: 'primary',
          withClassifiedErrors: withOpenAI,
          call: ({ signal }) =>
            set.primaryClient().chat.completions.create(PARAMS, { signal }).withResponse(),
          readRateLimit,
        }
      : {
          provider: 'openai',
          model: 'primary',
          withClassifiedErrors: withOpenAI,
          call: ({ signal }) =>
            set.primaryClient({ budgetHeaders: false }).chat.completions.create(PARAMS, { signal }),
        },
    {
      provider: 'backup',
      model: 'backup',
      withClassifiedErrors: withOpenAI,
      call: ({ signal }) => set.backupClient().chat.completions.create(PARAMS, { signal }),
    },
  ];
  return () => runWithFallback(candidates, { registry, retry: { maxAttempts: 2 }, maxResetWaitMs });
}

/**
 * A primary that admits `LIMIT` requests a second (fixed windows) and answers 429 beyond that, with
 * a whole-second `retry-after` and OpenAI's `x-ratelimit-*` headers; a healthy backup; `CALLERS`
 * callers that each call, wait half a second, and call again for ten seconds (about twice what the
 * primary admits). Counted at the two llm-mock servers.
 */
export async function benchRateLimit(): Promise<RateLimitResult> {
  const rows: RateLimitRow[] = [];
  rows.push(
    await drive('openai SDK retry (maxRetries 2), then the backup', (set) => async () => {
      try {
        return await set.primaryClient({ maxRetries: 2 }).chat.completions.create(PARAMS);
      } catch {
        return await set.backupClient().chat.completions.create(PARAMS);
      }
    }),
  );
  // The chain as it was before the budget: the 429's whole-second retry-after cools the key, a
  // cooling key is skipped. The same code with the reset and budget headers withheld from it and
  // no wait for a reset gives exactly that.
  rows.push(
    await drive('faultline chain before the budget (retry-after only, cooling key skipped)', (set) =>
      chain(set, new HealthRegistry(), false, 0),
    ),
  );
  for (const maxResetWaitMs of [1000, 250, 100]) {
    rows.push(
      await drive(
        `faultline chain with the budget, maxResetWaitMs ${maxResetWaitMs}${maxResetWaitMs === DEFAULT_RESET_WAIT_MS ? ' (the default)' : ''}`,
        (set) => chain(set, new HealthRegistry(), true, maxResetWaitMs),
      ),
    );
  }
  return { callers: CALLERS, limitPerSecond: LIMIT, seconds: SECONDS, thinkMs: THINK_MS, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchRateLimit();
  console.table(
    result.rows.map((row) => ({
      policy: row.policy,
      calls: row.calls,
      ok: row.succeeded,
      primary: row.primaryServed,
      capacity: row.primaryCapacity,
      share: `${(row.capacityShare * 100).toFixed(1)} %`,
      '429s': row.rateLimited,
      backup: row.backupServed,
      'windows under-offered': row.underOfferedWindows,
      p50: Math.round(row.p50Ms),
      p99: Math.round(row.p99Ms),
    })),
  );
}
