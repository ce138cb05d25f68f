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
