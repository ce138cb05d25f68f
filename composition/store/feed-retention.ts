import type { ChangeRetention, Log } from '../../core/index.js';
import { repeat } from './repeat.js';

/** How long the change log keeps a change, by default: a client offline for a day still resumes. */
export const DEFAULT_FEED_RETENTION_MS = 24 * 3_600_000;

/** Changes forgotten per storage call: a long backlog is pruned in steps, between requests. */
const PRUNE_BATCH = 5_000;
/** How often a storage that records changes in two steps finishes those a stopped writer left (recoverStranded). */
const STRANDED_SWEEP_MS = 5_000;
/** Changes finished per storage call. */
const STRANDED_BATCH = 100;

/**
 * Forgets the changes older than `retentionMs`, every sandbox's, now and then: often enough
 * that the log holds little more than retention (a quarter of it, at most a minute, apart).
 * Changes are stamped with the wall clock where they are recorded, so this reads the same
 * clock. Where the storage records changes in two steps, it also finishes every few seconds
 * those a stopped writer left half-recorded. Returns the stop.
 */
export function startFeedRetention(retention: ChangeRetention, retentionMs: number, log: Log): () => Promise<void> {
  const stops = [
    repeat(Math.max(100, Math.min(60_000, Math.floor(retentionMs / 4))), 'pruning the change log failed', log, async () => {
      while ((await retention.pruneBefore(Date.now() - retentionMs, PRUNE_BATCH)) === PRUNE_BATCH) await new Promise((resolve) => setImmediate(resolve));
    }),
  ];
  const { recoverStranded } = retention;
  if (recoverStranded !== undefined) {
    stops.push(
      repeat(STRANDED_SWEEP_MS, 'recording changes left by a stopped writer failed', log, async () => {
        while ((await recoverStranded.call(retention, STRANDED_BATCH)) === STRANDED_BATCH) await new Promise((resolve) => setImmediate(resolve));
      }),
    );
  }
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
