import type { Bench } from 'tinybench';

export interface Measured {
  readonly name: string;
  /** Median latency, in nanoseconds. */
  readonly medianNs: number;
  /** Relative margin of error of the mean, in percent. */
  readonly rme: number;
  /** Interquartile range of the latency, in nanoseconds. */
  readonly iqrNs: number;
  readonly samples: number;
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

/** Medians and spread of every task of a finished tinybench run (tinybench reports milliseconds). */
export function measured(bench: Bench): Measured[] {
  return bench.tasks.map((task) => {
    const latency = task.result?.latency;
    const samples = [...(latency?.samples ?? [])].sort((a, b) => a - b);
    return {
      name: task.name,
      medianNs: quantile(samples, 0.5) * 1e6,
      rme: latency?.rme ?? Number.NaN,
      iqrNs: (quantile(samples, 0.75) - quantile(samples, 0.25)) * 1e6,
      samples: samples.length,
    };
  });
}

export function median(values: number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function formatNs(nanoseconds: number): string {
  if (!Number.isFinite(nanoseconds)) return 'n/a';
  if (nanoseconds >= 1e6) return `${(nanoseconds / 1e6).toFixed(2)} ms`;
  if (nanoseconds >= 1e3) return `${(nanoseconds / 1e3).toFixed(2)} µs`;
  return `${nanoseconds.toFixed(0)} ns`;
}

/** The CPU time this process has used, in nanoseconds (every thread: the main one, GC helpers, libuv's pool). */
function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** One task's CPU-time samples (ns) as its median and IQR (sorts `samples` in place). */
function measuredOf(name: string, samples: number[]): Measured {
  samples.sort((a, b) => a - b);
  return {
    name,
    medianNs: quantile(samples, 0.5),
    rme: Number.NaN,
    iqrNs: quantile(samples, 0.75) - quantile(samples, 0.25),
    samples: samples.length,
  };
}

/**
 * Runs the tasks in `rounds` rounds, rotating their order each round so that none always runs on a
 * warmer machine; in each round every task runs for `timeMs` of this process's CPU time after a
 * warm-up, one sample per run (a task's third element, when given, is its own time in place of
 * `timeMs`). Returns every round's measurements, in the tasks' own order.
 *
 * CPU time rather than wall time: on a shared machine, wall time counts the moments another process
 * held the core, and for a stream from a server in a child process it counts that server's work and
 * the waits between the two; this process's CPU time is the work its code (the SDK's, the guard's)
 * really did.
 */
export async function cpuRounds(
  tasks: ReadonlyArray<
    readonly [string, () => Promise<unknown>] | readonly [string, () => Promise<unknown>, number]
  >,
  rounds: number,
  timeMs = 200,
): Promise<Measured[][]> {
  const results: Measured[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    const byName = new Map<string, Measured>();
    for (let index = 0; index < tasks.length; index += 1) {
      const [name, task, ownMs] = tasks[(index + round) % tasks.length]!;
      const budgetNs = (ownMs ?? timeMs) * 1e6;
      const warmUntil = cpuNs() + Math.min(budgetNs / 4, 100e6);
      while (cpuNs() < warmUntil) await task();
      const samples: number[] = [];
      const start = cpuNs();
      let now = start;
      while (now - start < budgetNs || samples.length < 5) {
        const before = now;
        await task();
        now = cpuNs();
        samples.push(now - before);
      }
      byName.set(name, measuredOf(name, samples));
    }
    results.push(tasks.map(([name]) => byName.get(name)!));
  }
  return results;
}

/**
 * `cpuRounds` for tasks that wait more than they work (a paced stream: about a millisecond of wait
 * a chunk, microseconds of CPU): each task runs a fixed `samples` times a round, after one warm-up
 * run, since a budget of CPU time would take minutes of waiting. Within a round the tasks take turns
 * sample by sample (the order rotated each turn), so that a burst of load touches each alike.
 */
export async function countedCpuRounds(
  tasks: ReadonlyArray<readonly [string, () => Promise<unknown>]>,
  rounds: number,
  samples: number,
): Promise<Measured[][]> {
  for (const [, task] of tasks) await task();
  const results: Measured[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    const taken = tasks.map(() => [] as number[]);
    for (let sample = 0; sample < samples; sample += 1) {
      for (let turn = 0; turn < tasks.length; turn += 1) {
        const index = (turn + sample + round) % tasks.length;
        const before = cpuNs();
        await tasks[index]![1]();
        taken[index]!.push(cpuNs() - before);
      }
    }
    results.push(tasks.map(([name], index) => measuredOf(name, taken[index]!)));
  }
  return results;
}
