import { randomBytes } from 'node:crypto';
import { type ChangeLog, type ChangeReader, type ChangeRetention, type PlantChange, type PlantEvent } from '../../../core/index.js';
import { sequenceCursor, sequenceOf } from '../sequence-cursor.js';

/** A recorded change: the event (its plant frozen, as the trees keep it) and when. */
interface Entry {
  readonly sequence: number;
  readonly at: number;
  readonly event: PlantEvent;
}

/** One sandbox's log: its entries in sequence order, and who waits for the next. */
class SandboxLog {
  entries: Entry[] = [];
  /** Index of the first entry still retained: pruning moves it, and compacts now and then. */
  start = 0;
  /** The highest sequence number forgotten by retention: a cursor below it has missed changes. */
  prunedThrough = 0;
  /** Made with the first follower: most sandboxes of a playground never have one. */
  waiting: Set<() => void> | undefined;
}

/**
 * The change logs of one memory storage, every sandbox's, lost with the process like the
 * plants. One sequence for the storage: a change's number is its commit order, since every
 * change is recorded in the same synchronous step as the change itself. The log's id is
 * random per storage, so a cursor from before a restart is told apart (a reset).
 */
export class MemoryChangeLogs implements ChangeRetention {
  private readonly logId = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly logs = new Map<string, SandboxLog>();

  /** Call in the same synchronous step as the change. */
  record(sandbox: string, event: PlantEvent): void {
    const log = this.logOf(sandbox);
    // Frozen: every follower is handed the same object.
    Object.freeze(event.data);
    log.entries.push({ sequence: ++this.sequence, at: Date.now(), event: Object.freeze(event) });
    if (log.waiting !== undefined) for (const wake of log.waiting) wake();
  }

  /** Forgets a sandbox that is gone (purged): its followers' cursors now reset. */
  drop(sandbox: string): void {
    const log = this.logs.get(sandbox);
    if (log === undefined) return;
    log.entries = [];
    log.start = 0;
    // Past the newest number: even a cursor of the sandbox's last change resets.
    log.prunedThrough = this.sequence + 1;
  }

  async pruneBefore(time: number, limit: number): Promise<number> {
    let pruned = 0;
    for (const log of this.logs.values()) {
      while (pruned < limit && log.start < log.entries.length && log.entries[log.start]!.at < time) {
        log.prunedThrough = log.entries[log.start++]!.sequence;
        pruned++;
      }
      // Compacted once half is dead: amortised O(1) a change, and memory stays bounded. A log
      // wholly pruned lets go of its entries at once, however few (a small sandbox's would
      // otherwise be kept until it next grew past 64).
      if (log.start > 0 && log.start === log.entries.length) {
        log.entries = [];
        log.start = 0;
      } else if (log.start > 64 && log.start * 2 > log.entries.length) {
        log.entries = log.entries.slice(log.start);
        log.start = 0;
      }
      if (pruned >= limit) break;
    }
    return pruned;
  }

  /** The ChangeLog port for one sandbox. */
  of(sandbox: string): ChangeLog {
    return {
      open: async (cursor) => {
        const log = this.logOf(sandbox);
        const after = cursor === undefined ? undefined : sequenceOf(cursor, this.logId);
        const known = after !== undefined && after <= this.sequence && after >= log.prunedThrough;
        return { reader: this.reader(log, known ? after : this.sequence), reset: cursor !== undefined && !known };
      },
      watch: (wake) => {
        const log = this.logOf(sandbox);
        (log.waiting ??= new Set()).add(wake);
        return () => void log.waiting!.delete(wake);
      },
    };
  }

  private reader(log: SandboxLog, after: number): ChangeReader {
    const logId = this.logId;
    let last = after;
    return {
      get position() {
        return sequenceCursor(logId, last);
      },
      next: async (limit) => {
        const changes: PlantChange[] = [];
        for (let i = firstAfter(log, last); i < log.entries.length && changes.length < limit; i++) {
          const entry = log.entries[i]!;
          changes.push({ cursor: sequenceCursor(logId, entry.sequence), event: entry.event });
          last = entry.sequence;
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

/** Index of the first retained entry after sequence `after`: a binary search. */
function firstAfter(log: SandboxLog, after: number): number {
  let low = log.start;
  let high = log.entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (log.entries[middle]!.sequence <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
