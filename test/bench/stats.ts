/** Median, minimum and maximum of a few measurements (rounds of one benchmark). */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** The q-quantile (0…1) of unsorted samples, nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Median, 99th percentile and slowest of some timings. */
export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** p50, p99 and max of unsorted timings in ms, nearest rank; NaN for none. */
export function latencyOf(samples: readonly number[]): Latency {
  return { p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99), maxMs: quantile(samples, 1) };
}
