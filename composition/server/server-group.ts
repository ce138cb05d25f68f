import cluster, { type Address, type Worker } from 'node:cluster';
import { resolve } from 'node:path';
import type { Log } from '../../core/index.js';
import { DataDirLock } from '../../adapters/storage/disk/data-dir-lock.js';
import type { ServerConfig } from '../config/parse-config.js';
import { gatherGroupMetrics } from './group-metrics.js';
import { urlOf } from './server.js';
import { serverTokens } from './server-tokens.js';

/** A worker that dies sooner than this after it started is started again only after this long: a worker that cannot run does not spin. */
const RESTART_DELAY_MS = 1000;
/** Past the grace period, how long workers still closing their storage get before they are killed. */
const CLOSE_MARGIN_MS = 5000;

export interface ServerGroup {
  /** e.g. `http://127.0.0.1:3000` (no base path). */
  readonly url: string;
  /** The token made for this run because none was configured (the workers were given it); undefined otherwise. */
  readonly generatedToken: string | undefined;
  /**
   * Stops every worker (each finishes its open requests within `graceMs`, then closes its
   * storage), then releases the directory's lock. Answers whether every worker stopped cleanly.
   */
  stop(graceMs: number): Promise<boolean>;
}

/**
 * The primary of a server of several processes (`--workers`): it holds the data directory's
 * lock for the group, makes the run's token when none is configured, starts the workers
 * (this same command, run by Node's cluster module: they all serve the one port, and the
 * primary hands each new connection to the next worker free to take it), starts again any worker
 * that dies, and stops them all on SIGTERM. It opens no storage and serves no request.
 *
 * Resolves once every worker listens; rejects when one stops before it does (its own line
 * on standard error says why), after stopping the others.
 */
export async function startServerGroup(config: ServerConfig, log: Log): Promise<ServerGroup> {
  const { workers } = config.server;
  const storage = config.storage;
  let lock: DataDirLock | undefined;
  if (storage !== undefined && 'dataDir' in storage) {
    // The group's lock: a separate server on the directory is refused as before.
    lock = DataDirLock.prepareAndAcquire(resolve(storage.dataDir));
  }
  try {
    const { tokens, generated } = serverTokens(config.access);
    const generatedToken = generated ? tokens[0]!.token : undefined;
    // The workers read the configuration as the primary did; a generated token is handed to
    // them as configured, so every worker accepts the one token shown to the operator.
    const env: Record<string, string> = generatedToken === undefined ? {} : { PLANT_STORE_TOKENS: generatedToken };
    // With metrics on, a scrape taken by any worker answers the whole group's (group-metrics.ts).
    if (config.http.metrics) await gatherGroupMetrics();
    const supervisor = new Supervisor(workers, env, log, lock);
    const address = await supervisor.started();
    return {
      url: urlOf(address.address, address.port, address.addressType === 6),
      generatedToken,
      stop: async (graceMs) => {
        try {
          return await supervisor.stop(graceMs);
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** Starts the workers, starts again those that die, and stops them all. */
class Supervisor {
  private readonly running = new Set<Worker>();
  private stopping = false;
  /** Set once every first worker listens: from then on a worker that dies is started again. */
  private up = false;
  private readonly ready: Promise<Address>;

  constructor(
    count: number,
    private readonly env: Record<string, string>,
    private readonly log: Log,
    /** The data directory's lock, which lists the workers running (for a start after this primary is killed). */
    private readonly lock: DataDirLock | undefined,
  ) {
    this.ready = new Promise((resolveReady, rejectReady) => {
      let listening = 0;
      for (let i = 0; i < count; i++) {
        this.startWorker(undefined, {
          listening: (address) => {
            if (++listening !== count) return;
            this.up = true;
            resolveReady(address);
          },
          // Answered once the other workers have stopped: the lock is released after that.
          failed: (worker, how) => {
            const failure = new Error(`worker ${worker.process.pid} stopped before it listened (${how}); see its line above`);
            void this.stop(0).then(() => rejectReady(failure));
          },
        });
      }
    });
  }

  started(): Promise<Address> {
    return this.ready;
  }

  private noteWorkers(): void {
    try {
      this.lock?.noteWorkers([...this.running].flatMap((worker) => worker.process.pid ?? []));
    } catch (error) {
      // The group runs on; only a start after this primary is killed waits less for its workers.
      this.log.warn({ err: error }, 'could not list the workers beside the data directory\'s lock');
    }
  }

  async stop(graceMs: number): Promise<boolean> {
    this.stopping = true;
    const exits = [...this.running].map(
      (worker) =>
        new Promise<boolean>((resolveExit) => {
          const kill = setTimeout(() => worker.process.kill('SIGKILL'), graceMs + CLOSE_MARGIN_MS);
          worker.once('exit', (code) => {
            clearTimeout(kill);
            resolveExit(code === 0);
          });
          worker.process.kill('SIGTERM');
        }),
    );
    return (await Promise.all(exits)).every(Boolean);
  }

  /**
   * Forks a worker. Until the group is up, the first workers report to `start`; after, a
   * worker that stops is logged and started again (after RESTART_DELAY_MS when it ran less
   * than that, or never listened).
   */
  private startWorker(
    replacing: number | undefined,
    start?: { listening(address: Address): void; failed(worker: Worker, how: string): void },
  ): void {
    const worker = cluster.fork(this.env);
    const startedAt = Date.now();
    let listened = false;
    this.running.add(worker);
    this.noteWorkers();
    worker.once('listening', (address) => {
      listened = true;
      if (replacing !== undefined) this.log.info({ worker: worker.id, pid: worker.process.pid }, `worker ${worker.process.pid} listening, in place of ${replacing}`);
      start?.listening(address);
    });
    worker.once('exit', (code, signal) => {
      this.running.delete(worker);
      this.noteWorkers();
      if (this.stopping) return;
      const how = signal !== null ? `signal ${signal}` : `exit code ${code}`;
      const pid = worker.process.pid;
      if (!this.up && start !== undefined) return start.failed(worker, how);
      const delay = !listened || Date.now() - startedAt < RESTART_DELAY_MS ? RESTART_DELAY_MS : 0;
      this.log.error({ worker: worker.id, pid, code, signal }, `worker ${pid} stopped (${how}${listened ? '' : ', before it listened'}); starting another${delay > 0 ? ` in ${delay} ms` : ''}`);
      setTimeout(() => {
        if (!this.stopping) this.startWorker(pid);
      }, delay);
    });
  }
}
