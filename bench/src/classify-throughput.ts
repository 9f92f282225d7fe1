import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { loadCorpus } from '@faultline/corpus';
import { driveAll, type ScenarioServers } from '@faultline/scenario-driver';
import { cpuRounds, type Measured, median, quantile } from './statistics.ts';

/** The issue 17 goal: eager `classify` on real 300–500-character messages, on one core. */
export const CLASSIFY_GOAL_PER_SECOND = 500_000;

export interface ClassifyThroughput {
  /** The corpus cases whose extracted message is 300–500 characters long. */
  readonly messages: number;
  readonly meanMessageLength: number;
  /** One `classify` call: the median over rounds of a round's CPU time per call (IQR over rounds). */
  readonly classify: Measured;
  /**
   * For scale, in the same rounds: one lower-cased copy of each message and one pass over its
   * characters, the least any classifier reading the text does (per message).
   */
  readonly onePass: Measured;
  readonly perSecond: number;
  /** Against the goal: ≥ 1 means met. */
  readonly ratioToGoal: number;
  readonly met: boolean;
}

/**
 * The metadata `classify` is measured on: every corpus case (corpus/cases/*.json, each a recorded
 * provider answer) played through its real SDK and extractor against the loopback server, kept
 * when its message is 300–500 characters long.
 */
export async function classifyThroughputSample(servers: ScenarioServers): Promise<ProviderErrorMetadata[]> {
  // Only HTTP answers carry a provider's message this long; the others would only add waits.
  const cases = loadCorpus().filter(
    (entry) => entry.scenario.response.kind === 'http' && entry.scenario.response.body.length >= 300,
  );
  const outcomes = await driveAll(
    cases.map((entry) => entry.scenario),
    servers,
    { concurrency: 4 },
  );
  const metadata: ProviderErrorMetadata[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind !== 'error') continue;
    const length = outcome.error.metadata.message.length;
    if (length >= 300 && length <= 500) metadata.push(outcome.error.metadata);
  }
  if (metadata.length < 5)
    throw new Error(`bench: only ${metadata.length} corpus messages of 300–500 characters`);
  return metadata;
}

/** How many passes over the sample one timed batch makes (about 1,000 calls a batch). */
const PASSES = 50;
const ROUNDS = 9;
const ROUND_MS = 300;

/**
 * `classify` alone on real provider messages (`classifyThroughputSample`), as a batch rate: each
 * timed batch classifies every message in turn, PASSES times, and its CPU time over its calls is
 * the time of one call (a per-call timer would cost as much as the call). Each of ROUNDS rounds
 * runs batches for ROUND_MS of CPU time after a warm-up and keeps their median; the result is the
 * median over rounds, with the rounds' IQR. The one-pass reference runs in the same rounds,
 * alternating with classify. The case bodies are long JSON answers: nothing here is synthetic.
 */
export async function benchClassifyThroughput(servers: ScenarioServers): Promise<ClassifyThroughput> {
  const metadata = await classifyThroughputSample(servers);
  const calls = PASSES * metadata.length;
  let sink = 0;
  const perRound = await cpuRounds(
    [
      [
        'classify',
        async () => {
          let retryable = 0;
          for (let pass = 0; pass < PASSES; pass += 1) {
            for (const entry of metadata) retryable += classify(entry).retryable ? 1 : 0;
          }
          sink += retryable;
        },
      ],
      [
        'one pass',
        async () => {
          let sum = 0;
          for (let pass = 0; pass < PASSES; pass += 1) {
            for (const entry of metadata) {
              const text = entry.message.toLowerCase();
              for (let at = 0; at < text.length; at += 1) sum += text.charCodeAt(at);
            }
          }
          sink += sum;
        },
      ],
    ],
    ROUNDS,
    ROUND_MS,
  );
  if (sink === -1) console.log(sink); // Keeps the work observable.
  const perCall = (index: number, name: string): Measured => {
    const values = perRound.map((round) => round[index]!.medianNs / calls).sort((a, b) => a - b);
    return {
      name,
      medianNs: median(values),
      rme: Number.NaN,
      iqrNs: quantile(values, 0.75) - quantile(values, 0.25),
      samples: values.length,
    };
  };
  const row = perCall(0, 'classify');
  const perSecond = 1e9 / row.medianNs;
  return {
    messages: metadata.length,
    meanMessageLength: Math.round(
      metadata.reduce((sum, entry) => sum + entry.message.length, 0) / metadata.length,
    ),
    classify: row,
    onePass: perCall(1, 'one pass'),
    perSecond,
    ratioToGoal: perSecond / CLASSIFY_GOAL_PER_SECOND,
    met: perSecond >= CLASSIFY_GOAL_PER_SECOND,
  };
}
