/**
 * The benchmark issue's five targets, and the access issue's one (6). Each threshold is written once, here: the checks and
 * the PASS / FAIL / SKIP lines both read it.
 */
import { decimal, megabytes, ratio } from './format.js';
import { failures, find, p99, pairedRatio } from './run-figures.js';
import type { AccessResult } from './access-section.js';
import { jwtVersusStatic } from './report-access.js';
import { CONTENDERS, type MongoResult, type ScalingResult, type Settings, type WorkloadComparison } from './sections.js';

export interface TargetLine {
  readonly verdict: 'PASS' | 'FAIL' | 'SKIP';
  readonly text: string;
}

const MIN_VS_CEILING = 0.8;
const MIN_VS_PEER = { W1: 5, W2: 25 } as const;
const MAX_P99_VS_CEILING = 2;
const MIN_LARGEST_VS_SMALLEST = 0.9;
const MAX_RSS_BYTES = 250e6;
const MIN_VS_RAW_DRIVER = 0.7;
const MIN_JWT_VS_STATIC = 0.8;

const titles = {
  1: `This server ≥ ${MIN_VS_CEILING.toFixed(2)}× the node:http ceiling in requests per server CPU-second on W1, W2, W3`,
  2: `This server ≥ ${MIN_VS_PEER.W1}× json-server on W1 and ≥ ${MIN_VS_PEER.W2}× on W2 (per server CPU-second)`,
  3: `W1 p99 latency of this server ≤ ${MAX_P99_VS_CEILING}× the ceiling's`,
  4: `W1 at 1,000,000 plants ≥ ${MIN_LARGEST_VS_SMALLEST}× W1 at 1,000 per CPU-second; RSS at 1,000,000 plants ≤ ${megabytes(MAX_RSS_BYTES)}`,
  5: `MongoDB storage: service ≥ ${MIN_VS_RAW_DRIVER}× the raw-driver loop on the same database (throughput) on W1 and W2`,
  6: `W3 with a JWT ≥ ${MIN_JWT_VS_STATIC}× W3 with a static token in requests per server CPU-second`,
} as const;

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');
const verdict = (ok: boolean): TargetLine['verdict'] => (ok ? 'PASS' : 'FAIL');
const skip = (target: keyof typeof titles, why: string): TargetLine => ({ verdict: 'SKIP', text: `${target}. ${titles[target]} — ${why}` });

/** Targets 1–3, from the comparison of this server, the ceiling and json-server. */
export function comparisonTargets(compare: readonly WorkloadComparison[] | undefined, connections: number): TargetLine[] {
  if (compare === undefined) return ([1, 2, 3] as const).map((target) => skip(target, 'comparison section not run'));
  const byId = new Map(compare.map((c) => [c.workload.id, c]));
  const perCpuRatio = (id: 'W1' | 'W2' | 'W3', other: string) => {
    const comparison = byId.get(id)!;
    const mine = find(comparison, CONTENDERS.plantStore).runs;
    const theirs = find(comparison, other).runs;
    return { id, ratio: pairedRatio(mine.map((r) => r.requestsPerCpuSecond), theirs.map((r) => r.requestsPerCpuSecond)).median, failed: failures(mine) + failures(theirs) };
  };

  const vsCeiling = (['W1', 'W2', 'W3'] as const).map((id) => {
    const measured = perCpuRatio(id, CONTENDERS.bare);
    return { ...measured, ok: measured.ratio >= MIN_VS_CEILING && measured.failed === 0 };
  });
  const vsPeer = (['W1', 'W2'] as const).map((id) => {
    const measured = perCpuRatio(id, CONTENDERS.jsonServer);
    return { ...measured, ok: measured.ratio >= MIN_VS_PEER[id] && measured.failed === 0 };
  });
  const w1 = byId.get('W1')!;
  const mine = find(w1, CONTENDERS.plantStore).runs;
  const ceiling = find(w1, CONTENDERS.bare).runs;
  const mineP99 = p99(mine).median;
  const ceilingP99 = p99(ceiling).median;
  const latencyOk = mineP99 <= MAX_P99_VS_CEILING * ceilingP99 && failures(mine) + failures(ceiling) === 0;
  const parts = (measured: readonly { id: string; ratio: number; ok: boolean; failed: number }[]) =>
    measured.map((x) => `${x.id} ${ratio(x.ratio)} ${mark(x.ok)}${invalid(x.failed)}`).join(', ');
  return [
    { verdict: verdict(vsCeiling.every((x) => x.ok)), text: `1. ${titles[1]}: ${parts(vsCeiling)}` },
    { verdict: verdict(vsPeer.every((x) => x.ok)), text: `2. ${titles[2]}: ${parts(vsPeer)}` },
    {
      verdict: verdict(latencyOk),
      text: `3. ${titles[3]} at ${connections} connections (medians of the rounds): ${decimal(mineP99)} ms vs ${decimal(ceilingP99)} ms = ${ratio(mineP99 / ceilingP99)} ${mark(latencyOk)}`,
    },
  ];
}

/** Target 4, from the scaling section: the largest size against the smallest. */
export function scalingTarget(scaling: ScalingResult | undefined, settings: Settings): TargetLine {
  if (scaling === undefined) return skip(4, 'scaling section not run');
  const smallest = 0;
  const largest = scaling.series.length - 1;
  const small = scaling.series[smallest]!.runs;
  const large = scaling.series[largest]!.runs;
  const r = pairedRatio(large.map((x) => x.requestsPerCpuSecond), small.map((x) => x.requestsPerCpuSecond)).median;
  const sizeNames = `${settings.sizes[largest]!.toLocaleString('en-US')} vs ${settings.sizes[smallest]!.toLocaleString('en-US')} plants`;
  const standard = settings.sizes[smallest] === 1000 && settings.sizes[largest] === 1_000_000 ? '' : ' (not the standard sizes)';
  const point = scaling.sizes[largest]!;
  const rss = Math.max(point.afterPreload?.rss ?? Number.NaN, point.afterLoad?.rss ?? Number.NaN);
  const failed = failures(small) + failures(large);
  const throughputOk = r >= MIN_LARGEST_VS_SMALLEST && failed === 0;
  const memoryOk = rss <= MAX_RSS_BYTES;
  return {
    verdict: verdict(throughputOk && memoryOk && standard === ''),
    text: `4. W1 at ${sizeNames}${standard}: ${ratio(r)} per CPU-second (≥ ${MIN_LARGEST_VS_SMALLEST}×) ${mark(throughputOk)}${invalid(failed)}; RSS at ${settings.sizes[largest]!.toLocaleString('en-US')} plants ${megabytes(rss)} (≤ ${megabytes(MAX_RSS_BYTES)}, the larger of after loading and after the rounds) ${mark(memoryOk)}`,
  };
}

/** Target 5, from the MongoDB section. */
export function mongoTarget(mongo: MongoResult | undefined): TargetLine {
  if (mongo === undefined) return skip(5, 'section not run');
  if ('skipped' in mongo) return skip(5, `skipped: ${mongo.skipped}`);
  const parts = mongo.workloads.map((w) => {
    const r = pairedRatio(w.service.map((s) => s.requestsPerSecond), w.raw.map((x) => x.operationsPerSecond)).median;
    const failed = failures(w.service) + w.raw.reduce((n, x) => n + x.errors, 0);
    return { id: w.workload.id, r, ok: r >= MIN_VS_RAW_DRIVER && failed === 0, failed };
  });
  return {
    verdict: verdict(parts.length === 2 && parts.every((p) => p.ok)),
    text: `5. ${titles[5]}: ${parts.map((p) => `${p.id} ${ratio(p.r)} ${mark(p.ok)}${invalid(p.failed)}`).join(', ')}`,
  };
}

/** Target 6, from the access section. */
export function accessTarget(access: AccessResult | undefined): TargetLine {
  if (access === undefined) return skip(6, 'access section not run');
  const { perCpu, runs } = jwtVersusStatic(access);
  const failed = failures(runs);
  const ok = perCpu.median >= MIN_JWT_VS_STATIC && failed === 0;
  return { verdict: verdict(ok), text: `6. ${titles[6]}: ${ratio(perCpu.median)} ${mark(ok)}${invalid(failed)}` };
}
