import { breakdownSeconds, type Breakdown } from './breakdown-section.js';
import { decimal, integer, megabytes, ratio, withRange } from './format.js';
import type { RunResult } from './load.js';
import { renderAccess } from './report-access.js';
import { renderBreakdown } from './report-breakdown.js';
import type { AccessResult } from './access-section.js';
import { diskTargets, renderDisk } from './report-disk.js';
import type { DiskResult } from './disk-section.js';
import { renderWebhooks, webhooksTarget } from './report-webhooks.js';
import { renderSandboxes, sandboxesTargets } from './report-sandboxes.js';
import type { SandboxesOutcome } from './sandboxes-section.js';
import { feedTargets, renderFeed } from './report-feed.js';
import type { FeedOutcome } from './feed-section.js';
import { renderWorkers, workersTarget } from './report-workers.js';
import type { WorkersOutcome } from './workers-section.js';
import { failures, find, p50, p99, pairedRatio, perCpu, rps } from './run-figures.js';
import { CONTENDERS, MEMORY_SETTLE_MS, type MongoResult, type RawRun, type ScalingResult, type Series, type Settings, type WorkloadComparison } from './sections.js';
import { spread } from './stats.js';
import type { WebhookResult } from './webhooks-section.js';
import { accessTarget, breakdownTargets, comparisonTargets, mongoTarget, scalingTarget, type TargetLine } from './targets.js';

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
  readonly breakdown?: Breakdown | undefined;
  readonly scaling?: ScalingResult | undefined;
  readonly mongo?: MongoResult | undefined;
  readonly access?: AccessResult | undefined;
  readonly disk?: DiskResult | undefined;
  readonly webhooks?: WebhookResult | undefined;
  readonly sandboxes?: SandboxesOutcome | undefined;
  readonly feed?: FeedOutcome | undefined;
  readonly workers?: WorkersOutcome | undefined;
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
    `- Rounds are interleaved — A B C, B C A, C A B, … ${settings.rounds} round${settings.rounds === 1 ? '' : 's'}, each starting one contender later — so that drift of a shared machine hits every contender alike, and none always runs right after the same other one. Each server gets one unmeasured warm-up of ${settings.warmupSeconds} s first. Tables give the median of the rounds with their min–max.`,
    `- **Requests per server CPU-second** = completed requests ÷ CPU time (user + system) the server process used during the run, read from fields 14 and 15 of \`/proc/<pid>/stat\` before and after (clock ticks: ${machine.clockTicks}/s). On a 2-core machine where the load generator and the server compete for the CPU, this is far steadier than req/s and is the figure the throughput targets use. Ratios between contenders are the median of round-by-round ratios (round i against round i).`,
    '- Latency percentiles are autocannon\'s, per run; the tables give the median over the rounds. "load generator CPU" is the share of one core the runner used: near 100 % it, not the server, set the pace of req/s (req per CPU-second is unaffected).',
    '- Every non-2xx response and connection error is counted and shown in the last column; a contender with any is marked ⚠ and a target relying on it fails.',
    '',
  );
  out.push('Contenders, all holding the same 1,000 plants (ids 1–1000, four in five with a tag):', '');
  out.push(
    `1. **${CONTENDERS.plantStore}** — started through the library exactly as the \`plant-store\` command does (configuration from the same variables, pino logger at \`info\` writing one JSON line per request to standard output — sent to /dev/null —, built by \`buildServer\`), in-memory storage, bearer token checked, rate limit off (\`PLANT_STORE_RATE_LIMIT=off\`), everything else as shipped (failed-authentication limit on, request ids, security headers). [\`test/bench/plant-store-server.ts\`](test/bench/plant-store-server.ts); the plants are loaded through the store's own \`create\`.`,
    `2. **${CONTENDERS.bare}** — the same routes on bare \`node:http\` ([\`test/bench/bare-server.ts\`](test/bench/bare-server.ts)): same bearer check (SHA-256 + \`timingSafeEqual\`), same validation, statuses, JSON shapes and meaningful headers (Location, Link), plants in a Map plus a sorted id array; no framework, no request log, no request ids.`,
    `3. **${CONTENDERS.jsonServer}** (${machine.jsonServer}) — \`json-server db.json\` with its defaults (request log on, to /dev/null) on the same plants; no authentication (the header is sent and ignored). It writes db.json after every change, as it does for its users.`,
    '',
  );
  out.push(
    'Workloads: **W1** `GET /plants?limit=100` (json-server: `?_limit=100`); **W2** `POST /plants` with a new id each time; **W3** `GET /plants/{id}` over ids 1–1000; **W4** per connection, `POST` a new id then `DELETE` it (each counts as one request). Every server is started afresh, with the same 1,000 plants, for each workload.',
    '',
  );

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
  }

  // ---- MongoDB
  out.push('## MongoDB storage', '');
  if (outcome.mongo === undefined) {
    out.push('Not run.', '');
  } else if ('skipped' in outcome.mongo) {
    out.push(`Skipped: ${outcome.mongo.skipped}`, '');
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
  }

  if (outcome.access !== undefined) out.push(...renderAccess(outcome.access, seriesTable(outcome.access.series, 'token')));
  out.push(...renderDisk(outcome.disk, seriesTable));
  out.push(...renderWebhooks(outcome.webhooks, seriesTable));
  out.push(...renderSandboxes(outcome.sandboxes, seriesTable));
  out.push(...renderFeed(outcome.feed, seriesTable));
  out.push(...renderWorkers(outcome.workers, seriesTable));

  const [vsKoaFloor, logStep] = breakdownTargets(outcome.breakdown);
  const targets: TargetLine[] = [
    vsKoaFloor!,
    ...comparisonTargets(outcome.compare, settings.connections),
    scalingTarget(outcome.scaling, settings),
    mongoTarget(outcome.mongo),
    accessTarget(outcome.access),
    ...diskTargets(outcome.disk),
    webhooksTarget(outcome.webhooks),
    logStep!,
    ...sandboxesTargets(outcome.sandboxes),
    ...feedTargets(outcome.feed),
    workersTarget(outcome.workers),
  ];

  out.push('## Targets', '');
  out.push('Ratios are measured within this run. Throughput targets 1, 2, 4, 6, 12, 13, 14 and 16 and the request log\'s cost (11) use server CPU; targets 5, 7 and 10 use throughput (the database, the disk or the receiver is part of what is measured); 15 checks what the server did.', '');
  for (const target of targets) out.push(`- **${target.verdict}** ${target.text}`);
  out.push('');
  return { markdown: out.join('\n'), targets };
}
