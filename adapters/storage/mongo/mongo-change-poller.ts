import type { Collection, Filter } from 'mongodb';
import { withDeadline } from './mongo-errors.js';
import { forgetBefore, windowOf, type ChangeDocument, type LateChanges } from './mongo-change-reader.js';
import { SandboxWatchers } from '../sandbox-watchers.js';

/** How often a storage with followers looks for changes other servers copied into the log. */
const POLL_INTERVAL_MS = 200;
/** Late changes noted per sandbox: more are folded into the oldest. */
const NOTES_KEPT = 64;

/**
 * Who waits for which sandbox's changes, in one process, and the one poll that wakes them: a
 * change this process copies wakes its sandbox's followers at once (notify); another server's
 * is found by a query every POLL_INTERVAL_MS while anyone follows (one per storage, whatever
 * the number of followers), reading the window again like a reader does and waking the
 * sandboxes with event ids it had not seen. A wake only says "read": a reader finds for itself
 * what is new, so a wake too many costs a read, never a repeat. Each poll also notes, per
 * sandbox, the earliest `at` of what it had not seen (LateChanges): a change that landed
 * behind where a reader got to (another server's clock behind, a copy slower than a later
 * one) is read back to there, rather than every read going back the whole window.
 */
export class ChangePoller implements LateChanges {
  private readonly watchers = new SandboxWatchers(() => this.stop());
  /** Event ids seen by the polls, with their `at`, in the order seen. */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Counts the starts and stops of the polls, so a poll of an earlier run schedules nothing. */
  private run = 0;
  /** When the last poll that answered started: the next reads back the window from there. */
  private polledFrom: number | undefined;
  private closed = false;
  /** Late changes noted, by sandbox, oldest first (at most NOTES_KEPT each). */
  private readonly notes = new Map<string, { seq: number; at: number }[]>();
  /** The number of the latest note, of any sandbox. */
  private noteSeq = 0;
  /** Notes up to this number are forgotten: a reader that had not covered them reads its whole window. */
  private forgotten = 0;

  constructor(
    private readonly changes: Collection<ChangeDocument>,
    /** In the log's unit, microseconds. */
    private readonly now: () => number,
    private readonly timeoutMS: number,
  ) {}

  /** Calls `wake` after a change of `sandbox` may have come; returns the unsubscribe. */
  watch(sandbox: string, wake: () => void): () => void {
    const unwatch = this.watchers.watch(sandbox, wake);
    if (this.timer === undefined && !this.closed) {
      this.polledFrom ??= this.now();
      this.schedule();
    }
    return unwatch;
  }

  /** A change of `sandbox` was copied into the log by this process. */
  notify(sandbox: string): void {
    this.watchers.wake([sandbox]);
  }

  since(sandbox: string, since: number): { latest: number; from: number | undefined } {
    // Nobody follows, so nothing polls: a reader read on its own reads its whole window.
    if (since < this.forgotten || this.watchers.size === 0 || this.closed) return { latest: this.noteSeq, from: -Infinity };
    let from: number | undefined;
    for (const note of this.notes.get(sandbox) ?? []) if (note.seq > since) from = Math.min(from ?? Infinity, note.at);
    return { latest: this.noteSeq, from };
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
    this.forgetNotes();
  }

  private forgetNotes(): void {
    this.notes.clear();
    this.forgotten = this.noteSeq;
  }

  /** Notes a change of `sandbox` stamped `at` that may be behind where readers got to. */
  note(sandbox: string, at: number): void {
    let notes = this.notes.get(sandbox);
    if (notes === undefined) this.notes.set(sandbox, (notes = []));
    notes.push({ seq: ++this.noteSeq, at });
    // Folding the oldest into the next keeps its `at` for every reader that had not covered it.
    if (notes.length > NOTES_KEPT) {
      const oldest = notes.shift()!;
      notes[0]!.at = Math.min(notes[0]!.at, oldest.at);
    }
  }

  private schedule(): void {
    const run = this.run;
    this.timer = setTimeout(() => void this.poll(run), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  private async poll(run: number): Promise<void> {
    const started = this.now();
    const window = windowOf(this.timeoutMS);
    // After polls that failed, no further back than two windows: readers then read their
    // whole window (forgetNotes), as a poll that missed nothing would have had them do.
    const from = Math.max(Math.min(this.polledFrom ?? started, started) - window, started - 2 * window);
    try {
      const sandboxes = this.watchers.sandboxes();
      const filter = { sb: { $in: sandboxes }, at: { $gte: from } } as Filter<ChangeDocument>;
      const found = await withDeadline(this.timeoutMS, (signal) => this.changes.find(filter, { projection: { _id: 1, sb: 1, at: 1 }, maxTimeMS: this.timeoutMS, signal }).toArray());
      // Stopped meanwhile: this answer is for followers that left.
      if (run !== this.run) return;
      const woken = new Map<string, number>();
      for (const { _id, sb, at } of found) {
        if (this.seen.has(_id)) continue;
        this.seen.set(_id, at);
        woken.set(sb, Math.min(woken.get(sb) ?? Infinity, at));
      }
      forgetBefore(this.seen, from);
      // Notes are kept two windows at most (then a reader that had not covered one reads its
      // whole window once): the number kept stays small however long a follower stays.
      if (from === started - 2 * window || [...this.notes.values()].some((notes) => notes[0]!.at < from - window)) this.forgetNotes();
      for (const [sandbox, at] of woken) this.note(sandbox, at);
      this.polledFrom = started;
      for (const sandbox of woken.keys()) this.notify(sandbox);
    } catch {
      // The database did not answer: the next poll reads from the last good one on. Followers
      // hear of the failure from their own reads, when woken.
    }
    if (run === this.run) this.schedule();
  }
}
