import { randomBytes } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import {
  plantCreated,
  plantDeleted,
  type ChangeLog,
  type ChangeReader,
  type ChangeRetention,
  type Plant,
  type PlantChange,
  type PlantEvent,
} from '../../../core/index.js';
import { sequenceCursor, sequenceOf } from '../sequence-cursor.js';

/** A change as kept: created (with the plant's fields) or deleted, and when (ms since the epoch). */
interface StoredChange {
  readonly t: 'c' | 'd';
  readonly i: number;
  readonly n?: string;
  readonly g?: string;
  readonly a: number;
}

/** What a write records: a plant created (the plant) or deleted (its id). */
export type ChangeMade = { readonly created: Plant } | { readonly deleted: number };

/** Records a write's changes, inside its transaction; see DiskChangeLog.writing. */
export type RecordChange = (sandbox: string, change: ChangeMade) => void;

type SandboxSequence = [sandbox: string, sequence: number];

/**
 * The change logs of an environment, every sandbox's, in three databases: `changes` keyed by
 * sequence number (what retention walks, oldest first: `[sandbox, at]`), `sandbox-changes`
 * keyed `[sandbox, sequence]` (what a follower reads: one range per sandbox, whatever the
 * others hold) and `change-log` (the log's id, and per sandbox the highest sequence forgotten,
 * below which a cursor has missed changes). Each change is put in the same write (a
 * transaction, or a conditional put's callback) as the change itself: both or neither.
 *
 * Sequence numbers are handed out in this process, which alone writes (the directory's
 * lock). They are handed out when a write is queued, and writes may commit in another order
 * (a transaction's callback runs later than a conditional put is queued), so followers read
 * only up to the `visible` mark: the highest number below which every write has settled.
 * A follower therefore never passes a change still to commit, and reads each change once,
 * in sequence order. A refused or failed write leaves a gap, which nothing reads.
 */
export class DiskChangeLog implements ChangeRetention {
  private readonly bySequence: Database<[string, number], number>;
  private readonly bySandbox: Database<StoredChange, SandboxSequence>;
  private readonly meta: Database<unknown, string>;
  private readonly logId: string;
  private sequence: number;
  /** Every change numbered at or below it has settled: what followers may read. */
  private visible: number;
  /**
   * The numbers handed out and not yet visible, in order from `visible + 1` (every number is
   * in it until it is visible, so a number's place is its distance from there): its
   * sandbox, and whether its write settled. Taken from the front as they become visible.
   */
  private unsettled: [sandbox: string, settled: boolean][] = [];
  private unsettledStart = 0;
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly prunedThrough = new Map<string, number>();

  constructor(
    private readonly root: RootDatabase,
    private readonly read: <T>(read: () => T) => T,
    private readonly write: <T>(start: () => Promise<T>) => Promise<T>,
  ) {
    this.bySequence = root.openDB<[string, number], number>({ name: 'changes' });
    this.bySandbox = root.openDB<StoredChange, SandboxSequence>({ name: 'sandbox-changes' });
    this.meta = root.openDB<unknown, string>({ name: 'change-log' });
    // Made once, with the directory's first write of it: a cursor of another directory (or
    // of a directory made anew) is told apart.
    let logId = this.meta.get('id') as string | undefined;
    if (logId === undefined) {
      logId = randomBytes(4).toString('hex');
      this.meta.putSync('id', logId);
    }
    this.logId = logId;
    const [last] = this.bySequence.getKeys({ reverse: true, limit: 1 });
    this.sequence = this.visible = Math.max(last ?? 0, (this.meta.get('pruned') as number | undefined) ?? 0);
  }

  /**
   * Runs a write that records changes: `write` calls `record` inside its transaction for each
   * change it makes. Once the write settles (on disk, refused or failed) its changes become
   * visible to followers, in sequence order.
   */
  async writing<T>(write: (record: RecordChange) => Promise<T>): Promise<T> {
    const sequences: number[] = [];
    let failed = true;
    try {
      const result = await write((sandbox, change) => sequences.push(this.recordIn(sandbox, change)));
      failed = false;
      return result;
    } finally {
      // A write that failed past its deadline may still commit: its numbers settle only once
      // the environment has flushed what was queued then, so no later change is shown ahead of it.
      if (sequences.length > 0) {
        if (failed) void this.root.flushed.then(() => this.settled(sequences), () => this.settled(sequences));
        else this.settled(sequences);
      }
    }
  }

  /** The ChangeLog port for one sandbox. */
  of(sandbox: string): ChangeLog {
    return {
      open: async (cursor) => {
        const after = cursor === undefined ? undefined : sequenceOf(cursor, this.logId);
        const known = after !== undefined && after <= this.visible && after >= this.prunedThroughOf(sandbox);
        return { reader: this.reader(sandbox, known ? after : this.visible), reset: cursor !== undefined && !known };
      },
      watch: (wake) => {
        let waiting = this.waiting.get(sandbox);
        if (waiting === undefined) this.waiting.set(sandbox, (waiting = new Set()));
        waiting.add(wake);
        return () => {
          waiting.delete(wake);
          if (waiting.size === 0) this.waiting.delete(sandbox);
        };
      },
    };
  }

  async pruneBefore(time: number, limit: number): Promise<number> {
    const old = this.read(() => {
      const found: { key: number; value: [string, number] }[] = [];
      // In sequence order, which is the order they were recorded in: the first recent one ends it.
      for (const entry of this.bySequence.getRange({ limit })) {
        if (entry.value[1] >= time) break;
        found.push(entry);
      }
      return found;
    });
    if (old.length === 0) return 0;
    const highest = new Map<string, number>();
    for (const { key, value } of old) highest.set(value[0], key);
    await this.write(() => this.root.transaction(() => {
      for (const { key, value } of old) {
        void this.bySequence.remove(key);
        void this.bySandbox.remove([value[0], key]);
      }
      // Never below a purge's mark (forgetSandboxIn), which retention reaches only later.
      for (const [sandbox, sequence] of highest) void this.meta.put(`pruned/${sandbox}`, Math.max(sequence, this.prunedThroughOf(sandbox)));
      void this.meta.put('pruned', old.at(-1)!.key);
    }));
    for (const [sandbox, sequence] of highest) this.prunedThrough.set(sandbox, Math.max(sequence, this.prunedThroughOf(sandbox)));
    return old.length;
  }

  /**
   * Inside a purge's transaction: marks every change of a sandbox that is gone forgotten, so
   * its cursors reset and a sandbox made anew under the name never reads them. Retention
   * removes them with the others' (a purge stays bounded by the plants it removes).
   */
  forgetSandboxIn(sandbox: string): void {
    // Past the newest number: even a cursor of the sandbox's last change resets.
    void this.meta.put(`pruned/${sandbox}`, this.sequence + 1);
    this.prunedThrough.set(sandbox, this.sequence + 1);
  }

  private recordIn(sandbox: string, change: ChangeMade): number {
    const sequence = ++this.sequence;
    const at = Date.now();
    const stored: StoredChange =
      'deleted' in change
        ? { t: 'd', i: change.deleted, a: at }
        : change.created.tag === undefined
          ? { t: 'c', i: change.created.id, n: change.created.name, a: at }
          : { t: 'c', i: change.created.id, n: change.created.name, g: change.created.tag, a: at };
    void this.bySequence.put(sequence, [sandbox, at]);
    void this.bySandbox.put([sandbox, sequence], stored);
    this.unsettled.push([sandbox, false]);
    return sequence;
  }

  private settled(sequences: readonly number[]): void {
    // The unsettled list starts at `visible + 1`: a number's entry is found by subtraction.
    const first = this.visible + 1 - this.unsettledStart;
    for (const sequence of sequences) this.unsettled[sequence - first]![1] = true;
    const woken = new Set<string>();
    while (this.unsettledStart < this.unsettled.length && this.unsettled[this.unsettledStart]![1]) {
      woken.add(this.unsettled[this.unsettledStart++]![0]);
      this.visible++;
    }
    // Compacted once half is dead, so a steady load does not grow it.
    if (this.unsettledStart > 1024 && this.unsettledStart * 2 > this.unsettled.length) {
      this.unsettled = this.unsettled.slice(this.unsettledStart);
      this.unsettledStart = 0;
    }
    for (const sandbox of woken) for (const wake of this.waiting.get(sandbox) ?? []) wake();
  }

  private reader(sandbox: string, after: number): ChangeReader {
    let last = after;
    const logId = this.logId;
    return {
      get position() {
        return sequenceCursor(logId, last);
      },
      next: async (limit) =>
        this.read(() => {
          const changes: PlantChange[] = [];
          if (last >= this.visible) return changes;
          for (const { key, value } of this.bySandbox.getRange({ start: [sandbox, last + 1], end: [sandbox, this.visible + 1], limit })) {
            changes.push({ cursor: sequenceCursor(logId, key[1]), event: eventOf(sandbox, value) });
            last = key[1];
          }
          return changes;
        }),
    };
  }

  private prunedThroughOf(sandbox: string): number {
    let pruned = this.prunedThrough.get(sandbox);
    if (pruned === undefined) this.prunedThrough.set(sandbox, (pruned = this.read(() => (this.meta.get(`pruned/${sandbox}`) as number | undefined) ?? 0)));
    return pruned;
  }
}

function eventOf(sandbox: string, stored: StoredChange): PlantEvent {
  // The default sandbox's events carry no sandbox field: plantCreated and plantDeleted see to it.
  if (stored.t === 'd') return plantDeleted(stored.i, sandbox);
  return plantCreated(stored.g === undefined || stored.g === null ? { id: stored.i, name: stored.n! } : { id: stored.i, name: stored.n!, tag: stored.g }, sandbox);
}
