import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** The data directory cannot be used; the message names it and says why, for the operator. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

const reasons: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOENT: 'it cannot be created there',
  ENOSPC: 'no space left on the device',
};

/**
 * Makes `directory` (absolute) and its missing parents, one level at a time: Node's own
 * recursive mkdir loops forever on some paths (under /proc, say), where one level at a time
 * fails at once. Every failure is a DataDirError naming the directory and the cause.
 */
export function prepareDataDir(directory: string): void {
  const missing: string[] = [];
  let path = directory;
  for (;;) {
    const found = statOf(directory, path);
    if (found !== undefined) {
      if (!found.isDirectory()) throw new DataDirError(`data directory ${directory}: ${path === directory ? 'it' : path} is not a directory`);
      break;
    }
    missing.unshift(path);
    if (dirname(path) === path) break;
    path = dirname(path);
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw dataDirFailure(directory, `cannot be created (at ${level})`, error);
    }
  }
}

/** What is at `path`; undefined when nothing is, or a file stands in the way above it (ENOTDIR). */
function statOf(directory: string, path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw dataDirFailure(directory, `cannot be read (at ${path})`, error);
  }
}

/** A file-system failure on the data directory, as one line naming it, what failed and why. */
export function dataDirFailure(directory: string, what: string, error: unknown): DataDirError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return new DataDirError(`data directory ${directory} ${what}: ${reasons[code] ?? (code || (error as Error).message)}`, { cause: error });
}
