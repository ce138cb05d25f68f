/** Messages between the benchmark runner and the server processes it starts (over IPC). */
export type ToServer = { type: 'memory' } | { type: 'commits' } | { type: 'stop' };

export type FromServer =
  | { type: 'ready'; port: number; plants: number; preloadSeconds: number; storage: string }
  | { type: 'memory'; rss: number; heapUsed: number; heapTotal: number; external: number; forcedGc: boolean }
  /** Plants created since the last ask and when each was committed (ms on the monotonic clock, the same in every process). */
  | { type: 'commits'; ids: number[]; atMs: number[] }
  | { type: 'failed'; message: string };

/** The monotonic clock in ms: the same in every process of the machine, so times taken in a server and in the runner compare. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Sends a message to the parent; a child started without IPC has nobody to tell. */
export function tellParent(message: FromServer): void {
  process.send?.(message);
}

/**
 * Answers `memory` (after a forced GC when the process runs with --expose-gc), `commits`
 * (from `takeCommits`; none for a server that does not note them) and `stop`.
 */
export function answerParent(stop: () => Promise<void>, takeCommits: () => { ids: number[]; atMs: number[] } = () => ({ ids: [], atMs: [] })): void {
  process.on('message', (message: ToServer) => {
    if (message.type === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc;
      // Twice: the first pass may only queue finalizers, the second frees what they release.
      gc?.();
      gc?.();
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      tellParent({ type: 'memory', rss, heapUsed, heapTotal, external, forcedGc: gc !== undefined });
    } else if (message.type === 'commits') {
      tellParent({ type: 'commits', ...takeCommits() });
    } else if (message.type === 'stop') {
      stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }
  });
  // The runner went away: do not linger as an orphan holding a port.
  process.on('disconnect', () => process.exit(0));
}
