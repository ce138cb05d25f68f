import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, dataDirFailure, prepareDataDir } from './data-dir.js';
import { isRunning } from './process-alive.js';

export const LOCK_FILE_NAME = 'plant-store.lock';

/** Another live process holds the data directory; the message names the directory and the pid. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';

  constructor(
    readonly directory: string,
    readonly pid: number,
  ) {
    super(`data directory ${directory} is in use by process ${pid} (lock file ${join(directory, LOCK_FILE_NAME)}); stop it first or choose another directory`);
  }
}

/**
 * One server per data directory: a lock file created exclusively, holding the owner's pid
 * (a server of several workers: its primary's, which the workers check).
 * A lock whose pid no longer runs (the owner was killed) is stale and is taken over, so a
 * crash never blocks a restart. (A pid reused by an unrelated process after a crash makes the
 * lock look held; the message names the pid so the operator can check and remove the file.)
 */
export class DataDirLock {
  private released = false;

  private constructor(private readonly path: string) {}

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
        return new DataDirLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirFailure(directory, 'cannot hold its lock file', error);
      }
      const holder = pidIn(path);
      if (holder !== undefined && isRunning(holder)) throw new DataDirInUseError(directory, holder);
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

  /** Removes the lock file if it is still this process's. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (pidIn(this.path) === process.pid) unlinkSync(this.path);
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
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
