// Mixed failures under load: faultline beside the AI SDK's own retry, `ai-fallback` and `ai-retry`
// (each at the version made for ai 6, from npm), one run. A cheap primary answering like OpenAI, a
// backup answering like Anthropic (@faultline/llm-mock, loopback), 100 concurrent callers, one
// failure of the primary per scenario; counted at the servers.
import { readFileSync } from 'node:fs';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { faultlineFallback } from '@faultline/ai-sdk';
import {
  guardStream as guardAnthropicStream,
  withClassifiedErrors as withAnthropic,
} from '@faultline/extract-anthropic';
import {
  guardStream as guardOpenAIStream,
  readRateLimit,
  withClassifiedErrors as withOpenAI,
} from '@faultline/extract-openai';
import { fault, type MockProvider, type Step, startMockProvider } from '@faultline/llm-mock';
import {
  type Candidate,
  type CandidateOutcome,
  HealthRegistry,
  minimumTokenCount,
  runWithFallback,
  streamWithFallback,
} from '@faultline/resilience';
import { generateText, streamText } from 'ai';
import { createFallback } from 'ai-fallback';
import { createRetryableModel, error as retryError } from 'ai-retry/language-model';
import OpenAI from 'openai';
import { quantile } from './statistics.ts';

/** The installed versions of the clients and peers under test (read from the bench's node_modules). */
const VERSIONS: Readonly<Record<string, string>> = Object.fromEntries(
  ['ai', 'ai-fallback', 'ai-retry', '@ai-sdk/openai', '@ai-sdk/anthropic', 'openai', '@anthropic-ai/sdk'].map(
    (name) => {
      try {
        const path = new URL(`../node_modules/${name}/package.json`, import.meta.url);
        return [name, (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version];
      } catch {
        return [name, 'unknown'];
      }
    },
  ),
);

const CALLERS = 100;
const THINK_MS = 500;
/** The primary's and the backup's model ids: a 16k-window model, a 200k-window one (models.dev). */
const PRIMARY_MODEL = 'gpt-3.5-turbo';
const BACKUP_MODEL = 'claude-sonnet-4-6';
const PRIMARY_REPLY = 'primary answers with these eight words here';
const BACKUP_REPLY = 'backup answers with these eight words here';
const KEY = 'sk-bench-mixed-failures-0123456789';
/** The primary admits this many requests per one-second window in the rate-limit scenario. */
const LIMIT = 20;
const WINDOW_MS = 1000;
const RATE_LIMIT_SECONDS = 5;
/** How long the healthy primary of the cold-start scenario takes to answer each request. */
const HEALTHY_LATENCY_MS = 300;
/** A short prompt, and a long one: a report of about 41k tokens (o200k), some 2.5 times the primary's window. */
const SHORT_PROMPT = 'hello';
const LONG_SENTENCES = [
  'The committee reviewed the quarterly figures before the meeting began.',
  'Revenue from the northern region rose by a third, while costs held steady.',
  'Several members asked how the new pricing would affect existing contracts.',
  'The minutes record a vote of seven to two in favour of the proposal.',
  'A follow-up review is planned for the second week of the next quarter.',
];
const LONG_PROMPT = `Summarise this report. ${Array.from(
  { length: 2400 },
  (_, index) => `${LONG_SENTENCES[index % LONG_SENTENCES.length]} (${index + 1})`,
).join(' ')}`;
const promptOf = (long: boolean) => (long ? LONG_PROMPT : SHORT_PROMPT);

/** One scenario: what the primary does, and for how long the callers call. */
interface ScenarioSpec {
  readonly id: string;
  readonly title: string;
  readonly seconds: number;
  readonly stream: boolean;
  /** Installs the primary's behaviour at the start; returns a stop for timed changes. */
  start(primary: MockProvider): () => void;
  /** The share of calls that are too long for the primary's window (sent to the overflowing route). */
  readonly longShare?: number;
  /**
   * What the primary could have served, given the calls begun or ended while it was healthy (`healthyCalls`)
   * and in all (`calls`); undefined where it can serve nothing (a spent quota, a rejected key).
   */
  capacity(counts: { readonly calls: number; readonly healthyCalls: number }): number | undefined;
  /** Whether the primary can answer a call begun this long after the start (default: always). */
  healthyAt?(elapsedMs: number): boolean;
  /**
   * Every caller starts at once (no stagger): the first wave reaches the primary before any answer
   * from it is known. Default: callers start spread over the think time.
   */
  readonly burst?: boolean;
  /** Played by faultline's policies only (it measures one of faultline's options, not the peers). */
  readonly faultlineOnly?: boolean;
}

const overflowForever: Step[] = [
  { kind: 'scenario', id: 'openai/context-length-exceeded', times: 1_000_000 },
];

const SCENARIOS: readonly ScenarioSpec[] = [
  {
    id: 'rate-limit',
    title: `rate limit: ${LIMIT} requests a second admitted, 429 beyond with retry-after and x-ratelimit-* headers`,
    seconds: RATE_LIMIT_SECONDS,
    stream: false,
    start: (primary) => {
      primary.script('openai', { rateLimit: { requests: LIMIT, windowMs: WINDOW_MS } });
      return () => undefined;
    },
    capacity: () => RATE_LIMIT_SECONDS * (1000 / WINDOW_MS) * LIMIT,
  },
  {
    id: 'quota',
    title: 'spent quota: every request 429 insufficient_quota',
    seconds: 5,
    stream: false,
    start: (primary) => {
      primary.script('openai', [{ kind: 'scenario', id: 'openai/insufficient-quota', times: 1_000_000 }]);
      return () => undefined;
    },
    capacity: () => undefined,
  },
  {
    id: 'outage',
    title: 'outage then recovery: healthy 1 s, 503 for 4 s, healthy 5 s',
    seconds: 10,
    stream: false,
    start: (primary) => {
      const down = setTimeout(
        () => primary.script('openai', [{ kind: 'scenario', id: 'openai/overloaded-503', times: 1_000_000 }]),
        1000,
      );
      const up = setTimeout(() => primary.clearScript('openai'), 5000);
      return () => {
        clearTimeout(down);
        clearTimeout(up);
      };
    },
    healthyAt: (elapsedMs) => elapsedMs < 1000 || elapsedMs >= 5000,
    capacity: ({ healthyCalls }) => healthyCalls,
  },
  {
    id: 'context-overflow',
    title: `context overflow: 30 % of prompts (a report of about 41k tokens) too long for the primary's 16k window; the backup's is 200k`,
    seconds: 3,
    stream: false,
    longShare: 0.3,
    start: () => () => undefined,
    capacity: ({ calls }) => Math.round(calls * 0.7),
  },
  {
    id: 'invalid-key',
    title: "invalid key on the primary: every request 401; the backup holds its own provider's key",
    seconds: 5,
    stream: false,
    start: (primary) => {
      primary.script('openai', [{ kind: 'scenario', id: 'openai/invalid-api-key', times: 1_000_000 }]);
      return () => undefined;
    },
    capacity: () => undefined,
  },
  {
    id: 'cut-streams',
    title: "streams cut after output: 30 % of the primary's streams drop after two chunks (seeded)",
    seconds: 4,
    stream: true,
    start: (primary) => {
      primary.chaos('openai', {
        probability: 0.3,
        seed: 7,
        faults: [fault.streamCut(2)],
      });
      return () => undefined;
    },
    // A second request gets a whole answer: every call could have been the primary's.
    capacity: ({ calls }) => calls,
  },
  {
    id: 'quota-burst',
    title:
      'spent quota, every caller starting at once: the first wave reaches the primary before any answer is known',
    seconds: 3,
    stream: false,
    burst: true,
    faultlineOnly: true,
    start: (primary) => {
      primary.script('openai', [{ kind: 'scenario', id: 'openai/insufficient-quota', times: 1_000_000 }]);
      return () => undefined;
    },
    capacity: () => undefined,
  },
  {
    id: 'invalid-key-burst',
    title: 'invalid key on the primary (every request 401), every caller starting at once',
    seconds: 3,
    stream: false,
    burst: true,
    faultlineOnly: true,
    start: (primary) => {
      primary.script('openai', [{ kind: 'scenario', id: 'openai/invalid-api-key', times: 1_000_000 }]);
      return () => undefined;
    },
    capacity: () => undefined,
  },
  {
    id: 'healthy-burst',
    title: `a healthy primary answering each request after ${HEALTHY_LATENCY_MS} ms (a model's time to answer), every caller starting at once: what holding the first wave costs a healthy key's cold start`,
    seconds: 2,
    stream: false,
    burst: true,
    faultlineOnly: true,
    start: (primary) => {
      primary.script('openai', [fault.ok({ latencyMs: HEALTHY_LATENCY_MS, times: 1_000_000 })]);
      return () => undefined;
    },
    capacity: ({ calls }) => calls,
  },
];

/** Where one policy's calls go in one scenario. */
interface Servers {
  readonly primary: MockProvider;
  /** The same primary model, for prompts too long for its window (this route always overflows). */
  readonly primaryLong: MockProvider;
  readonly backup: MockProvider;
}

/**
 * One call: what the consumer is shown goes to `shown` as it arrives (a stream's deltas; a whole
 * answer at once), so that text shown by a failed attempt before a restart counts; or a throw. A
 * consumer told that a candidate failed after delivering output calls `discard` with the characters
 * it had delivered: a UI drops those from the start of what it shows (the next answer follows them).
 */
type Call = (long: boolean, shown: string[], discard: (characters: number) => void) => Promise<void>;

interface Policy {
  readonly name: string;
  /** The only scenarios this policy plays (default: every scenario but faultline's own). */
  readonly scenarios?: readonly string[];
  /** One of faultline's policies: it also plays the scenarios that measure faultline's options. */
  readonly faultline?: boolean;
  /** Builds the policy's shared state (a fallback model, a registry) once per scenario. */
  make(servers: Servers, stream: boolean): Call;
}

const aiSdkModels = (servers: Servers, long: boolean) => ({
  primary: createOpenAI({
    apiKey: KEY,
    baseURL: (long ? servers.primaryLong : servers.primary).url('openai'),
  }).chat(PRIMARY_MODEL),
  backup: createAnthropic({ apiKey: KEY, baseURL: `${servers.backup.url('anthropic')}/v1` })(BACKUP_MODEL),
});

type AiSdkModel = ReturnType<typeof aiSdkModels>['primary'];

/** Runs a prompt through the AI SDK, as an app would: generateText, or streamText drained. */
async function aiSdkCall(
  model: AiSdkModel,
  stream: boolean,
  maxRetries: number | undefined,
  shown: string[],
  long: boolean,
): Promise<void> {
  const retries = maxRetries === undefined ? {} : { maxRetries };
  const prompt = promptOf(long);
  if (!stream) {
    shown.push((await generateText({ model, prompt, ...retries })).text);
    return;
  }
  let failure: unknown;
  const result = streamText({
    model,
    prompt,
    ...retries,
    onError: ({ error }) => {
      failure = error;
    },
  });
  for await (const delta of result.textStream) shown.push(delta);
  if (failure !== undefined) throw failure;
}

/** Both the short-prompt and the long-prompt model of a policy, built once. */
function perLength<M>(make: (long: boolean) => M): (long: boolean) => M {
  const short = make(false);
  const long = make(true);
  return (isLong) => (isLong ? long : short);
}

/** The scenarios where every caller starts at once. */
const BURSTS = ['quota-burst', 'invalid-key-burst', 'healthy-burst'];

/** What a faultline policy sets beyond the defaults, and where it plays. */
interface FaultlineVariant {
  /** The registry's `firstCallWaitMs` (off by default). */
  readonly firstCallWaitMs?: number;
  /**
   * `fallbackAfterOutput: true`, with a consumer that does what the docs say a UI does: when
   * `onOutcome` says a candidate failed after delivering output, it discards that output.
   */
  readonly afterOutput?: boolean;
  readonly scenarios?: readonly string[];
}

/** A UI's `onOutcome`: a failed candidate's delivered output is discarded from what is shown. */
const discardCut =
  (discard: (characters: number) => void) =>
  (outcome: CandidateOutcome): void => {
    if (outcome.status === 'failed' && outcome.delivered !== undefined && outcome.delivered.characters > 0)
      discard(outcome.delivered.characters);
  };

function faultlineAiSdk(name: string, variant: FaultlineVariant): Policy {
  return {
    name,
    faultline: true,
    ...(variant.scenarios === undefined ? {} : { scenarios: variant.scenarios }),
    make: (servers, stream) => {
      const registry = new HealthRegistry(
        variant.firstCallWaitMs === undefined ? {} : { firstCallWaitMs: variant.firstCallWaitMs },
      );
      const models = perLength((long) => aiSdkModels(servers, long));
      // The README's shape: one model shared by every caller. A UI that discards per call needs its
      // own `onOutcome` per call: a model per call, all on one registry (their health is shared).
      const shared = perLength((long) =>
        faultlineFallback({ models: [models(long).primary, models(long).backup], registry }),
      );
      return (long, shown, discard) => {
        const model = variant.afterOutput
          ? faultlineFallback({
              models: [models(long).primary, models(long).backup],
              registry,
              fallbackAfterOutput: true,
              onOutcome: discardCut(discard),
            })
          : shared(long);
        return aiSdkCall(model as unknown as AiSdkModel, stream, 0, shown, long);
      };
    },
  };
}

function faultlineVendor(name: string, variant: FaultlineVariant): Policy {
  return {
    name,
    faultline: true,
    ...(variant.scenarios === undefined ? {} : { scenarios: variant.scenarios }),
    make: (servers, stream) => {
      const registry = new HealthRegistry(
        variant.firstCallWaitMs === undefined ? {} : { firstCallWaitMs: variant.firstCallWaitMs },
      );
      const clients = perLength((long) => ({
        openai: new OpenAI({
          apiKey: KEY,
          maxRetries: 0,
          baseURL: (long ? servers.primaryLong : servers.primary).url('openai'),
        }),
        anthropic: new Anthropic({ apiKey: KEY, maxRetries: 0, baseURL: servers.backup.url('anthropic') }),
      }));
      const messagesOf = (long: boolean) => [{ role: 'user' as const, content: promptOf(long) }];
      if (!stream)
        return async (long, shown) => {
          const { openai, anthropic } = clients(long);
          const messages = messagesOf(long);
          const candidates: Candidate<{ text: string; budgetOf?: unknown }>[] = [
            {
              provider: 'openai',
              model: PRIMARY_MODEL,
              withClassifiedErrors: withOpenAI,
              call: async ({ signal }) => {
                const answer = await openai.chat.completions
                  .create({ model: PRIMARY_MODEL, messages }, { signal })
                  .withResponse();
                return { text: answer.data.choices[0]?.message.content ?? '', budgetOf: answer };
              },
              readRateLimit: (result) => readRateLimit(result.budgetOf as never),
            },
            {
              provider: 'anthropic',
              model: BACKUP_MODEL,
              withClassifiedErrors: withAnthropic,
              call: async ({ signal }) => {
                const message = await anthropic.messages.create(
                  { model: BACKUP_MODEL, max_tokens: 256, messages },
                  { signal },
                );
                return {
                  text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
                };
              },
            },
          ];
          shown.push(
            (await runWithFallback(candidates, { registry, inputTokens: minimumTokenCount(promptOf(long)) }))
              .text,
          );
        };
      return async (long, shown, discard) => {
        const { openai, anthropic } = clients(long);
        const messages = messagesOf(long);
        const candidates: Candidate<AsyncIterable<string>>[] = [
          {
            provider: 'openai',
            model: PRIMARY_MODEL,
            withClassifiedErrors: withOpenAI,
            call: async ({ signal }) => {
              const guarded = guardOpenAIStream(
                await openai.chat.completions.create(
                  { model: PRIMARY_MODEL, messages, stream: true },
                  { signal },
                ),
                { signal },
              );
              return (async function* () {
                for await (const chunk of guarded) yield chunk.choices[0]?.delta?.content ?? '';
              })();
            },
          },
          {
            provider: 'anthropic',
            model: BACKUP_MODEL,
            withClassifiedErrors: withAnthropic,
            call: async ({ signal }) => {
              const guarded = guardAnthropicStream(
                await anthropic.messages.create(
                  { model: BACKUP_MODEL, max_tokens: 256, messages, stream: true },
                  { signal },
                ),
                { signal },
              );
              return (async function* () {
                for await (const event of guarded)
                  if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
                    yield event.delta.text;
              })();
            },
          },
        ];
        for await (const delta of streamWithFallback(candidates, {
          registry,
          inputTokens: minimumTokenCount(promptOf(long)),
          ...(variant.afterOutput ? { fallbackAfterOutput: true, onOutcome: discardCut(discard) } : {}),
        }))
          shown.push(delta);
      };
    },
  };
}

const POLICIES: readonly Policy[] = [
  {
    name: 'AI SDK retry (maxRetries 2), then the backup on any error',
    make: (servers, stream) => {
      const models = perLength((long) => aiSdkModels(servers, long));
      return async (long, shown) => {
        try {
          await aiSdkCall(models(long).primary, stream, 2, shown, long);
        } catch {
          await aiSdkCall(models(long).backup, stream, 2, shown, long);
        }
      };
    },
  },
  {
    name: 'ai-fallback 2.0.1 (defaults; AI SDK maxRetries 2)',
    make: (servers, stream) => {
      const model = perLength((long) => {
        const { primary, backup } = aiSdkModels(servers, long);
        return createFallback({ models: [primary, backup] });
      });
      return (long, shown) => aiSdkCall(model(long) as unknown as AiSdkModel, stream, undefined, shown, long);
    },
  },
  {
    name: "ai-retry 1.11.1 (README's retry on retryable errors, then the backup; AI SDK maxRetries 2)",
    make: (servers, stream) => {
      const model = perLength((long) => {
        const { primary, backup } = aiSdkModels(servers, long);
        return createRetryableModel({
          model: primary,
          retries: [retryError.isRetryable(true).retry({ delay: 1_000, backoffFactor: 2 }), backup],
        });
      });
      return (long, shown) => aiSdkCall(model(long) as unknown as AiSdkModel, stream, undefined, shown, long);
    },
  },
  faultlineAiSdk('faultline faultlineFallback (@faultline/ai-sdk, defaults; AI SDK maxRetries 0)', {}),
  faultlineVendor('faultline runWithFallback (vendor SDKs, readRateLimit, inputTokens, defaults)', {}),
  faultlineAiSdk('faultline faultlineFallback, firstCallWaitMs 2000 (a registry option)', {
    firstCallWaitMs: 2000,
    scenarios: BURSTS,
  }),
  faultlineVendor('faultline runWithFallback, firstCallWaitMs 2000 (a registry option)', {
    firstCallWaitMs: 2000,
    scenarios: BURSTS,
  }),
  faultlineAiSdk(
    'faultline faultlineFallback, fallbackAfterOutput; the UI discards what onOutcome says a failed candidate delivered (a model per call, one registry)',
    { afterOutput: true, scenarios: ['cut-streams'] },
  ),
  faultlineVendor(
    'faultline streamWithFallback, fallbackAfterOutput; the UI discards what onOutcome says a failed candidate delivered',
    { afterOutput: true, scenarios: ['cut-streams'] },
  ),
];

/** One policy's figures in one scenario. */
export interface MixedFailureRow {
  readonly scenario: string;
  readonly policy: string;
  readonly calls: number;
  /** Calls that threw, though the backup could always have answered. */
  readonly failed: number;
  /** Calls that returned an answer that is neither candidate's whole answer (spliced or cut short). */
  readonly wrong: number;
  /**
   * Calls whose consumer was shown a cut answer and then told to discard it (`onOutcome`): not
   * wrong (what it kept is a whole answer), but a person may have seen the cut text before it went.
   */
  readonly discarded: number;
  /** Requests answered with a failure, or a stream cut after output (counted at the servers). */
  readonly inVain: number;
  readonly primaryServed: number;
  /** What the primary could have served in this scenario (undefined: nothing, it never answers). */
  readonly primaryCapacity: number | undefined;
  readonly backupServed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Where every caller starts at once: the latencies of each caller's first call (the first wave). */
  readonly firstWave?: { readonly p50Ms: number; readonly p99Ms: number };
}

export interface MixedFailuresResult {
  readonly callers: number;
  readonly thinkMs: number;
  readonly versions: Readonly<Record<string, string>>;
  readonly scenarios: ReadonlyArray<{
    readonly id: string;
    readonly title: string;
    readonly seconds: number;
  }>;
  readonly rows: readonly MixedFailureRow[];
}

async function drive(scenario: ScenarioSpec, policy: Policy): Promise<MixedFailureRow> {
  const [primary, primaryLong, backup] = await Promise.all([
    startMockProvider({ providers: ['openai'], reply: PRIMARY_REPLY }),
    startMockProvider({ providers: ['openai'], reply: PRIMARY_REPLY, scripts: { openai: overflowForever } }),
    startMockProvider({ providers: ['anthropic'], reply: BACKUP_REPLY }),
  ]);
  const servers: Servers = { primary, primaryLong, backup };
  try {
    const call = policy.make(servers, scenario.stream);
    const stop = scenario.start(primary);
    const startedAt = Date.now();
    const start = performance.now();
    const latencies: number[] = [];
    const firstWave: number[] = [];
    let calls = 0;
    // Calls begun while the primary could answer them (the outage's healthy phases).
    let healthyCalls = 0;
    let failed = 0;
    let wrong = 0;
    let discarded = 0;
    let drawn = 0;
    // The callers whose first call has ended.
    const wavesSeen = new Set<number>();
    const caller = async (index: number) => {
      if (scenario.burst !== true)
        await new Promise((resolve) => setTimeout(resolve, (index / CALLERS) * THINK_MS));
      while (performance.now() - start < scenario.seconds * 1000) {
        // Three calls in ten (of all callers' calls, in turn) are long prompts.
        const long = scenario.longShare !== undefined && drawn++ % 10 < scenario.longShare * 10;
        const began = performance.now();
        const shown: string[] = [];
        let cut = 0;
        try {
          await call(long, shown, (characters) => {
            cut += characters;
          });
          // What the consumer keeps: what it was shown, less what it was told to discard.
          const text = shown.join('').slice(cut);
          if (text !== PRIMARY_REPLY && text !== BACKUP_REPLY) wrong++;
          else if (cut > 0) discarded++;
        } catch {
          failed++;
        }
        calls++;
        const ended = performance.now();
        // The primary could have answered a call begun while it was up, or still running once it was back.
        if (
          scenario.healthyAt === undefined ||
          scenario.healthyAt(began - start) ||
          scenario.healthyAt(ended - start)
        )
          healthyCalls++;
        latencies.push(ended - began);
        if (!wavesSeen.has(index)) {
          wavesSeen.add(index);
          firstWave.push(ended - began);
        }
        await new Promise((resolve) => setTimeout(resolve, THINK_MS));
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index)));
    stop();
    const primaryRequests = [...primary.requests('openai'), ...primaryLong.requests('openai')];
    const backupRequests = backup.requests('anthropic');
    const inVain = [...primaryRequests, ...backupRequests].filter(
      (request) => request.answer.kind !== 'ok',
    ).length;
    // The rate limit's capacity is its windows': answers after the run's last window fall outside it.
    const primaryServed = primaryRequests.filter(
      (request) =>
        request.answer.kind === 'ok' &&
        (scenario.id !== 'rate-limit' || request.time < startedAt + scenario.seconds * 1000),
    ).length;
    latencies.sort((a, b) => a - b);
    return {
      scenario: scenario.id,
      policy: policy.name,
      calls,
      failed,
      wrong,
      discarded,
      inVain,
      primaryServed,
      primaryCapacity: scenario.capacity({ calls, healthyCalls }),
      backupServed: backupRequests.filter((request) => request.answer.kind === 'ok').length,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      ...(scenario.burst === true
        ? {
            firstWave: (() => {
              firstWave.sort((a, b) => a - b);
              return { p50Ms: quantile(firstWave, 0.5), p99Ms: quantile(firstWave, 0.99) };
            })(),
          }
        : {}),
    };
  } finally {
    await Promise.all([primary.close(), primaryLong.close(), backup.close()]);
  }
}

/** Every scenario, each policy in turn (fresh servers and fresh policy state each time). */
export async function benchMixedFailures(only?: ReadonlySet<string>): Promise<MixedFailuresResult> {
  const rows: MixedFailureRow[] = [];
  const scenarios = SCENARIOS.filter(
    (scenario) => only === undefined || only.size === 0 || only.has(scenario.id),
  );
  for (const scenario of scenarios)
    for (const policy of POLICIES) {
      const plays =
        policy.scenarios !== undefined
          ? policy.scenarios.includes(scenario.id)
          : scenario.faultlineOnly !== true || policy.faultline === true;
      if (!plays) continue;
      const row = await drive(scenario, policy);
      rows.push(row);
      console.error(
        `${scenario.id} | ${policy.name}: ${row.calls} calls, ${row.failed} failed, ${row.wrong} wrong (${row.discarded} discarded), ${row.inVain} in vain, primary ${row.primaryServed}/${row.primaryCapacity ?? '-'}, p50 ${row.p50Ms.toFixed(0)} p99 ${row.p99Ms.toFixed(0)} ms${row.firstWave === undefined ? '' : ` (first wave p50 ${row.firstWave.p50Ms.toFixed(0)} p99 ${row.firstWave.p99Ms.toFixed(0)} ms)`}`,
      );
    }
  return {
    callers: CALLERS,
    thinkMs: THINK_MS,
    versions: VERSIONS,
    scenarios: scenarios.map(({ id, title, seconds }) => ({ id, title, seconds })),
    rows,
  };
}

/** The section's markdown: how it is measured, then one row per scenario and library. */
export function mixedFailuresTable(result: MixedFailuresResult): string[] {
  const versions = Object.entries(result.versions)
    .map(([name, version]) => `\`${name}\` ${version}`)
    .join(', ');
  const lines = [
    '',
    `### Mixed failures: ${result.callers} concurrent callers, a primary answering like OpenAI, a backup answering like Anthropic`,
    '',
    `Each scenario gives the primary (\`${PRIMARY_MODEL}\`, a 16k window) one failure and keeps the backup (\`${BACKUP_MODEL}\`, a 200k window) healthy, both on @faultline/llm-mock (loopback); each library gets fresh servers and fresh state for each scenario. Each caller calls, waits ${result.thinkMs} ms and calls again; the AI SDK libraries run \`generateText\` (\`streamText\`, drained, for the cut streams), faultline's vendor-SDK chain calls the openai and Anthropic SDKs. Each library is set up as its README shows (one model shared by every caller) with the AI SDK's default retries, except faultline, which asks for \`maxRetries: 0\`. Clients: ${versions}.`,
    '',
    "Failed: calls that threw, though the backup could always answer. Wrong: calls that returned, having shown the consumer text that is neither candidate's whole answer (a cut answer followed by a restart, spliced, or cut short without an error); a consumer told by `onOutcome` to discard a failed candidate's output keeps what is left, and a call where it did so is counted beside (shown cut, then discarded), not as wrong. In vain: requests answered with a failure, or streams cut after output, counted at the servers, per call. Primary's capacity used: what the primary served against what it could have served (its limit over the run; every call begun or ended while it was up; every short prompt; every call where a second request gets a whole answer).",
    '',
    "| scenario | library | calls | failed | wrong | in vain (per call) | primary's capacity used | p50 | p99 |",
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const scenario of result.scenarios)
    for (const row of result.rows.filter((entry) => entry.scenario === scenario.id))
      lines.push(
        `| ${scenario.id} | ${row.policy} | ${row.calls.toLocaleString('en')} | ${percentOf(row.failed, row.calls)} | ${row.wrong}${row.discarded > 0 ? ` (${row.discarded} shown cut, then discarded)` : ''} | ${row.inVain.toLocaleString('en')} (${(row.inVain / Math.max(1, row.calls)).toFixed(2)}) | ${row.primaryCapacity === undefined ? '—' : `${percentOf(row.primaryServed, row.primaryCapacity)} (${row.primaryServed} of ${row.primaryCapacity})`} | ${row.p50Ms.toFixed(0)} ms${row.firstWave === undefined ? '' : ` (first wave ${row.firstWave.p50Ms.toFixed(0)} ms)`} | ${row.p99Ms.toFixed(0)} ms${row.firstWave === undefined ? '' : ` (first wave ${row.firstWave.p99Ms.toFixed(0)} ms)`} |`,
      );
  lines.push('', 'The scenarios:', '');
  for (const scenario of result.scenarios)
    lines.push(`- \`${scenario.id}\` (${scenario.seconds} s): ${scenario.title}.`);
  return lines;
}

const percentOf = (part: number, whole: number) =>
  whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '—';

// Run alone (`tsx src/mixed-failures.ts [scenario …]`): the table on stdout, nothing written.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(mixedFailuresTable(await benchMixedFailures(new Set(process.argv.slice(2)))).join('\n'));
}
