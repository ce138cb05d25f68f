import type { RunResult } from './load.js';
import { CONTENDERS, MEMORY_SETTLE_MS, type MongoResult, type RawRun, type ScalingResult, type Series, type Settings, type WorkloadComparison } from './sections.js';
import { breakdownSeconds } from './breakdown-section.js';
import { renderBreakdown } from './report-breakdown.js';
import { spread, type Spread } from './stats.js';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  /** The CPU reports a hypervisor. */
  readonly virtual: boolean;
  readonly memoryBytes: number;
  readonly os: string;
  readonly node: string;
  readonly autocannon: string;
  readonly jsonServer: string;
  readonly clockTicks: number;
  readonly loadAverageBefore: readonly number[];
  readonly loadAverageAfter: readonly number[];
}

export interface Outcome {
  readonly settings: Settings;
  readonly defaults: boolean;
  readonly command: string;
  readonly date: Date;
  readonly totalSeconds: number;
  readonly machine: Machine;
  readonly compare?: WorkloadComparison[] | undefined;
  readonly breakdown?: Series[] | undefined;
  readonly scaling?: ScalingResult | undefined;
  readonly mongo?: MongoResult | undefined;
}

export interface TargetLine {
  readonly verdict: 'PASS' | 'FAIL' | 'SKIP';
  readonly text: string;
}

const integer = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const decimal = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const ratio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
const megabytes = (bytes: number | undefined) => (bytes === undefined ? '–' : `${(bytes / 1e6).toFixed(0)} MB`);
const withRange = (s: Spread, format: (n: number) => string) => `${format(s.median)} (${format(s.min)}–${format(s.max)})`;

const rps = (runs: readonly RunResult[]) => spread(runs.map((r) => r.requestsPerSecond));
const perCpu = (runs: readonly RunResult[]) => spread(runs.map((r) => r.requestsPerCpuSecond));
const p50 = (runs: readonly RunResult[]) => spread(runs.map((r) => r.p50Ms));
const p99 = (runs: readonly RunResult[]) => spread(runs.map((r) => r.p99Ms));
const failures = (runs: readonly RunResult[]) => runs.reduce((n, r) => n + r.non2xx + r.errors, 0);

/** Round-by-round ratios of two interleaved series (round i of a against round i of b). */
function pairedRatio(a: readonly number[], b: readonly number[]): Spread {
  return spread(a.map((value, i) => value / b[i]!));
}

function find(comparison: WorkloadComparison, contender: string): Series {
  return comparison.series.find((s) => s.contender === contender)!;
}

function statusSummary(runs: readonly RunResult[]): string {
  const counts: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) counts[code] = (counts[code] ?? 0) + count;
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  const codes = Object.entries(counts).sort().map(([code, count]) => `${code}: ${integer(count)}`).join(', ');
  return errors > 0 ? `${codes}; **${integer(errors)} connection errors**` : codes;
}

function seriesTable(series: readonly Series[], firstColumn: string): string[] {
  const lines = [
    `| ${firstColumn} | req/s, median (min–max) | req per server CPU-second, median (min–max) | p50 ms | p99 ms | load generator CPU | responses (all rounds) |`,
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const s of series) {
    const flagged = failures(s.runs) > 0 ? ' ⚠' : '';
    lines.push(
      `| ${s.contender}${flagged} | ${withRange(rps(s.runs), integer)} | ${withRange(perCpu(s.runs), integer)} | ${decimal(p50(s.runs).median)} | ${decimal(p99(s.runs).median)} | ${Math.round(spread(s.runs.map((r) => r.loadGeneratorCpu)).median * 100)} % | ${statusSummary(s.runs)} |`,
    );
  }
  return lines;
}

export function render(outcome: Outcome): { markdown: string; targets: TargetLine[] } {
  const { settings, machine } = outcome;
  const out: string[] = [];
  out.push('# Benchmarks', '');
  out.push(
    `How fast the plant store serves, measured against the practical ceiling of one Node process (a bare \`node:http\` server doing the same work) and against json-server 0.17, which a user might pick instead — all in one run, on one machine, written by \`npm run bench\` (code in [\`test/bench/\`](test/bench/)). The targets are checked at the end of this page.`,
    '',
  );
  if (!outcome.defaults) {
    out.push(`> **Shortened run** (${settings.seconds} s per run, ${settings.rounds} round${settings.rounds === 1 ? '' : 's'}, ${settings.warmupSeconds} s warm-up, ${settings.connections} connections, sections: ${[...settings.sections].join(', ')}). The targets below are computed, but only a run with the defaults (\`npm run bench\`) counts.`, '');
  }
  out.push('## Machine and command', '');
  out.push('| | |', '|---|---|');
  out.push(`| date | ${outcome.date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} |`);
  out.push(`| command | \`${outcome.command}\` (builds, then runs \`node dist/test/bench/run-benchmarks.js\`) |`);
  out.push(`| CPU | ${machine.cpu}, ${machine.cores} cores${machine.virtual ? ' (virtual machine, shared)' : ''} |`);
  out.push(`| memory | ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB |`);
  out.push(`| system | ${machine.os} |`);
  out.push(`| Node | ${machine.node} |`);
  out.push(`| load generator | autocannon ${machine.autocannon}, in the runner's process |`);
  out.push(`| load average before / after | ${machine.loadAverageBefore.map((n) => n.toFixed(2)).join(' ')} / ${machine.loadAverageAfter.map((n) => n.toFixed(2)).join(' ')} |`);
  out.push(`| whole run | ${Math.floor(outcome.totalSeconds / 60)} min ${Math.round(outcome.totalSeconds % 60)} s |`);
  out.push('');

  out.push('## How it is measured', '');
  out.push(
    `- Every server runs as its own Node process on loopback (127.0.0.1); the load comes from another process (the runner, using autocannon programmatically): ${settings.connections} keep-alive connections, no pipelining, ${settings.seconds} s per run.`,
    `- Rounds are interleaved — A B C, A B C, … ${settings.rounds} round${settings.rounds === 1 ? '' : 's'} — so that drift of a shared machine hits every contender alike. Each server gets one unmeasured warm-up of ${settings.warmupSeconds} s first. Tables give the median of the rounds with their min–max.`,
    `- **Requests per server CPU-second** = completed requests ÷ CPU time (user + system) the server process used during the run, read from fields 14 and 15 of \`/proc/<pid>/stat\` before and after (clock ticks: ${machine.clockTicks}/s). On a 2-core machine where the load generator and the server compete for the CPU, this is far steadier than req/s and is the figure the throughput targets use. Ratios between contenders are the median of round-by-round ratios (round i against round i).`,
    '- Latency percentiles are autocannon\'s, per run; the tables give the median over the rounds. "load generator CPU" is the share of one core the runner used: near 100 % it, not the server, set the pace of req/s (req per CPU-second is unaffected).',
    '- Every non-2xx response and connection error is counted and shown in the last column; a contender with any is marked ⚠ and a target relying on it fails.',
    '',
  );
  out.push('Contenders, all holding the same 1,000 plants (ids 1–1000, four in five with a tag):', '');
  out.push(
    `1. **${CONTENDERS.plantStore}** — started through the library exactly as the \`plant-store\` command does (configuration from the same variables, pino logger at \`info\` writing one JSON line per request to standard output — sent to /dev/null —, \`createPlantStore\` + \`startServer\`), in-memory storage, bearer token checked, rate limit off (\`PLANT_STORE_RATE_LIMIT=off\`), everything else as shipped (failed-authentication limit on, request ids, security headers). [\`test/bench/plant-store-server.ts\`](test/bench/plant-store-server.ts); the plants are loaded through the store's own \`create\`.`,
    `2. **${CONTENDERS.bare}** — the same routes on bare \`node:http\` ([\`test/bench/bare-server.ts\`](test/bench/bare-server.ts)): same bearer check (SHA-256 + \`timingSafeEqual\`), same validation, statuses, JSON shapes and meaningful headers (Location, Link), plants in a Map plus a sorted id array; no framework, no request log, no request ids.`,
    `3. **${CONTENDERS.jsonServer}** (${machine.jsonServer}) — \`json-server db.json\` with its defaults (request log on, to /dev/null) on the same plants; no authentication (the header is sent and ignored). It writes db.json after every change, as it does for its users.`,
    '',
  );
  out.push(
    'Workloads: **W1** `GET /plants?limit=100` (json-server: `?_limit=100`); **W2** `POST /plants` with a new id each time; **W3** `GET /plants/{id}` over ids 1–1000; **W4** per connection, `POST` a new id then `DELETE` it (each counts as one request). Every server is started afresh, with the same 1,000 plants, for each workload.',
    '',
  );

  const targets: TargetLine[] = [];

  // ---- comparison
  if (outcome.compare !== undefined) {
    out.push('## This server, the ceiling and json-server', '');
    for (const comparison of outcome.compare) {
      const { workload } = comparison;
      out.push(`### ${workload.id} — ${workload.title}`, '');
      out.push(...seriesTable(comparison.series, 'server'), '');
      const mine = find(comparison, CONTENDERS.plantStore);
      const bare = find(comparison, CONTENDERS.bare);
      const peer = find(comparison, CONTENDERS.jsonServer);
      const vsBare = pairedRatio(mine.runs.map((r) => r.requestsPerCpuSecond), bare.runs.map((r) => r.requestsPerCpuSecond));
      const vsPeer = pairedRatio(mine.runs.map((r) => r.requestsPerCpuSecond), peer.runs.map((r) => r.requestsPerCpuSecond));
      const vsBareRps = pairedRatio(mine.runs.map((r) => r.requestsPerSecond), bare.runs.map((r) => r.requestsPerSecond));
      const vsPeerRps = pairedRatio(mine.runs.map((r) => r.requestsPerSecond), peer.runs.map((r) => r.requestsPerSecond));
      out.push(
        `This server against the ceiling: ${withRange(vsBare, ratio)} per CPU-second, ${withRange(vsBareRps, ratio)} in req/s. Against json-server: ${withRange(vsPeer, ratio)} per CPU-second, ${withRange(vsPeerRps, ratio)} in req/s.`,
        '',
      );
    }
    targets.push(...comparisonTargets(outcome.compare, settings.connections));
  } else {
    targets.push(
      { verdict: 'SKIP', text: '1. ≥ 0.80× the node:http ceiling on W1, W2, W3 — comparison section not run' },
      { verdict: 'SKIP', text: '2. ≥ 5× json-server on W1 and ≥ 25× on W2 — comparison section not run' },
      { verdict: 'SKIP', text: '3. W1 p99 ≤ 2× the ceiling\'s — comparison section not run' },
    );
  }

  if (outcome.breakdown !== undefined) out.push(...renderBreakdown(outcome.breakdown, breakdownSeconds(settings)));

  // ---- scaling
  if (outcome.scaling !== undefined) {
    const { series, sizes } = outcome.scaling;
    out.push('## Scaling with the size of the store', '');
    out.push(`W1 on this server (in memory) holding ${sizes.map((s) => s.plants.toLocaleString('en-US')).join(' / ')} plants, ${sizes.length} servers up side by side and measured in interleaved rounds. Memory is the server's resident set size (RSS) after a forced garbage collection (\`global.gc()\`, the process runs with \`--expose-gc\`), once after loading the plants and once after the rounds — ${MEMORY_SETTLE_MS / 1000} s after the last round ended, for every size alike (read at once, the size measured last would still hold memory its just-ended run used).`, '');
    out.push(...seriesTable(series, 'plants'), '');
    out.push(
      '| plants | loading time (through `create`) | RSS after loading | RSS after the rounds | V8 heap used / committed after the rounds | external (buffers) |',
      '|---:|---:|---:|---:|---:|---:|',
    );
    for (const size of sizes) {
      const after = size.afterLoad;
      out.push(
        `| ${size.plants.toLocaleString('en-US')} | ${decimal(size.preloadSeconds)} s | ${megabytes(size.afterPreload?.rss)} | ${megabytes(after?.rss)} | ${megabytes(after?.heapUsed)} / ${megabytes(after?.heapTotal)} | ${megabytes(after?.external)} |`,
      );
    }
    out.push('');
    targets.push(...scalingTargets(outcome.scaling, settings));
  } else {
    targets.push({ verdict: 'SKIP', text: '4. W1 at 1,000,000 plants ≥ 0.9× W1 at 1,000; RSS ≤ 250 MB — scaling section not run' });
  }

  // ---- MongoDB
  out.push('## MongoDB storage', '');
  if (outcome.mongo === undefined) {
    out.push('Not run.', '');
    targets.push({ verdict: 'SKIP', text: '5. MongoDB storage ≥ 0.7× the raw-driver loop on W1 and W2 — section not run' });
  } else if ('skipped' in outcome.mongo) {
    out.push(`Skipped: ${outcome.mongo.skipped}`, '');
    targets.push({ verdict: 'SKIP', text: `5. MongoDB storage ≥ 0.7× the raw-driver loop on W1 and W2 — skipped: ${outcome.mongo.skipped}` });
  } else {
    const mongo = outcome.mongo;
    out.push(
      `This server on MongoDB storage (${mongo.storage}; the 1,000 plants loaded through \`create\`) against a raw-driver loop: a separate Node process running ${settings.connections} concurrent loops of the same call straight through the \`mongodb\` driver, each waiting for its answer, as an HTTP connection does: W1 \`find({_id: {$gt: 0}})\` sorted by \`_id\`, limit 100, same projection; W2 \`insertOne\` with a new \`_id\` and the same write concern. Same collection, same database: ${mongo.database}. The database runs on the same ${machine.cores} cores, so every CPU-second the service or the loop spends is taken from it: "per own CPU-s" shows what each client process costs per operation. Ratio = service req/s ÷ raw-driver operations/s, round by round.`,
      '',
    );
    out.push(
      '| workload | service req/s, median (min–max) | raw driver ops/s, median (min–max) | ratio | service p50 / p99 ms | raw p50 / p99 ms | service req per own CPU-s | raw ops per own CPU-s | service responses |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    );
    for (const w of mongo.workloads) {
      const rawRate = spread(w.raw.map((r) => r.operationsPerSecond));
      const r = pairedRatio(w.service.map((s) => s.requestsPerSecond), w.raw.map((x) => x.operationsPerSecond));
      const rawErrors = w.raw.reduce((n, x) => n + x.errors, 0);
      out.push(
        `| ${w.workload.id} ${w.workload.title} | ${withRange(rps(w.service), integer)} | ${withRange(rawRate, integer)}${rawErrors ? ` (⚠ ${rawErrors} errors)` : ''} | ${withRange(r, ratio)} | ${decimal(p50(w.service).median)} / ${decimal(p99(w.service).median)} | ${decimal(spread(w.raw.map((x: RawRun) => x.p50Ms)).median)} / ${decimal(spread(w.raw.map((x: RawRun) => x.p99Ms)).median)} | ${integer(perCpu(w.service).median)} | ${integer(spread(w.raw.map((x) => x.operations / x.cpuSeconds)).median)} | ${statusSummary(w.service)} |`,
      );
    }
    out.push('');
    targets.push(mongoTarget(mongo));
  }

  out.push('## Targets', '');
  out.push('Ratios are measured within this run. Throughput targets 1, 2 and 4 use requests per server CPU-second; target 5 uses throughput (the database is the limit there, and it is outside the server process).', '');
  for (const target of targets) out.push(`- **${target.verdict}** ${target.text}`);
  out.push('');
  return { markdown: out.join('\n'), targets };
}

function check(ok: boolean): string {
  return ok ? '✓' : '✗';
}

function comparisonTargets(compare: WorkloadComparison[], connections: number): TargetLine[] {
  const byId = new Map(compare.map((c) => [c.workload.id, c]));
  const perCpuRatio = (id: string, other: string) => {
    const c = byId.get(id as never)!;
    const mine = find(c, CONTENDERS.plantStore).runs;
    const theirs = find(c, other).runs;
    return { ratio: pairedRatio(mine.map((r) => r.requestsPerCpuSecond), theirs.map((r) => r.requestsPerCpuSecond)).median, failed: failures(mine) + failures(theirs) };
  };
  const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');

  const t1 = (['W1', 'W2', 'W3'] as const).map((id) => ({ id, ...perCpuRatio(id, CONTENDERS.bare) }));
  const t1ok = t1.every((x) => x.ratio >= 0.8 && x.failed === 0);
  const w1Peer = perCpuRatio('W1', CONTENDERS.jsonServer);
  const w2Peer = perCpuRatio('W2', CONTENDERS.jsonServer);
  const t2ok = w1Peer.ratio >= 5 && w2Peer.ratio >= 25 && w1Peer.failed + w2Peer.failed === 0;
  const w1 = byId.get('W1')!;
  const mineP99 = p99(find(w1, CONTENDERS.plantStore).runs).median;
  const bareP99 = p99(find(w1, CONTENDERS.bare).runs).median;
  const t3ok = mineP99 <= 2 * bareP99 && failures(find(w1, CONTENDERS.plantStore).runs) === 0 && failures(find(w1, CONTENDERS.bare).runs) === 0;
  return [
    {
      verdict: t1ok ? 'PASS' : 'FAIL',
      text: `1. This server ≥ 0.80× the node:http ceiling in requests per server CPU-second on W1, W2, W3: ${t1.map((x) => `${x.id} ${ratio(x.ratio)} ${check(x.ratio >= 0.8 && x.failed === 0)}${invalid(x.failed)}`).join(', ')}`,
    },
    {
      verdict: t2ok ? 'PASS' : 'FAIL',
      text: `2. This server ≥ 5× json-server on W1 and ≥ 25× on W2 (per server CPU-second): W1 ${ratio(w1Peer.ratio)} ${check(w1Peer.ratio >= 5 && w1Peer.failed === 0)}${invalid(w1Peer.failed)}, W2 ${ratio(w2Peer.ratio)} ${check(w2Peer.ratio >= 25 && w2Peer.failed === 0)}${invalid(w2Peer.failed)}`,
    },
    {
      verdict: t3ok ? 'PASS' : 'FAIL',
      text: `3. W1 p99 latency of this server ≤ 2× the ceiling's at ${connections} connections (medians of the rounds): ${decimal(mineP99)} ms vs ${decimal(bareP99)} ms = ${ratio(mineP99 / bareP99)} ${check(t3ok)}`,
    },
  ];
}

function scalingTargets(scaling: ScalingResult, settings: Settings): TargetLine[] {
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
  const throughputOk = r >= 0.9 && failed === 0;
  const memoryOk = rss <= 250e6;
  return [
    {
      verdict: throughputOk && memoryOk && standard === '' ? 'PASS' : 'FAIL',
      text: `4. W1 at ${sizeNames}${standard}: ${ratio(r)} per CPU-second (≥ 0.9×) ${check(throughputOk)}${failed ? ` (invalid: ${failed} non-2xx/errors)` : ''}; RSS at ${settings.sizes[largest]!.toLocaleString('en-US')} plants ${megabytes(rss)} (≤ 250 MB, the larger of after loading and after the rounds) ${check(memoryOk)}`,
    },
  ];
}

function mongoTarget(mongo: Extract<MongoResult, { workloads: unknown }>): TargetLine {
  const parts = mongo.workloads.map((w) => {
    const r = pairedRatio(w.service.map((s) => s.requestsPerSecond), w.raw.map((x) => x.operationsPerSecond)).median;
    const failed = failures(w.service) + w.raw.reduce((n, x) => n + x.errors, 0);
    return { id: w.workload.id, r, ok: r >= 0.7 && failed === 0, failed };
  });
  const ok = parts.length === 2 && parts.every((p) => p.ok);
  return {
    verdict: ok ? 'PASS' : 'FAIL',
    text: `5. MongoDB storage: service ≥ 0.7× the raw-driver loop on the same database (throughput): ${parts.map((p) => `${p.id} ${ratio(p.r)} ${check(p.ok)}${p.failed ? ` (invalid: ${p.failed} non-2xx/errors)` : ''}`).join(', ')}`,
  };
}
