import { randomBytes } from 'node:crypto';
import { DEFAULT_SANDBOX, plantCreated, plantDeleted, type ChangeLog, type ChangeReader, type ChangeRetention, type PlantChange, type PlantEvent } from '../../../core/index.js';
import { newCursorKey, SequenceCursors } from '../sequence-cursor.js';

/** A created plant's fields as the trees keep them: the log holds the same frozen object. */
export interface CreatedFields {
  readonly name: string;
  readonly tag?: string;
}

/**
 * One sandbox's changes: their sequence numbers, in order, and who waits for the next. What
 * each change was is kept once, storage-wide (see MemoryChangeLogs).
 */
class SandboxLog {
  sequences: number[] = [];
  /** Index in `sequences` of the first number still retained: pruning moves it, and compacts now and then. */
  start = 0;
  /**
   * A cursor below this number has missed changes: the highest of this sandbox's numbers
   * forgotten by retention, or, after drop, the storage's next number.
   */
  prunedThrough = 0;
  /** Made with the first follower: most sandboxes of a playground never have one. */
  waiting: Set<() => void> | undefined;
}

/**
 * The change logs of one memory storage, every sandbox's, lost with the process like the
 * plants. One sequence for the storage: a change's number is its commit order, since every
 * change is recorded in the same synchronous step as the change itself. The log's id and
 * key are random per storage, so a cursor from before a restart is told apart (a reset).
 *
 * What a change was is kept in columns, storage-wide, at its sequence number less `first`:
 * when, which plant, and the created plant's fields (the same frozen object the trees hold).
 * A sandbox's log holds only its changes' numbers. So a change is three numbers and a
 * reference, as when each sandbox kept all four columns (as an object with its event and the
 * event's data a change took about 120 more bytes: 298 MB of heap after a million creates,
 * 178 in columns), and a create writes the ends of three storage-wide arrays and one of its
 * sandbox's. With four columns in every sandbox's log, 50 busy sandboxes cost W2 about 3 %
 * more server CPU a create (measured side by side), though the instructions counted a
 * create differed by under 1 %. Events are made when read.
 */
export class MemoryChangeLogs implements ChangeRetention {
  private readonly cursors = new SequenceCursors(randomBytes(4).toString('hex'), newCursorKey());
  private sequence = 0;
  private readonly logs = new Map<string, SandboxLog>();
  /** When each change was recorded, ms since the epoch. */
  private ats: number[] = [];
  private ids: number[] = [];
  /** The created plant's fields; undefined for a deletion (and for a dropped sandbox's change). */
  private created: (CreatedFields | undefined)[] = [];
  /** The sequence number of the columns' index 0. */
  private first = 1;
  /** Index in the columns of the first change still retained. */
  private start = 0;

  /**
   * What records `sandbox`'s changes: call it in the same synchronous step as the change,
   * plant `id` created with `created` (frozen), or deleted. Its log is found here, once, not
   * on every change (a sandbox's log is kept for the storage's life: see drop).
   */
  recorderOf(sandbox: string): (id: number, created: CreatedFields | undefined) => void {
    const log = this.logOf(sandbox);
    return (id, created) => {
      log.sequences.push(++this.sequence);
      this.ats.push(Date.now());
      this.ids.push(id);
      this.created.push(created);
      if (log.waiting !== undefined) for (const wake of log.waiting) wake();
    };
  }

  /**
   * Forgets a sandbox's changes when it is gone (purged): its followers' cursors now reset, and
   * the plants its changes held are let go now; their times and ids stay in the columns until
   * retention prunes them (and are counted then). Its log stays, emptied, for its recorder.
   */
  drop(sandbox: string): void {
    const log = this.logs.get(sandbox);
    if (log === undefined) return;
    for (let i = log.start; i < log.sequences.length; i++) this.created[log.sequences[i]! - this.first] = undefined;
    log.sequences = [];
    log.start = 0;
    // Past the newest number: even a cursor of the sandbox's last change resets.
    log.prunedThrough = this.sequence + 1;
  }

  async pruneBefore(time: number, limit: number): Promise<number> {
    const from = this.start;
    // A pruned change's plant is let go at once, not when the columns are next compacted.
    while (this.start - from < limit && this.start < this.ats.length && this.ats[this.start]! < time) this.created[this.start++] = undefined;
    const pruned = this.start - from;
    if (pruned === 0) return 0;
    // Each sandbox forgets its numbers of the pruned changes: O(sandboxes + pruned) a call.
    const firstRetained = this.first + this.start;
    for (const log of this.logs.values()) {
      const before = log.start;
      while (log.start < log.sequences.length && log.sequences[log.start]! < firstRetained) log.start++;
      if (log.start > before) log.prunedThrough = log.sequences[log.start - 1]!;
      if (worthCompacting(log.start, log.sequences.length)) {
        log.sequences = log.sequences.slice(log.start);
        log.start = 0;
      }
    }
    if (worthCompacting(this.start, this.ats.length)) {
      this.ats = this.ats.slice(this.start);
      this.ids = this.ids.slice(this.start);
      this.created = this.created.slice(this.start);
      this.first += this.start;
      this.start = 0;
    }
    return pruned;
  }

  /** The ChangeLog port for one sandbox. */
  of(sandbox: string): ChangeLog {
    return {
      open: async (cursor) => {
        const log = this.logOf(sandbox);
        const after = cursor === undefined ? undefined : this.cursors.sequenceOf(cursor);
        const known = after !== undefined && after <= this.sequence && after >= log.prunedThrough;
        return { reader: known ? this.reader(log, sandbox, after, cursor) : this.reader(log, sandbox, this.sequence), reset: cursor !== undefined && !known };
      },
      watch: (wake) => {
        const log = this.logOf(sandbox);
        (log.waiting ??= new Set()).add(wake);
        return () => void log.waiting!.delete(wake);
      },
    };
  }

  /** A reader after `after`: at the cursor given for it, or at a position made afresh (see SequenceCursors). */
  private reader(log: SandboxLog, sandbox: string, after: number, given?: string): ChangeReader {
    const cursors = this.cursors;
    let last = after;
    let cursor = given;
    return {
      get position() {
        return (cursor ??= cursors.at(last));
      },
      next: async (limit) => {
        const changes: PlantChange[] = [];
        for (let i = firstAfter(log, last); i < log.sequences.length && changes.length < limit; i++) {
          last = log.sequences[i]!;
          cursor = cursors.of(last);
          changes.push({ cursor, event: this.eventOf(last, sandbox) });
        }
        return changes;
      },
    };
  }

  /** The event of change `sequence` of `sandbox`, frozen as the trees keep plants. */
  private eventOf(sequence: number, sandbox: string): PlantEvent {
    const id = this.ids[sequence - this.first]!;
    const created = this.created[sequence - this.first];
    const name = sandbox === DEFAULT_SANDBOX ? undefined : sandbox;
    if (created === undefined) return Object.freeze(plantDeleted(id, name));
    return Object.freeze(plantCreated(Object.freeze(created.tag === undefined ? { id, name: created.name } : { id, name: created.name, tag: created.tag }), name));
  }

  private logOf(sandbox: string): SandboxLog {
    let log = this.logs.get(sandbox);
    if (log === undefined) this.logs.set(sandbox, (log = new SandboxLog()));
    return log;
  }
}

/**
 * Whether an array whose first `start` of `length` entries are pruned is copied without them:
 * once half is dead, so a change costs amortised O(1) and memory stays bounded, or once all
 * are, however few (a small sandbox's would otherwise be kept until it next grew past 64).
 */
function worthCompacting(start: number, length: number): boolean {
  return (start > 0 && start === length) || (start > 64 && start * 2 > length);
}

/** Index of the first retained change after sequence `after`: a binary search. */
function firstAfter(log: SandboxLog, after: number): number {
  let low = log.start;
  let high = log.sequences.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (log.sequences[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
