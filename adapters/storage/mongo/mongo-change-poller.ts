import type { Collection, Filter } from 'mongodb';
import { withDeadline } from './mongo-errors.js';
import { windowOf, type ChangeDocument } from './mongo-change-reader.js';

/** How often a storage with followers looks for changes other servers copied into the log. */
export const POLL_INTERVAL_MS = 200;

/**
 * Who waits for which sandbox's changes, in one process, and the one poll that wakes them: a
 * change this process copies wakes its sandbox's followers at once (notify); another server's
 * is found by a query every POLL_INTERVAL_MS while anyone follows (one per storage, whatever
 * the number of followers), reading the window again like a reader does and waking the
 * sandboxes with event ids it had not seen. A wake only says "read": a reader finds for itself
 * what is new, so a wake too many costs a read, never a repeat.
 */
export class ChangePoller {
  private readonly watchers = new Map<string, Set<() => void>>();
  /** Event ids seen by the polls, with their `at`, in the order seen. */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Counts the starts and stops of the polls, so a poll of an earlier run schedules nothing. */
  private run = 0;
  /** When the last poll that answered started: the next reads back the window from there. */
  private polledFrom: number | undefined;
  private closed = false;

  constructor(
    private readonly changes: Collection<ChangeDocument>,
    /** In the log's unit, microseconds. */
    private readonly now: () => number,
    private readonly timeoutMS: number,
  ) {}

  /** Calls `wake` after a change of `sandbox` may have come; returns the unsubscribe. */
  watch(sandbox: string, wake: () => void): () => void {
    let wakes = this.watchers.get(sandbox);
    if (wakes === undefined) this.watchers.set(sandbox, (wakes = new Set()));
    // Its own function, so one callback watching twice is unsubscribed once each.
    const entry = () => wake();
    wakes.add(entry);
    if (this.timer === undefined && !this.closed) {
      this.polledFrom ??= this.now();
      this.schedule();
    }
    return () => {
      wakes.delete(entry);
      if (wakes.size === 0 && this.watchers.get(sandbox) === wakes) this.watchers.delete(sandbox);
      if (this.watchers.size === 0) this.stop();
    };
  }

  /** A change of `sandbox` was copied into the log by this process. */
  notify(sandbox: string): void {
    for (const wake of this.watchers.get(sandbox) ?? []) wake();
  }

  close(): void {
    this.closed = true;
    this.stop();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.run++;
    // A later follower starts the polls afresh: the first wakes every sandbox with changes
    // in the window, which its readers find they have read.
    this.polledFrom = undefined;
    this.seen.clear();
  }

  private schedule(): void {
    const run = this.run;
    this.timer = setTimeout(() => void this.poll(run), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  private async poll(run: number): Promise<void> {
    const started = this.now();
    const from = Math.min(this.polledFrom ?? started, started) - windowOf(this.timeoutMS);
    try {
      const sandboxes = [...this.watchers.keys()];
      const filter = { sb: { $in: sandboxes }, at: { $gte: from } } as Filter<ChangeDocument>;
      const found = await withDeadline(this.timeoutMS, (signal) => this.changes.find(filter, { projection: { _id: 1, sb: 1, at: 1 }, maxTimeMS: this.timeoutMS, signal }).toArray());
      // Stopped meanwhile: this answer is for followers that left.
      if (run !== this.run) return;
      const woken = new Set<string>();
      for (const { _id, sb, at } of found) {
        if (this.seen.has(_id)) continue;
        this.seen.set(_id, at);
        woken.add(sb);
      }
      for (const [id, at] of this.seen) {
        if (at >= from) break;
        this.seen.delete(id);
      }
      this.polledFrom = started;
      for (const sandbox of woken) this.notify(sandbox);
    } catch {
      // The database did not answer: the next poll reads from the last good one on. Followers
      // hear of the failure from their own reads, when woken.
    }
    if (run === this.run) this.schedule();
  }
}
