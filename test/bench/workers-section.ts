/**
 * A server of several processes (`--workers`; BENCH_SECTIONS=workers runs this alone), on
 * the default storage, disk. Every server is the real command, seeded with the same 1,000
 * plants through its API (cli-server.ts):
 * - W1, W3, W2 with 2 workers against 1, interleaved, in requests per server CPU-second,
 *   the primary's CPU and every worker's counted: what serving from several processes costs
 *   a request (target 16); and, alongside, 2 separate single-process servers (each its own
 *   data directory, half the connections each): what any 2 server processes cost a request
 *   on this machine, sharing nothing, so that a group's own cost is told from it;
 * - the same in req/s with the load generator (this process) pinned to one CPU and the
 *   servers to all the others (taskset): what it gains. With 2 CPUs the servers get one, so
 *   this cannot show scaling there; with more it can. Reported, not a target.
 * Reads come first, on the seeded plants alone, then creates.
 */
import { join } from 'node:path';
import { asOneServer, startCliServer, type CliServer, type Stopped } from './cli-server.js';
import { allowedCpus, cpuList, pinProcess, tasksetMissing } from './cpu-affinity.js';
import { IdSource, workloads } from './load.js';
import { interleave, inWorkDirectory, progress, SEEDED_PLANTS, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID } from './seed-plants.js';

/** Workers of the server measured, and of the one it is measured against. */
export const WORKERS = { compared: 2, baseline: 1 } as const;
export const workersName = (n: number) => `${n} worker${n === 1 ? '' : 's'}`;
/** The control of the unpinned rounds: as many separate single-process servers as the group has workers. */
export const SEPARATE = `${WORKERS.compared} separate servers`;
const WORKLOADS = ['W1', 'W3', 'W2'] as const;

export interface WorkerServer {
  readonly name: string;
  /** Processes it should run: 1 for a single process, a primary and its workers, or each separate server's one. */
  readonly expectedProcesses: number;
  /** Processes of the group (the primary and its workers; 1 for a single process) once started, and after the rounds. */
  readonly processes: readonly [number, number];
  /** The same processes served every round: no worker was replaced. */
  readonly sameProcesses: boolean;
  readonly stopped: Stopped;
}

export interface WorkersPart {
  readonly series: { readonly W1: Series[]; readonly W2: Series[]; readonly W3: Series[] };
  readonly servers: readonly WorkerServer[];
}

export interface PinnedPart extends WorkersPart {
  readonly loadCpus: readonly number[];
  readonly serverCpus: readonly number[];
}

export interface WorkersResult {
  /** The storage's kind, from the start-up line. */
  readonly storage: string;
  readonly rounds: number;
  readonly perCpu: WorkersPart;
  readonly pinned: PinnedPart | { readonly skipped: string };
}

/** The section's outcome: its figures, or why it could not be measured. */
export type WorkersOutcome = WorkersResult | { readonly failed: string };

export function workersSection(settings: Settings, token: string): Promise<WorkersOutcome> {
  return inWorkDirectory('workers', 'plant-store-bench-workers-', async (workPath) => {
    const own = { ...settings, rounds: settings.workersRounds };
    const perCpu = await measure('workers', own, token, join(workPath, 'unpinned'), { separate: true });
    const pinned = await pinnedApart(own, token, join(workPath, 'pinned'));
    return { storage: perCpu.storage, rounds: own.rounds, perCpu, pinned };
  });
}

/** The load generator on the first CPU this process may use, the servers on the rest. */
async function pinnedApart(settings: Settings, token: string, workPath: string): Promise<WorkersResult['pinned']> {
  const missing = tasksetMissing();
  const available = missing === undefined ? allowedCpus(process.pid) : [];
  const skipped = missing ?? (available.length < 2 ? `only CPU ${cpuList(available)} available: the load generator and the servers cannot be pinned apart` : undefined);
  if (skipped !== undefined) {
    progress(`workers, pinned: skipped: ${skipped}`);
    return { skipped };
  }
  const [first, ...serverCpus] = available;
  const loadCpus = [first!];
  const part = await measure('workers, pinned', settings, token, workPath, { pinning: { load: loadCpus, server: serverCpus } });
  return { series: part.series, servers: part.servers, loadCpus, serverCpus };
}

const sorted = (pids: readonly number[]) => [...pids].sort((a, b) => a - b).join();

interface MeasureOptions {
  /** The load generator's CPUs and the servers'; unpinned when absent. */
  readonly pinning?: { load: number[]; server: number[] };
  /** Measure the separate servers (SEPARATE) beside the two. */
  readonly separate?: boolean;
}

async function measure(label: string, settings: Settings, token: string, workPath: string, { pinning, separate = false }: MeasureOptions = {}): Promise<WorkersPart & { storage: string }> {
  const servers: CliServer[] = [];
  const where = pinning === undefined ? '' : ` on CPU ${cpuList(pinning.server)}`;
  const start = (name: string, workers: number, dir: string) => {
    progress(`${label}: starting the command with ${workersName(workers)}${where}, seeding ${SEEDED_PLANTS} plants over HTTP`);
    return startCliServer({ name, workers, plants: SEEDED_PLANTS, token, dataDir: join(workPath, dir), cpus: pinning?.server });
  };
  const add = (server: CliServer) => {
    progress(`${label}: ${server.name} up (${server.storage}, ${server.processes().length} processes), seeded in ${server.preloadSeconds.toFixed(1)} s`);
    servers.push(server);
  };
  try {
    for (const workers of [WORKERS.baseline, WORKERS.compared]) add(await start(workersName(workers), workers, String(workers)));
    if (separate) {
      const apart: CliServer[] = [];
      try {
        for (let i = 1; i <= WORKERS.compared; i++) apart.push(await start(`${SEPARATE} (#${i})`, 1, `separate-${i}`));
      } catch (error) {
        for (const server of apart) await server.stop();
        throw error;
      }
      add(asOneServer(SEPARATE, apart));
    }
    const atStart = servers.map((s) => s.processes());
    const ids = new IdSource(FIRST_WRITE_ID);
    const load = { seconds: settings.seconds, connections: settings.connections, token };
    const series: Partial<Record<(typeof WORKLOADS)[number], Series[]>> = {};
    // The runner is the load generator: it moves to its CPU for the rounds, and back after.
    const before = pinning === undefined ? undefined : allowedCpus(process.pid);
    if (pinning !== undefined) {
      progress(`${label}: the load generator on CPU ${cpuList(pinning.load)}`);
      pinProcess(process.pid, pinning.load);
    }
    try {
      for (const id of WORKLOADS) series[id] = await interleave(`${label} ${id}`, servers, () => workloads[id], ids, settings, load);
    } finally {
      if (before !== undefined) pinProcess(process.pid, before);
    }
    const atEnd = servers.map((s) => s.processes());
    const facts: WorkerServer[] = [];
    for (const [i, server] of servers.entries()) {
      const stopped = await server.stopChecked();
      if (stopped.code !== 0 || stopped.leftRunning > 0) progress(`${label}: ${server.name} stopped with ${stopped.signal ?? `exit ${stopped.code}`}, ${stopped.leftRunning} processes left running`);
      facts.push({
        name: server.name,
        expectedProcesses: server.expectedProcesses,
        processes: [atStart[i]!.length, atEnd[i]!.length],
        sameProcesses: sorted(atStart[i]!) === sorted(atEnd[i]!),
        stopped,
      });
    }
    return { storage: servers[0]!.storage, series: { W1: series.W1!, W2: series.W2!, W3: series.W3! }, servers: facts };
  } finally {
    for (const server of servers) await server.stop();
  }
}
