import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
 * CPU time a process has used so far, user plus system, in seconds: fields 14 (utime) and
 * 15 (stime) of /proc/<pid>/stat. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last ')'.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return (utime + stime) / clockTicksPerSecond();
}
