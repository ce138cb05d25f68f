import { randomBytes } from 'node:crypto';
import { DEFAULT_SANDBOX, plantCreated, plantDeleted, type ChangeLog, type ChangeReader, type ChangeRetention, type PlantChange, type PlantEvent } from '../../../core/index.js';
import { newCursorKey, SequenceCursors } from '../sequence-cursor.js';

/** A created plant's fields as the trees keep them: the log holds the same frozen object. */
export interface CreatedFields {
  readonly name: string;
  readonly tag?: string;
}

/**
 * One sandbox's log, in sequence order, and who waits for the next. Kept in columns, a change
 * being three numbers and a reference to the plant the trees hold: a log keeps every change
 * for the feed's retention (a day by default), and as an object with its event and the
 * event's data a change took about 120 more bytes: 298 MB of heap after a million creates, 178 now.
 * Events are made when read.
 */
class SandboxLog {
  sequences: number[] = [];
  /** When each was recorded, ms since the epoch. */
  ats: number[] = [];
  ids: number[] = [];
  /** The created plant's fields; undefined for a deletion. */
  created: (CreatedFields | undefined)[] = [];
  /** Index of the first change still retained: pruning moves it, and compacts now and then. */
  start = 0;
  /** The highest sequence number forgotten by retention: a cursor below it has missed changes. */
  prunedThrough = 0;
  /** Made with the first follower: most sandboxes of a playground never have one. */
  waiting: Set<() => void> | undefined;
}

/**
 * The change logs of one memory storage, every sandbox's, lost with the process like the
 * plants. One sequence for the storage: a change's number is its commit order, since every
 * change is recorded in the same synchronous step as the change itself. The log's id and
 * key are random per storage, so a cursor from before a restart is told apart (a reset).
 */
export class MemoryChangeLogs implements ChangeRetention {
  private readonly cursors = new SequenceCursors(randomBytes(4).toString('hex'), newCursorKey());
  private sequence = 0;
  private readonly logs = new Map<string, SandboxLog>();

  /**
   * What records `sandbox`'s changes: call it in the same synchronous step as the change,
   * plant `id` created with `created` (frozen), or deleted. Its log is found here, once, not
   * on every change (a sandbox's log is kept for the storage's life: see drop).
   */
  recorderOf(sandbox: string): (id: number, created: CreatedFields | undefined) => void {
    const log = this.logOf(sandbox);
    return (id, created) => {
      log.sequences.push(++this.sequence);
      log.ats.push(Date.now());
      log.ids.push(id);
      log.created.push(created);
      if (log.waiting !== undefined) for (const wake of log.waiting) wake();
    };
  }

  /** Forgets a sandbox's changes when it is gone (purged): its followers' cursors now reset. Its log stays, emptied, for its recorder. */
  drop(sandbox: string): void {
    const log = this.logs.get(sandbox);
    if (log === undefined) return;
    keepFrom(log, log.sequences.length);
    // Past the newest number: even a cursor of the sandbox's last change resets.
    log.prunedThrough = this.sequence + 1;
  }

  async pruneBefore(time: number, limit: number): Promise<number> {
    let pruned = 0;
    for (const log of this.logs.values()) {
      while (pruned < limit && log.start < log.sequences.length && log.ats[log.start]! < time) {
        log.prunedThrough = log.sequences[log.start++]!;
        pruned++;
      }
      // Compacted once half is dead: amortised O(1) a change, and memory stays bounded. A log
      // wholly pruned lets go of its changes at once, however few (a small sandbox's would
      // otherwise be kept until it next grew past 64).
      if ((log.start > 0 && log.start === log.sequences.length) || (log.start > 64 && log.start * 2 > log.sequences.length)) keepFrom(log, log.start);
      if (pruned >= limit) break;
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
          changes.push({ cursor, event: eventAt(log, i, sandbox) });
        }
        return changes;
      },
    };
  }

  private logOf(sandbox: string): SandboxLog {
    let log = this.logs.get(sandbox);
    if (log === undefined) this.logs.set(sandbox, (log = new SandboxLog()));
    return log;
  }
}

/** Lets go of every column's changes before index `from`. */
function keepFrom(log: SandboxLog, from: number): void {
  log.sequences = log.sequences.slice(from);
  log.ats = log.ats.slice(from);
  log.ids = log.ids.slice(from);
  log.created = log.created.slice(from);
  log.start = 0;
}

/** The event of change `i` of `sandbox`'s log, frozen as the trees keep plants. */
function eventAt(log: SandboxLog, i: number, sandbox: string): PlantEvent {
  const id = log.ids[i]!;
  const created = log.created[i];
  const name = sandbox === DEFAULT_SANDBOX ? undefined : sandbox;
  if (created === undefined) return Object.freeze(plantDeleted(id, name));
  return Object.freeze(plantCreated(Object.freeze(created.tag === undefined ? { id, name: created.name } : { id, name: created.name, tag: created.tag }), name));
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
