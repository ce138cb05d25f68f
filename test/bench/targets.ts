/**
 * The benchmark targets: the hot-path issue's (1–4 and 11: this server against the Koa
 * floor and json-server, latency, scale, the request log's cost), MongoDB (5), access (6);
 * disk (7–9), webhooks (10), sandboxes (12–13), the change feed (14–15) and workers (16)
 * are in their sections' report files. Each threshold is
 * written once, here: the checks and the PASS / FAIL / SKIP lines both read it.
 */
import { decimal, megabytes, ratio } from './format.js';
import { failures, find, p99, pairedRatio, runsOf } from './run-figures.js';
import { spread } from './stats.js';
import type { AccessResult } from './access-section.js';
import { BREAKDOWN_STEPS, type Breakdown } from './breakdown-section.js';
import { jwtVersusStatic } from './report-access.js';
import { CONTENDERS, type MongoResult, type ScalingResult, type Settings, type WorkloadComparison } from './sections.js';

export interface TargetLine {
  readonly verdict: 'PASS' | 'FAIL' | 'SKIP';
  readonly text: string;
}

const MIN_VS_KOA_FLOOR = 0.8;
const MIN_VS_PEER = 4;
const MAX_LOG_STEP_MICROS = 10;
const MAX_P99_VS_CEILING = 2;
const MIN_LARGEST_VS_SMALLEST = 0.9;
const MAX_RSS_BYTES = 250e6;
const MIN_VS_RAW_DRIVER = 0.7;
const MIN_JWT_VS_STATIC = 0.8;

const titles = {
  1: `This server ≥ ${MIN_VS_KOA_FLOOR.toFixed(2)}× the Koa floor in requests per server CPU-second on W1, W2, W3 (breakdown section)`,
  2: `This server ≥ ${MIN_VS_PEER}× json-server per server CPU-second on every workload`,
  3: `W1 p99 latency of this server ≤ ${MAX_P99_VS_CEILING}× the ceiling's`,
  4: `W1 at 1,000,000 plants ≥ ${MIN_LARGEST_VS_SMALLEST}× W1 at 1,000 per CPU-second; RSS at 1,000,000 plants ≤ ${megabytes(MAX_RSS_BYTES)}`,
  5: `MongoDB storage: service ≥ ${MIN_VS_RAW_DRIVER}× the raw-driver loop on the same database (throughput) on W1 and W2`,
  6: `W3 with a JWT ≥ ${MIN_JWT_VS_STATIC}× W3 with a static token in requests per server CPU-second`,
  11: `The request log's step in the W3 breakdown ≤ ${MAX_LOG_STEP_MICROS} µs of server CPU per request`,
} as const;

/** A target check's mark in its line: met or not. */
export const mark = (ok: boolean) => (ok ? '✓' : '✗');
const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');
const verdict = (ok: boolean): TargetLine['verdict'] => (ok ? 'PASS' : 'FAIL');
const skip = (target: keyof typeof titles, why: string): TargetLine => ({ verdict: 'SKIP', text: `${target}. ${titles[target]} — ${why}` });

/** Targets 2 and 3, from the comparison of this server, the ceiling and json-server. */
export function comparisonTargets(compare: readonly WorkloadComparison[] | undefined, connections: number): TargetLine[] {
  if (compare === undefined) return ([2, 3] as const).map((target) => skip(target, 'comparison section not run'));
  const byId = new Map(compare.map((c) => [c.workload.id, c]));
  const perCpuRatio = (id: 'W1' | 'W2' | 'W3' | 'W4', other: string) => {
    const comparison = byId.get(id)!;
    const mine = find(comparison, CONTENDERS.plantStore).runs;
    const theirs = find(comparison, other).runs;
    return { id, ratio: pairedRatio(mine.map((r) => r.requestsPerCpuSecond), theirs.map((r) => r.requestsPerCpuSecond)).median, failed: failures(mine) + failures(theirs) };
  };

  const vsPeer = (['W1', 'W2', 'W3', 'W4'] as const).map((id) => {
    const measured = perCpuRatio(id, CONTENDERS.jsonServer);
    return { ...measured, ok: measured.ratio >= MIN_VS_PEER && measured.failed === 0 };
  });
  const w1 = byId.get('W1')!;
  const mine = find(w1, CONTENDERS.plantStore).runs;
  const ceiling = find(w1, CONTENDERS.bare).runs;
  const mineP99 = p99(mine).median;
  const ceilingP99 = p99(ceiling).median;
  const latencyOk = mineP99 <= MAX_P99_VS_CEILING * ceilingP99 && failures(mine) + failures(ceiling) === 0;
  return [
    { verdict: verdict(vsPeer.every((x) => x.ok)), text: `2. ${titles[2]}: ${parts(vsPeer)}` },
    {
      verdict: verdict(latencyOk),
      text: `3. ${titles[3]} at ${connections} connections (medians of the rounds): ${decimal(mineP99)} ms vs ${decimal(ceilingP99)} ms = ${ratio(mineP99 / ceilingP99)} ${mark(latencyOk)}`,
    },
  ];
}

const parts = (measured: readonly { id: string; ratio: number; ok: boolean; failed: number }[]) =>
  measured.map((x) => `${x.id} ${ratio(x.ratio)} ${mark(x.ok)}${invalid(x.failed)}`).join(', ');

const [SHIPPED, LOG_OFF, , KOA_FLOOR] = BREAKDOWN_STEPS.map((step) => step.name);
const microsPerRequest = (series: Breakdown['W1'], name: string) => spread(runsOf(series, name).map((r) => 1e6 / r.requestsPerCpuSecond)).median;

/** Targets 1 and 11, from the breakdown: this server as shipped against the Koa floor, and what its request log costs. */
export function breakdownTargets(breakdown: Breakdown | undefined): TargetLine[] {
  if (breakdown === undefined) return [skip(1, 'breakdown section not run'), skip(11, 'breakdown section not run')];
  const vsFloor = (['W1', 'W2', 'W3'] as const).map((id) => {
    const mine = runsOf(breakdown[id], SHIPPED!);
    const floor = runsOf(breakdown[id], KOA_FLOOR!);
    const r = pairedRatio(mine.map((x) => x.requestsPerCpuSecond), floor.map((x) => x.requestsPerCpuSecond)).median;
    const failed = failures(mine) + failures(floor);
    return { id, ratio: r, ok: r >= MIN_VS_KOA_FLOOR && failed === 0, failed };
  });
  const logStep = microsPerRequest(breakdown.W3, SHIPPED!) - microsPerRequest(breakdown.W3, LOG_OFF!);
  const logOk = logStep <= MAX_LOG_STEP_MICROS;
  return [
    { verdict: verdict(vsFloor.every((x) => x.ok)), text: `1. ${titles[1]}: ${parts(vsFloor)}` },
    { verdict: verdict(logOk), text: `11. ${titles[11]}: ${decimal(logStep)} µs (as shipped minus request log off, medians) ${mark(logOk)}` },
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
