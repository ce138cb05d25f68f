/**
 * This server as an operator runs it: the built `plant-store` command (`node
 * dist/composition/cli.js` with its shebang's node flags) on the default storage, disk, in a
 * data directory of its own, with `PLANT_STORE_WORKERS` processes, optionally pinned to some
 * CPUs. Seeded through its API, its URL read from its start-up line, its CPU the whole
 * group's (primary and workers), stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cliNodeFlags } from '../support/cli-node-flags.js';
import { cliPath } from '../support/cli-process.js';
import { cleanEnvironment, LOOPBACK, type Contender } from './contenders.js';
import { pinnedCommand } from './cpu-affinity.js';
import { groupCpuSeconds, processTree } from './process-cpu.js';
import { seedOverHttp } from './seed-over-http.js';

const STARTUP_TIMEOUT_MS = 60_000;
/** Past the server's default shutdown grace (10 s) and its workers' margin to close their storage. */
const STOP_TIMEOUT_MS = 30_000;
/** How long processes of the group get to be gone once the primary has exited. */
const ORPHAN_WAIT_MS = 2000;

export interface CliServerOptions {
  readonly name: string;
  readonly workers: number;
  readonly plants: number;
  readonly token: string;
  readonly dataDir: string;
  /** Start it on these CPUs only (taskset); its workers inherit them. */
  readonly cpus?: readonly number[] | undefined;
}

/** How a server ended on SIGTERM: the primary's exit, and how many of its processes outlived it (then killed). */
export interface Stopped {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly leftRunning: number;
}

export interface CliServer extends Contender {
  /** The group's processes now: the primary first, then its workers (one process without workers). */
  processes(): number[];
  /** How many processes it should run: 1 without workers, else the primary and each worker. */
  readonly expectedProcesses: number;
  /** SIGTERM, then how it ended (SIGKILL after STOP_TIMEOUT_MS). */
  stopChecked(): Promise<Stopped>;
}

export async function startCliServer(options: CliServerOptions): Promise<CliServer> {
  const command = [process.execPath, ...cliNodeFlags(), cliPath];
  const [file, ...args] = options.cpus === undefined ? command : pinnedCommand(options.cpus, command);
  const child = spawn(file!, args, {
    env: {
      ...cleanEnvironment(),
      PLANT_STORE_TOKENS: options.token,
      PORT: '0',
      HOST: LOOPBACK,
      // As the other sections run it: one request line a request, read and dropped here.
      PLANT_STORE_LOG_LEVEL: 'info',
      PLANT_STORE_RATE_LIMIT: 'off',
      PLANT_STORE_DATA_DIR: options.dataDir,
      PLANT_STORE_WORKERS: String(options.workers),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  let started: { url: string; storage: string };
  try {
    started = await startUpLine(child, options.name, output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const pid = child.pid!;
  let stopped: Promise<Stopped> | undefined;
  const stopChecked = () => (stopped ??= stop(child));
  const server: CliServer = {
    name: options.name,
    pid,
    url: started.url,
    storage: started.storage,
    preloadSeconds: 0,
    listPath: (limit) => `/plants?limit=${limit}`,
    cpuSeconds: () => groupCpuSeconds(pid),
    memory: async () => undefined,
    processes: () => (child.exitCode === null && child.signalCode === null ? processTree(pid) : []),
    expectedProcesses: options.workers === 1 ? 1 : options.workers + 1,
    stopChecked,
    stop: async () => void (await stopChecked()),
  };
  const seeding = performance.now();
  try {
    await seedOverHttp(server.url, options.token, options.plants);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, preloadSeconds: (performance.now() - seeding) / 1000 };
}

/**
 * Servers started apart (each its own process and data directory) measured as one: the
 * load's connections spread over them, their CPU and processes summed; stopped together.
 */
export function asOneServer(name: string, servers: readonly CliServer[]): CliServer {
  const first = servers[0]!;
  const stopChecked = async (): Promise<Stopped> => {
    const each = await Promise.all(servers.map((s) => s.stopChecked()));
    const failed = each.find((s) => s.code !== 0);
    return { code: failed?.code ?? 0, signal: failed?.signal ?? null, leftRunning: each.reduce((sum, s) => sum + s.leftRunning, 0) };
  };
  return {
    name,
    pid: first.pid,
    url: first.url,
    urls: servers.map((s) => s.url),
    storage: first.storage,
    preloadSeconds: Math.max(...servers.map((s) => s.preloadSeconds)),
    listPath: first.listPath,
    cpuSeconds: () => servers.reduce((sum, s) => sum + s.cpuSeconds(), 0),
    memory: async () => undefined,
    processes: () => servers.flatMap((s) => s.processes()),
    expectedProcesses: servers.reduce((sum, s) => sum + s.expectedProcesses, 0),
    stopChecked,
    stop: async () => void (await stopChecked()),
  };
}

/** Waits for the primary's `plant-store listening on http://HOST:PORT` line (JSON, on standard output). */
function startUpLine(child: ChildProcess, name: string, output: () => string): Promise<{ url: string; storage: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => done(new Error(`${name} did not log its start-up line within ${STARTUP_TIMEOUT_MS / 1000} s: ${output().trim().split('\n').pop() ?? ''}`)), STARTUP_TIMEOUT_MS);
    const onExit = (code: number | null, signal: string | null) => done(new Error(`${name} exited during start-up (${signal ?? `exit ${code}`}): ${output().trim().split('\n').pop() ?? ''}`));
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.includes('plant-store listening on '));
      const url = line === undefined ? undefined : /plant-store listening on (http:\/\/[^\s"]+)/.exec(line)?.[1];
      // The storage's kind only: the line names the (temporary) data directory too.
      if (url !== undefined) done(undefined, { url, storage: /\(storage: (\w+)/.exec(line!)?.[1] ?? 'unknown' });
    };
    const done = (error: Error | undefined, value?: { url: string; storage: string }) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.off('data', onData);
      // From here on standard output (the request log) is read and dropped, so the server never waits on it.
      child.stdout!.resume();
      if (error === undefined) resolve(value!);
      else reject(error);
    };
    child.once('exit', onExit);
    child.stdout!.on('data', onData);
  });
}

async function stop(child: ChildProcess): Promise<Stopped> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, leftRunning: 0 };
  const group = processTree(child.pid!).slice(1);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const [code, signal] = await exited;
  clearTimeout(killer);
  await new Promise((resolve) => setTimeout(resolve, group.length > 0 ? ORPHAN_WAIT_MS : 0));
  const left = group.filter(alive);
  // Ours (the benchmark started them), so the benchmark ends them: by pid, each.
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return { code, signal, leftRunning: left.length };
}

/** Whether a process of the group still runs: not a zombie waiting to be reaped, nor its pid taken by another command since. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat[stat.lastIndexOf(')') + 2];
    return state !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(cliPath);
  } catch {
    return false;
  }
}

/** Keeps the last few KiB of standard error, for start-up failure messages. */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4000);
  });
  return () => text;
}
