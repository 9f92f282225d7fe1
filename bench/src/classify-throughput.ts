import { classify, type ProviderErrorMetadata } from '@faultline/classify';
import { loadCorpus } from '@faultline/corpus';
import { driveAll, type ScenarioServers } from '@faultline/scenario-driver';
import { Bench } from 'tinybench';
import { type Measured, measured } from './statistics.ts';

/** The issue 17 goal: eager `classify` on real 300–500-character messages, on one core. */
export const CLASSIFY_GOAL_PER_SECOND = 500_000;

export interface ClassifyThroughput {
  /** The corpus cases whose extracted message is 300–500 characters long. */
  readonly messages: number;
  readonly meanMessageLength: number;
  /** One `classify` call, cycling through those cases' metadata. */
  readonly classify: Measured;
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

/**
 * `classify` alone on real provider messages (`classifyThroughputSample`), classified in turn.
 * The case bodies are long JSON answers: nothing here is synthetic.
 */
export async function benchClassifyThroughput(servers: ScenarioServers): Promise<ClassifyThroughput> {
  const metadata = await classifyThroughputSample(servers);
  let next = 0;
  const bench = new Bench({ time: 1000, warmupTime: 200 });
  bench.add('classify', () => {
    classify(metadata[next]!);
    next = next + 1 === metadata.length ? 0 : next + 1;
  });
  await bench.run();
  const [row] = measured(bench);
  const perSecond = 1e9 / row!.medianNs;
  return {
    messages: metadata.length,
    meanMessageLength: Math.round(
      metadata.reduce((sum, entry) => sum + entry.message.length, 0) / metadata.length,
    ),
    classify: row!,
    perSecond,
    ratioToGoal: perSecond / CLASSIFY_GOAL_PER_SECOND,
    met: perSecond >= CLASSIFY_GOAL_PER_SECOND,
  };
}
