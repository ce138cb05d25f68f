import type { PlantChange } from '../feed/plant-change.js';

/**
 * The retained, ordered changes of one sandbox. The storage records each change in the same
 * atomic write as the change itself, so the log never shows a change that did not happen
 * and (memory, disk) never misses one that did; how long it keeps them is retention's
 * (`pruneBefore`). The change feed reads it; it is not written through this port.
 */
export interface ChangeLog {
  /**
   * A reader positioned after `cursor`, or at the newest change when none is given.
   * `reset`: the cursor is unknown, malformed, from another storage, or older than what the
   * log retains, so the reader starts at the newest change instead (the client re-reads
   * the list, then follows).
   */
  open(cursor: string | undefined): Promise<{ readonly reader: ChangeReader; readonly reset: boolean }>;
  /**
   * Calls `wake` after a change of this sandbox may have been recorded (by this process at
   * once; by another server sharing the storage, when the storage polls for them). Returns
   * the unsubscribe.
   */
  watch(wake: () => void): () => void;
}

/** One follower's place in a sandbox's change log. */
export interface ChangeReader {
  /** Where a client that received nothing since resumes from: the cursor of the last change read. */
  readonly position: string;
  /** The next changes after the position, oldest first, at most `limit`; [] when none is there yet. */
  next(limit: number): Promise<PlantChange[]>;
}

/** Retention: what the store's sweeper asks of a storage's log (every sandbox's). */
export interface ChangeRetention {
  /** Forgets the changes recorded before `time` (ms since the epoch), at most `limit`; answers how many. */
  pruneBefore(time: number, limit: number): Promise<number>;
  /**
   * Optional, for a storage that records a change in two steps (MongoDB, without
   * transactions): finishes recording the changes whose writer stopped between them, at most
   * `limit`; answers how many it finished (the sweeper calls again while that is `limit`, so
   * one it cannot finish is not counted). The sweeper calls it every few seconds.
   */
  recoverStranded?(limit: number): Promise<number>;
}
