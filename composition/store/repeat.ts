import type { Log } from '../../core/index.js';

/**
 * Runs `task` every `ms`, never two at once (a slow round delays the next rather than
 * overlapping it); a failure is logged as `failed` and the next round tries again. Returns the
 * stop, which waits for a round under way.
 */
export function repeat(ms: number, failed: string, log: Log, task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  const round = () => task().catch((error: unknown) => log.warn({ err: error }, failed));
  const timer = setInterval(() => (running ??= round().finally(() => (running = undefined))), ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
