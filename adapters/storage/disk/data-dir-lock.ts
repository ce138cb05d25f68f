import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, dataDirFailure, prepareDataDir } from './data-dir.js';
import { bootId, isRunning, startTicks } from './process-alive.js';

export const LOCK_FILE_NAME = 'plant-store.lock';
/**
 * Beside the lock of a server group (`--workers`), kept by its primary: `boot <id>`, then its
 * workers one a line, `<pid> <start ticks>` (the pid alone where /proc cannot be read).
 */
export const WORKERS_FILE_NAME = 'plant-store.workers';

/**
 * How long a start waits for the workers of a group whose primary is gone (its lock stale)
 * to be gone too. Such a worker stops within 0.5 s of noticing (composition/cli.ts), which
 * took up to 0.2 s in tests; until then it may still commit writes.
 */
const WORKERS_WAIT_MS = 3000;
const WORKERS_POLL_MS = 20;

/** Another live process holds the data directory; the message names the directory and the pid. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';

  constructor(
    readonly directory: string,
    readonly pid: number,
    /** A worker still running after its group's primary `workerOf` stopped. */
    readonly workerOf?: number,
  ) {
    const file = workerOf === undefined ? `lock file ${join(directory, LOCK_FILE_NAME)}` : `a worker of process ${workerOf}, which stopped; ${join(directory, WORKERS_FILE_NAME)}`;
    super(`data directory ${directory} is in use by process ${pid} (${file}); stop it first or choose another directory`);
  }
}

/**
 * One server per data directory: a lock file created exclusively, holding the owner's pid
 * (a server of several workers: its primary's, which the workers check).
 * A lock whose pid no longer runs (the owner was killed) is stale and is taken over, so a
 * crash never blocks a restart. (A pid reused by an unrelated process after a crash makes the
 * lock look held; the message names the pid so the operator can check and remove the file.)
 *
 * A group's primary also lists its workers (noteWorkers, WORKERS_FILE_NAME). When its lock
 * is stale, the next start waits until every worker listed there is gone (WORKERS_WAIT_MS at
 * most, then it is refused naming the one still running): a worker may still commit for a
 * moment after its primary died, and the new server, the directory's only writer as far as
 * it knows, must not begin beside it. A listed pid counts only while the same boot's same
 * process holds it (its start time in ticks since boot): after a reboot a service may well
 * be given the pids its previous run had, even its own.
 */
export class DataDirLock {
  private released = false;

  private constructor(
    private readonly path: string,
    private readonly directory: string,
  ) {}

  /** Makes the directory (and its parents) if missing, then takes its lock: what a server or an import does first. */
  static prepareAndAcquire(directory: string): DataDirLock {
    prepareDataDir(directory);
    return DataDirLock.acquire(directory);
  }

  /** Takes the lock or throws DataDirInUseError; other failures (permissions…) as a DataDirError naming the directory. */
  static acquire(directory: string): DataDirLock {
    const path = join(directory, LOCK_FILE_NAME);
    const mine = `${process.pid}\n`;
    // A few rounds: each lost race against another starter is re-examined from the start.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        writeFileSync(path, mine, { flag: 'wx' });
        // A list left by the stale owner's group names processes gone by now (waited for below).
        rmSync(join(directory, WORKERS_FILE_NAME), { force: true });
        return new DataDirLock(path, directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirFailure(directory, 'cannot hold its lock file', error);
      }
      const holder = pidIn(path);
      if (holder !== undefined && isRunning(holder)) throw new DataDirInUseError(directory, holder);
      if (!workersGone(directory, path, holder)) continue;
      takeOverStale(path, holder);
    }
    const holder = pidIn(path);
    throw new DataDirInUseError(directory, holder ?? 0);
  }

  /**
   * For a worker of a server group, whose primary (`holder`, its parent) took the lock: throws
   * a DataDirError unless the lock file names it, so a worker never writes to a directory
   * its group does not hold.
   */
  static checkHeldBy(directory: string, holder: number): void {
    const found = pidIn(join(directory, LOCK_FILE_NAME));
    if (found !== holder) {
      throw new DataDirError(`data directory ${directory} is not held by this worker's server (process ${holder}); its lock file names ${found === undefined ? 'no process' : `process ${found}`}`);
    }
  }

  /** For a group's primary: the workers now running, written whole (renamed into place) each time they change. */
  noteWorkers(pids: readonly number[]): void {
    if (this.released) return;
    const file = join(this.directory, WORKERS_FILE_NAME);
    const next = `${file}.${process.pid}`;
    const boot = bootId();
    const lines = pids.map((pid) => {
      const ticks = startTicks(pid);
      return ticks === undefined ? `${pid}\n` : `${pid} ${ticks}\n`;
    });
    writeFileSync(next, (boot === undefined ? '' : `boot ${boot}\n`) + lines.join(''));
    renameSync(next, file);
  }

  /** Removes the lock file (and the workers' list) if it is still this process's. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (pidIn(this.path) !== process.pid) return;
    rmSync(join(this.directory, WORKERS_FILE_NAME), { force: true });
    unlinkSync(this.path);
  }
}

/**
 * Waits while a worker of the stale lock's group (WORKERS_FILE_NAME) still runs: true once
 * none does; false when the lock changed meanwhile (another start took it: look again).
 * Throws DataDirInUseError naming a worker still running after WORKERS_WAIT_MS.
 */
function workersGone(directory: string, lockPath: string, holder: number | undefined): boolean {
  const deadline = Date.now() + WORKERS_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    if (pidIn(lockPath) !== holder) return false;
    const running = workersRunning(join(directory, WORKERS_FILE_NAME));
    if (running.length === 0) return true;
    if (Date.now() >= deadline) throw new DataDirInUseError(directory, running[0]!, holder);
    // Start-up only, before anything else runs: a synchronous pause is fine here.
    Atomics.wait(pause, 0, 0, WORKERS_POLL_MS);
  }
}

/**
 * Moves the stale file aside (rename is atomic), then checks that what was moved is the stale
 * lock that was examined: if another starter had replaced it meanwhile, its lock is put back.
 */
function takeOverStale(path: string, stalePid: number | undefined): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else took it over
    throw error;
  }
  if (pidIn(aside) !== stalePid) {
    try {
      linkSync(aside, path);
    } catch {
      // a third starter created a lock meanwhile: it stands, the next round sees it
    }
  }
  unlinkSync(aside);
}

function pidIn(path: string): number | undefined {
  const text = textIn(path);
  return text === undefined ? undefined : pidOf(text);
}

/**
 * The processes listed in the workers file `path` that still run: none if the machine booted
 * since; else each listed pid still held by the process listed (the same start ticks), this
 * one never.
 */
function workersRunning(path: string): number[] {
  const text = textIn(path) ?? '';
  let boot: string | undefined;
  const listed: { pid: number; ticks: number | undefined }[] = [];
  for (const line of text.split('\n')) {
    const [first, second] = line.trim().split(' ');
    if (first === 'boot') boot = second;
    else {
      const pid = pidOf(first ?? '');
      if (pid !== undefined) listed.push({ pid, ticks: second === undefined ? undefined : Number(second) });
    }
  }
  const booted = bootId();
  if (boot !== undefined && booted !== undefined && boot !== booted) return [];
  return listed.filter(({ pid, ticks }) => pid !== process.pid && isRunning(pid) && (ticks === undefined || startTicks(pid) === ticks)).map(({ pid }) => pid);
}

/** The file's text; undefined when it cannot be read (gone, say). */
function textIn(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function pidOf(text: string): number | undefined {
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
