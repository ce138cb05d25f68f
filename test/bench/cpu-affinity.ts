/**
 * CPU affinity through `taskset` (util-linux): which CPUs a process may run on, pinning a
 * running process (every thread), and the command prefix that starts one pinned. Node has
 * no affinity API of its own.
 */
import { execFileSync } from 'node:child_process';

/** Why `taskset` cannot be used here, or undefined when it can. */
export function tasksetMissing(): string | undefined {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'taskset (util-linux) is not installed';
  }
}

/** The CPUs `pid` may run on, from `taskset -p -c` ("pid 42's current affinity list: 0-3,6"). */
export function allowedCpus(pid: number): number[] {
  const output = execFileSync('taskset', ['-p', '-c', String(pid)], { encoding: 'utf8' });
  const list = /list:\s*(\S+)/.exec(output)?.[1];
  if (list === undefined) throw new Error(`unexpected output of taskset -p -c: ${output.trim()}`);
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
  });
}

/** A list taskset reads: "0,2,3". */
export const cpuList = (cpus: readonly number[]) => cpus.join(',');

/** Pins every thread of a running process to `cpus` (threads it starts later inherit it). */
export function pinProcess(pid: number, cpus: readonly number[]): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpuList(cpus), String(pid)], { stdio: 'ignore' });
}

/** `command` started on `cpus` only: taskset sets its affinity and execs it, so the pid is the command's. */
export const pinnedCommand = (cpus: readonly number[], command: readonly string[]) => ['taskset', '-c', cpuList(cpus), ...command];
