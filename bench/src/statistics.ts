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
