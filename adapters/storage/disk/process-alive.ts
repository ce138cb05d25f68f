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

/** /proc reports times in clock ticks of 1/100 s (USER_HZ, 100 on every Linux architecture Node runs on). */
const TICK_MS = 10;

/**
 * When process `pid` started, in ms since the epoch (to about a second: the boot time is in
 * whole seconds), from Linux's /proc; undefined where it cannot be read (another system, or
 * no such process). Tells a process from a later one given the same pid, after a reboot say.
 */
export function startedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, starttime, in ticks since boot; the fields after the command name begin at field 3.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * TICK_MS : undefined;
  } catch {
    return undefined;
  }
}
