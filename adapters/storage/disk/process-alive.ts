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

/** Linux's process state (after the command name in /proc/<pid>/stat) is Z; elsewhere (no /proc) never said. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return false;
  }
}

/**
 * When process `pid` started, in clock ticks since boot (Linux's /proc/<pid>/stat, field 22);
 * undefined where it cannot be read (another system, or no such process). With bootId, tells
 * a process from a later one given the same pid, whatever the wall clock did meanwhile.
 */
export function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name begin at field 3.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** This boot's id (Linux's /proc/sys/kernel/random/boot_id); undefined where there is none. */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
