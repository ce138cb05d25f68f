import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` runs on this machine (EPERM: it does, as another user's). A zombie —
 * dead, not yet reaped by its parent — does not: the workers of a group killed together are
 * reaped by whatever adopts them, which may take a while, and their leases must not wait.
 */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux's process state (field 3 of /proc/<pid>/stat) is Z; elsewhere (no /proc) never said. */
function isZombie(pid: number): boolean {
  return statFields(pid)?.[0] === 'Z';
}

/**
 * The fields of Linux's /proc/<pid>/stat from field 3 (the state) on: those after the command
 * name, which may hold spaces and parentheses itself. Undefined where it cannot be read.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started, in clock ticks since boot (Linux's /proc/<pid>/stat, field 22);
 * undefined where it cannot be read (another system, or no such process). With bootId, tells
 * a process from a later one given the same pid, whatever the wall clock did meanwhile.
 */
export function startTicks(pid: number): number | undefined {
  const ticks = Number(statFields(pid)?.[22 - 3]);
  return Number.isInteger(ticks) ? ticks : undefined;
}

/** This boot's id (Linux's /proc/sys/kernel/random/boot_id); undefined where there is none. */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
