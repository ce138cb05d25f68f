/** The workers section's part of BENCHMARKS.md, and its target (16). */
import { decimal, integer, ratio, withRange } from './format.js';
import { workloads, type RunResult } from './load.js';
import { failures, pairedRatio, perCpuEach, runsOf } from './run-figures.js';
import { SEEDED_PLANTS, type Series } from './sections.js';
import { spread } from './stats.js';
import { mark, type TargetLine } from './targets.js';
import { SEPARATE, WORKERS, workersName, type WorkersOutcome, type WorkersPart, type WorkerServer } from './workers-section.js';

const MIN_WORKERS_VS_ONE = 0.9;
const [COMPARED, BASELINE] = [workersName(WORKERS.compared), workersName(WORKERS.baseline)];

const title = `${COMPARED} ≥ ${MIN_WORKERS_VS_ONE}× ${BASELINE} in requests per server CPU-second (the primary and every worker counted) on W1, W2, W3, disk storage`;

const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');
const perSecond = (runs: readonly RunResult[]) => runs.map((r) => r.requestsPerSecond);
/** Microseconds of server CPU a request, median of the rounds. */
const micros = (runs: readonly RunResult[]) => spread(runs.map((r) => 1e6 / r.requestsPerCpuSecond)).median;

/** One server against another in one workload's series (the compared against the baseline unless named), round by round. */
function versus(series: readonly Series[], [ours, against] = [COMPARED, BASELINE]) {
  const [mine, theirs] = [runsOf(series, ours), runsOf(series, against)];
  return { perCpu: pairedRatio(perCpuEach(mine), perCpuEach(theirs)), perSecond: pairedRatio(perSecond(mine), perSecond(theirs)), failed: failures(mine) + failures(theirs) };
}

const hasSeparate = (series: readonly Series[]) => series.some((s) => s.contender === SEPARATE);

/** The control's line: separate servers against one process, and the group against them, per server CPU-second. */
function separateLine(series: readonly Series[]): string {
  const apart = versus(series, [SEPARATE, BASELINE]);
  const group = versus(series, [COMPARED, SEPARATE]);
  return `${SEPARATE} (one process and data directory each, sharing nothing) against ${BASELINE}: ${withRange(apart.perCpu, ratio)} per server CPU-second (${decimal(micros(runsOf(series, SEPARATE)))} µs a request)${invalid(apart.failed)}; ${COMPARED} against ${SEPARATE}: ${withRange(group.perCpu, ratio)}.`;
}

/** What is wrong with how the servers ran: not the processes asked for, a worker replaced, an unclean stop. */
function problems(servers: readonly WorkerServer[]): string[] {
  return servers.flatMap((s) => {
    const expected = s.expectedProcesses;
    const found: string[] = [];
    if (s.processes[0] !== expected || s.processes[1] !== expected) found.push(`${s.name} ran ${s.processes[0]} process(es) after start-up and ${s.processes[1]} after the rounds, not ${expected}`);
    else if (!s.sameProcesses) found.push(`${s.name}: a process was replaced during the rounds`);
    if (s.stopped.code !== 0) found.push(`${s.name} ended with ${s.stopped.signal ?? `exit ${s.stopped.code}`} on SIGTERM`);
    if (s.stopped.leftRunning > 0) found.push(`${s.name} left ${s.stopped.leftRunning} process(es) running after its primary exited`);
    return found;
  });
}

function processesLine(servers: readonly WorkerServer[]): string {
  const each = servers.map((s) => `${s.name} ${s.processes[0]} and ${s.processes[1]}${s.sameProcesses ? '' : ' (replaced)'}, ${s.stopped.signal ?? `exit ${s.stopped.code}`} on SIGTERM`);
  const found = problems(servers);
  return `Processes of each server (primary and workers) after start-up and after the rounds: ${each.join('; ')}.${found.length > 0 ? ` **${found.join('; ')}.**` : ''}`;
}

function workloadTables(part: WorkersPart, table: (series: readonly Series[], firstColumn: string) => string[], figure: 'perCpu' | 'perSecond'): string[] {
  const out: string[] = [];
  for (const id of ['W1', 'W3', 'W2'] as const) {
    const series = part.series[id];
    const r = versus(series);
    out.push(`#### ${id} — ${workloads[id].title}`, '', ...table(series, 'server'), '');
    const cpu = `${withRange(r.perCpu, ratio)} per server CPU-second (${decimal(micros(runsOf(series, COMPARED)))} µs of CPU a request against ${decimal(micros(runsOf(series, BASELINE)))} µs)`;
    const rps = `${withRange(r.perSecond, ratio)} in req/s`;
    out.push(`${COMPARED} against ${BASELINE}: ${figure === 'perCpu' ? `**${cpu}**, ${rps}` : `**${rps}**, ${cpu}`}.`, '');
    if (hasSeparate(series)) out.push(separateLine(series), '');
  }
  return out;
}

/** Markdown for the section; `table` renders a series table as the rest of the page does. */
export function renderWorkers(result: WorkersOutcome | undefined, table: (series: readonly Series[], firstColumn: string) => string[]): string[] {
  const out = ['## Workers', ''];
  if (result === undefined) return [...out, 'Not run.', ''];
  if ('failed' in result) return [...out, `Failed: ${result.failed}`, ''];
  out.push(
    `The \`plant-store\` command as an operator runs it (\`node dist/composition/cli.js\`), on its default storage (${result.storage}) in a temporary data directory, request log at \`info\`, rate limit off, with \`PLANT_STORE_WORKERS=${WORKERS.baseline}\` (one process) and \`PLANT_STORE_WORKERS=${WORKERS.compared}\` (a primary that forks ${WORKERS.compared} workers serving the one port). Both servers up side by side, each seeded with the same ${integer(SEEDED_PLANTS)} plants through \`POST /plants\`, measured in interleaved rounds (${result.rounds}; \`BENCH_WORKERS_ROUNDS\`), reads first, then creates. Server CPU is the whole group's: user + system time of the primary and of every process under it (\`/proc/<pid>/task/<tid>/children\`), read before and after each run; a process that appears during a run counts from 0, one reaped during it through its parent's children's time.`,
    '',
    `### Per server CPU-second, nothing pinned`,
    '',
    `Beside the two, ${SEPARATE}: each a single process (\`PLANT_STORE_WORKERS=1\`) with its own data directory, the load's connections alternating between them, their CPU summed. They share nothing, no environment, lock or port, so what they cost a request more than one process is what ${WORKERS.compared} server processes cost on this machine (sharing its CPUs with each other and with the load generator, syncing apart) whatever their design; the group against them is its own cost.`,
    '',
    ...workloadTables(result.perCpu, table, 'perCpu'),
    processesLine(result.perCpu.servers),
    '',
  );
  out.push('### Throughput, the load generator pinned apart from the servers', '');
  const { pinned } = result;
  if ('skipped' in pinned) return [...out, `Skipped: ${pinned.skipped}.`, ''];
  const scaling =
    pinned.serverCpus.length < WORKERS.compared
      ? ` With ${pinned.serverCpus.length} CPU for the servers, ${WORKERS.compared} workers share it: this shows what the extra processes cost in time, not how they scale; on a machine with more CPUs the servers get all but the first and it shows the scaling.`
      : '';
  out.push(
    `Two other servers started the same way, on CPU ${cpuText(pinned.serverCpus)} (\`taskset\`; the workers inherit it); the runner, which generates the load, on CPU ${cpuText(pinned.loadCpus)} for the rounds. The figure is req/s: what the group serves with the CPUs it has.${scaling}`,
    '',
    ...workloadTables(pinned, table, 'perSecond'),
    processesLine(pinned.servers),
    '',
  );
  return out;
}

const cpuText = (cpus: readonly number[]) => cpus.join(', ');

export function workersTarget(result: WorkersOutcome | undefined): TargetLine {
  if (result === undefined) return { verdict: 'SKIP', text: `16. ${title} — workers section not run` };
  if ('failed' in result) return { verdict: 'FAIL', text: `16. ${title} — the section failed: ${result.failed}` };
  const parts = (['W1', 'W2', 'W3'] as const).map((id) => {
    const r = versus(result.perCpu.series[id]);
    return { id, r: r.perCpu, failed: r.failed, ok: r.perCpu.median >= MIN_WORKERS_VS_ONE && r.failed === 0 };
  });
  const found = problems(result.perCpu.servers);
  const ok = parts.every((p) => p.ok) && found.length === 0;
  const line = parts.map((p) => `${p.id} ${withRange(p.r, ratio)} ${mark(p.ok)}${invalid(p.failed)}`).join(', ');
  const control = (['W1', 'W2', 'W3'] as const).filter((id) => hasSeparate(result.perCpu.series[id]));
  const context =
    control.length === 0
      ? ''
      : ` (for comparison, ${SEPARATE} against ${BASELINE}: ${control.map((id) => `${id} ${ratio(versus(result.perCpu.series[id], [SEPARATE, BASELINE]).perCpu.median)}`).join(', ')})`;
  return { verdict: ok ? 'PASS' : 'FAIL', text: `16. ${title}: ${line}${context}${found.length > 0 ? `; but ${found.join('; ')} ${mark(false)}` : ''}` };
}
