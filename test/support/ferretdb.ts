import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { MongoClient } from 'mongodb';
import { eventually } from './eventually.js';
import { freePort } from './free-port.js';
import { tempDir, type TempDir } from './temp-dir.js';
import { killQuietly, onProcessExit, spawnWatched, unrefWatched, type WatchedProcess } from './watched-process.js';

const READY_TIMEOUT_MS = 20_000;

export interface FerretDbOptions {
  /** Default: a free loopback port. */
  readonly port?: number;
  /** Default: a new temporary directory, removed by dispose() (or at exit, whatever happens). */
  readonly dataDir?: string;
}

/**
 * A throwaway FerretDB on SQLite, on a loopback port and a data directory it keeps across
 * stop() and start(), so a test can take the database away and bring it back as it was.
 * It never outlives the test process (see watched-process.ts).
 */
export class FerretDb {
  static async launch(binary: string, options: FerretDbOptions = {}): Promise<FerretDb> {
    const port = options.port ?? (await freePort());
    const ownDataDir = options.dataDir === undefined ? tempDir('plant-store-ferretdb-') : undefined;
    const instance = new FerretDb(binary, port, options.dataDir ?? ownDataDir!.path, ownDataDir);
    try {
      await instance.start();
    } catch (error) {
      await instance.dispose();
      throw error;
    }
    return instance;
  }

  /** Connection string without a database: each user picks its own. */
  readonly uri: string;
  private process: WatchedProcess | undefined;
  private log = '';
  private readonly forgetAtExit: () => void;

  private constructor(
    private readonly binary: string,
    readonly port: number,
    readonly dataDir: string,
    /** The directory made for this instance, when none was given. */
    private readonly ownDataDir: TempDir | undefined,
  ) {
    this.uri = `mongodb://127.0.0.1:${port}/`;
    this.forgetAtExit = onProcessExit(() => this.killNow());
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts the database (again) on the same port and data directory; resolves once it answers. */
  async start(): Promise<void> {
    if (this.process !== undefined) throw new Error('FerretDB is already running');
    const args = [
      '--handler=sqlite',
      `--sqlite-url=file:${this.dataDir}/`,
      `--listen-addr=127.0.0.1:${this.port}`,
      `--state-dir=${this.dataDir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=ERROR',
    ];
    this.log = '';
    const started = await spawnWatched(this.binary, args, this.ownDataDir?.path ?? '');
    this.process = started;
    started.shell.stderr!.on('data', (chunk) => (this.log = (this.log + chunk).slice(-4000)));
    started.shell.once('exit', () => {
      if (this.process === started) this.process = undefined;
    });
    await this.waitUntilReady(started);
    // A running database must not keep the test run from ending; exit cleanup stops it.
    unrefWatched(started);
  }

  /**
   * Stops the database, keeping its data: SIGTERM, then SIGKILL after 1 s. (FerretDB lets
   * connected clients finish for 3 s; tests need not wait, as SQLite has committed every
   * acknowledged write already.)
   */
  async stop(): Promise<void> {
    await this.signalAndWait('SIGTERM', 1000);
  }

  /** Kills the database as a crash would (SIGKILL), keeping whatever it had made durable. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL', 5000);
  }

  /**
   * Freezes the process, like a stuck server: connections stay open and nothing answers.
   * Resolves once every one of its threads is stopped: SIGSTOP is delivered asynchronously,
   * and a thread still running could answer one more request.
   */
  async pause(): Promise<void> {
    if (this.process === undefined) return;
    const { pid } = this.process;
    killQuietly(pid, 'SIGSTOP');
    if (!existsSync('/proc/self/task')) {
      // No /proc to watch (not Linux): give the signal time to land.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return;
    }
    await eventually(() => allThreadsStopped(pid), { what: `FerretDB (pid ${pid}) to stop after SIGSTOP`, timeoutMs: 5000, intervalMs: 5 });
  }

  resume(): void {
    if (this.process !== undefined) killQuietly(this.process.pid, 'SIGCONT');
  }

  /** Stops the database and removes a data directory it created. */
  async dispose(): Promise<void> {
    await this.stop();
    this.forgetAtExit();
    this.ownDataDir?.remove();
  }

  private async signalAndWait(signal: NodeJS.Signals, graceMS: number): Promise<void> {
    const running = this.process;
    if (running === undefined) return;
    const exited = once(running.shell, 'exit');
    running.shell.ref(); // while we wait for it
    killQuietly(running.pid, 'SIGCONT'); // a paused process would not act on SIGTERM
    killQuietly(running.pid, signal);
    const timer = setTimeout(() => killQuietly(running.pid, 'SIGKILL'), graceMS);
    await exited;
    clearTimeout(timer);
  }

  private async waitUntilReady(started: WatchedProcess): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const exited = once(started.shell, 'exit').then(() => {
      throw new Error(`FerretDB exited at start: ${lastLine(this.log)}`);
    });
    exited.catch(() => {});
    const ready = (async () => {
      // Cheap TCP probes until the port listens, then one ping through the driver to be
      // sure it speaks the protocol.
      await eventually(
        async () => {
          if (this.process !== started) throw new Error(`FerretDB was stopped before it listened on port ${this.port}: ${lastLine(this.log)}`);
          return accepts(this.port);
        },
        { what: `FerretDB to listen on port ${this.port}`, context: () => lastLine(this.log), timeoutMs: READY_TIMEOUT_MS, intervalMs: 50 },
      );
      const client = new MongoClient(this.uri, { serverSelectionTimeoutMS: Math.max(1000, deadline - Date.now()) });
      try {
        await client.db('admin').command({ ping: 1 });
      } finally {
        await client.close();
      }
    })();
    try {
      await Promise.race([ready, exited]);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Synchronous, for process exit: no graceful shutdown, just no leftovers. */
  private killNow(): void {
    if (this.process !== undefined) {
      killQuietly(this.process.pid, 'SIGKILL');
      if (this.process.shell.pid !== undefined) killQuietly(this.process.shell.pid, 'SIGKILL');
    }
    this.ownDataDir?.remove();
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() || 'no output';
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether every thread of a process is in the stopped state (`T` in /proc/…/stat). */
function allThreadsStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  } catch {
    return false; // a thread ended between the listing and the read: look again
  }
}
