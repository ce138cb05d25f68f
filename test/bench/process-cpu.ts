import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of /proc's time fields (getconf CLK_TCK; 100 on Linux nearly always). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * Fields 14 to 17 of /proc/<pid>/stat in clock ticks: utime, stime (the process's own, all
 * its threads) and cutime, cstime (its children it has waited for). The command name
 * (field 2) may hold spaces and parentheses, so fields are counted from the last ')'.
 */
function times(pid: number): { own: number; reapedChildren: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const field = (n: number) => Number(fields[n - 3]);
  return { own: field(14) + field(15), reapedChildren: field(16) + field(17) };
}

/** CPU time a process has used so far, user plus system, in seconds. */
export function cpuSeconds(pid: number): number {
  return times(pid).own / clockTicksPerSecond();
}

/**
 * CPU time a process and all its descendants have used so far, in seconds: a server
 * group's primary and its workers. Sampled before and after a run, a worker that appears in
 * between counts from 0; one that exits and is reaped in between still counts, through its
 * parent's cutime and cstime (every process's are added, so each CPU-second counts once).
 */
export function groupCpuSeconds(pid: number): number {
  let ticks = 0;
  // Parents before children: a child reaped between two reads is missed once rather than counted twice.
  for (const member of processTree(pid)) {
    try {
      const { own, reapedChildren } = times(member);
      ticks += own + reapedChildren;
    } catch {
      // Gone since it was listed: its parent's cutime holds it from the next sample on.
    }
  }
  return ticks / clockTicksPerSecond();
}

/** A process and its descendants, parents first; each thread's children are in /proc/<pid>/task/<tid>/children. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
  return tree;
}

function childrenOf(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone
  }
  return threads.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter((s) => s !== '').map(Number);
    } catch {
      return []; // the thread ended
    }
  });
}
