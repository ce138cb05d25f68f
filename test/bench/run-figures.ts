/** Figures over the rounds of one series, shared by the report's tables and its targets. */
import type { RunResult } from './load.js';
import type { Series, WorkloadComparison } from './sections.js';
import { spread, type Spread } from './stats.js';

/** The runs of one contender's series. */
export const runsOf = (series: readonly Series[], contender: string) => series.find((s) => s.contender === contender)!.runs;
/** Requests per server CPU-second of each run, in order (for pairedRatio); perCpu is their spread. */
export const perCpuEach = (runs: readonly RunResult[]) => runs.map((r) => r.requestsPerCpuSecond);

export const rps = (runs: readonly RunResult[]) => spread(runs.map((r) => r.requestsPerSecond));
export const perCpu = (runs: readonly RunResult[]) => spread(runs.map((r) => r.requestsPerCpuSecond));
export const p50 = (runs: readonly RunResult[]) => spread(runs.map((r) => r.p50Ms));
export const p99 = (runs: readonly RunResult[]) => spread(runs.map((r) => r.p99Ms));
/** Non-2xx responses and connection errors over all rounds. */
export const failures = (runs: readonly RunResult[]) => runs.reduce((n, r) => n + r.non2xx + r.errors, 0);

/** Round-by-round ratios of two interleaved series (round i of a against round i of b). */
export function pairedRatio(a: readonly number[], b: readonly number[]): Spread {
  return spread(a.map((value, i) => value / b[i]!));
}

export function find(comparison: WorkloadComparison, contender: string): Series {
  return comparison.series.find((s) => s.contender === contender)!;
}
