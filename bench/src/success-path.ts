import { withClassifiedErrors } from '@faultline/extract-openai';
import { type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import OpenAI from 'openai';
import { Bench } from 'tinybench';
import { cpuRounds, type Measured, measured, median } from './statistics.ts';

/** Calls in one timed sample of the bare pair. */
const BARE_BATCH = 2000;
const BARE_ROUNDS = 9;

export interface SuccessPathResult {
  /** Per call, CPU time; `ownCostNs` is the median over the rounds of wrapped − direct. */
  readonly bare: { direct: Measured; wrapped: Measured; ratio: number; ownCostNs: number };
  readonly sdk: { direct: Measured; wrapped: Measured; ratio: number };
}

// A healthy chat completion, as OpenAI documents it (platform.openai.com/docs/api-reference/chat/object).
export const healthy: Scenario = {
  id: 'bench/healthy-chat',
  provider: 'openai',
  description: 'a healthy chat completion',
  source: 'https://platform.openai.com/docs/api-reference/chat/object',
  response: {
    kind: 'http',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      created: 1_763_683_200,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    }),
  },
  expected: {
    category: 'unknown',
    reason: 'unknown',
    retryable: false,
    userAction: 'unknown',
    httpStatus: 500,
  },
} as Scenario;

/**
 * The success path: `withClassifiedErrors(fn)` against `fn` alone, in the same run. Pairs are
 * measured in alternating rounds and the ratio is the median of the per-round ratios, so that
 * drift on a busy machine hits both sides alike.
 */
export async function benchSuccessPath(rounds = 5): Promise<SuccessPathResult> {
  const server = await startLoopbackServer();
  try {
    const client = new OpenAI({ apiKey: 'sk-bench', baseURL: server.baseUrlFor(healthy), maxRetries: 0 });
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hello' }] };
    const bareFunction = async () => 42;
    const sdkCall = () => client.chat.completions.create(request);

    const run = async (
      name: string,
      direct: () => Promise<unknown>,
      wrapped: () => Promise<unknown>,
      time: number,
    ) => {
      const ratios: number[] = [];
      let last: Measured[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const bench = new Bench({ time, warmupTime: Math.min(200, time / 2) });
        // Alternate the order each round so neither side always runs on a warmer machine.
        if (round % 2 === 0)
          bench.add(`${name}: direct`, direct).add(`${name}: withClassifiedErrors`, wrapped);
        else bench.add(`${name}: withClassifiedErrors`, wrapped).add(`${name}: direct`, direct);
        await bench.run();
        last = measured(bench).sort((a) => (a.name.endsWith('direct') ? -1 : 1));
        ratios.push(last[1]!.medianNs / last[0]!.medianNs);
      }
      return { direct: last[0]!, wrapped: last[1]!, ratio: median(ratios) };
    };

    // The bare pair in CPU time (what a busy machine's other processes do not add), in batches of
    // calls so that a sample is far above the clock's microsecond resolution; interleaved rounds,
    // the wrapper's own cost taken within each round.
    const batchOf = (call: () => Promise<unknown>) => async () => {
      for (let index = 0; index < BARE_BATCH; index += 1) await call();
    };
    const bareRounds = await cpuRounds(
      [
        ['bare: direct', batchOf(bareFunction)],
        ['bare: withClassifiedErrors', batchOf(() => withClassifiedErrors(bareFunction))],
      ],
      BARE_ROUNDS,
      150,
    );
    const perCall = (batch: Measured): Measured => ({
      ...batch,
      medianNs: batch.medianNs / BARE_BATCH,
      iqrNs: batch.iqrNs / BARE_BATCH,
    });
    const lastBare = bareRounds.at(-1)!;
    const bare = {
      direct: perCall(lastBare[0]!),
      wrapped: perCall(lastBare[1]!),
      ratio: median(bareRounds.map(([direct, wrapped]) => wrapped!.medianNs / direct!.medianNs)),
      ownCostNs: median(
        bareRounds.map(([direct, wrapped]) => (wrapped!.medianNs - direct!.medianNs) / BARE_BATCH),
      ),
    };
    const sdk = await run('openai chat call (loopback)', sdkCall, () => withClassifiedErrors(sdkCall), 1000);
    return { bare, sdk };
  } finally {
    await server.close();
  }
}
