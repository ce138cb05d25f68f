import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Runs a command under `sh` with a watchdog: fd 3 is a pipe from this test process that
 * nobody writes to, so it reaches end-of-file exactly when this process is gone — however
 * it ended, SIGKILL included. The watchdog then kills the command, ends with status 0
 * (killed by us instead, it would not), and the shell removes the leftover directory
 * ($1, may be empty). The shell itself never writes to the pipes of a process that may be
 * dead (a SIGPIPE would end it before its cleanup), except its first line: the command's
 * pid, for signals aimed at it rather than at the shell.
 */
const watchdog = `
leftover=$1; shift
exec 3<&0 4>&2 2>/dev/null
"$@" 2>&4 3<&- 4>&- </dev/null &
child=$!
trap '' PIPE
echo "$child"
( while read -r _ <&3; do :; done; trap '' TERM; kill -KILL "$child" 2>/dev/null; exit 0 ) &
watcher=$!
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
wait "$watcher"
if [ $? -eq 0 ] && [ -n "$leftover" ]; then rm -rf "$leftover"; fi
exit "$status"
`;

export interface WatchedProcess {
  /** The watchdog shell: its stderr is the command's, its exit follows the command's. */
  readonly shell: ChildProcess;
  /** The command's own pid. */
  readonly pid: number;
}

/** Starts `command`, which cannot outlive this process; `leftover` is removed if this process dies first. */
export async function spawnWatched(command: string, args: readonly string[], leftover = ''): Promise<WatchedProcess> {
  const shell = spawn('sh', ['-c', watchdog, 'sh', leftover, command, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = await new Promise<number>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk;
      const line = /^(\d+)\n/.exec(text);
      if (line) {
        shell.stdout!.off('data', onData);
        resolve(Number(line[1]));
      }
    };
    shell.stdout!.on('data', onData);
    shell.once('error', reject);
    shell.once('exit', (code) => reject(new Error(`the watchdog shell exited with ${code} before starting ${command}`)));
  });
  return { shell, pid };
}

/** Lets the process end while `watched` still runs: only the watchdog's pipe ties them. */
export function unrefWatched({ shell }: WatchedProcess): void {
  for (const handle of [shell, shell.stdin, shell.stdout, shell.stderr] as unknown as { unref?(): void }[]) handle.unref?.();
}

export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

const exitCleanups = new Set<() => void>();

/**
 * Runs `cleanup` (synchronous) when the process ends: normally, on an uncaught failure, or
 * on Ctrl-C / SIGTERM / SIGHUP, after which the signal is raised again so the process still
 * ends the way it was told to. Returns the function that unregisters it.
 */
export function onProcessExit(cleanup: () => void): () => void {
  installHandlers();
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

let installed = false;

function installHandlers(): void {
  if (installed) return;
  installed = true;
  const runAll = () => {
    for (const cleanup of exitCleanups) cleanup();
    exitCleanups.clear();
  };
  process.once('exit', runAll);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const onSignal = (signal: NodeJS.Signals) => {
    runAll();
    for (const other of signals) process.removeListener(other, onSignal);
    process.kill(process.pid, signal);
  };
  for (const signal of signals) process.once(signal, onSignal);
}
