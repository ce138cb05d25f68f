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
import { SandboxWatchers } from '../sandbox-watchers.js';
import { newCursorKey, SequenceCursors } from '../sequence-cursor.js';
import { adoptEarlierDatabase } from './earlier-database.js';

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

/** A change in the stretches index: its stretch, then its sandbox, then its number. */
type StretchKey = [stretch: number, sandbox: string, sequence: number];
/** A block in which a sandbox has changes, as its followers look for it. */
type SandboxBlock = [sandbox: string, block: number];
/** The same, as retention removes it once the block is pruned. */
type BlockSandbox = [block: number, sandbox: string];

/**
 * Sequence numbers a stretch spans. A commit's changes have consecutive numbers, so they land
 * in one stretch (two at a boundary), whose entries fill a few pages however many sandboxes
 * write: small enough that a commit copies a few leaves, not one per sandbox.
 */
const STRETCH = 256;
/**
 * Sequence numbers a block spans (4 stretches): the unit in which a sandbox's presence is
 * noted. Finer costs writes (with 50 sandboxes creating in turn, a note in every 5 of their
 * creates at 256: 256 ÷ 50), coarser costs reads (a follower a seek for each stretch of a
 * block: at 4,096, 16); at 1,024 a sandbox among 50 busy ones notes once in about 20, and a
 * follower woken by one change after 2,000 of others reads it in 131 µs, against 106 µs
 * with one range per sandbox (the earlier layout) and 139 µs at 4,096 (one probe).
 */
const BLOCK = 1024;
const stretchOf = (sequence: number) => Math.floor(sequence / STRETCH);
const blockOf = (sequence: number) => Math.floor(sequence / BLOCK);

/** The database an earlier build kept a sandbox's changes in, keyed `[sandbox, sequence]`; moved once (adoptEarlierIndex). */
const EARLIER_INDEX = 'sandbox-changes';

/** How often a log other processes write to looks for their changes, while anyone follows. */
const OTHERS_POLL_MS = 25;

/** The highest sequence number any key of a sandbox can have (a range's end). */
const LAST_SEQUENCE = Number.MAX_SAFE_INTEGER;

/**
 * The change logs of an environment, every sandbox's, in one transaction with the change
 * itself (both or neither):
 * - `changes`, keyed by sequence number: `[sandbox, at]`, what retention walks, oldest first,
 *   and what the poll reads for other processes' changes;
 * - `change-stretches`, keyed `[stretch, sandbox, sequence]`: the change, where a follower
 *   reads it. A stretch is STRETCH consecutive numbers; within it a sandbox's changes are one
 *   range. Why not `[sandbox, sequence]`: with 50 sandboxes writing at once, every commit
 *   then copied one leaf per sandbox (LMDB copies each page a commit touches), with which a
 *   create in a named sandbox took 0.71–0.77× of the default one's server CPU-seconds in
 *   probes (docs/benchmarks.md, Sandboxes); a commit's changes now share a stretch, a few leaves;
 * - `change-blocks`, keyed `[sandbox, block]` (and `change-block-sandboxes`, `[block, sandbox]`,
 *   for retention): the blocks of BLOCK numbers in which a sandbox has changes, written with a
 *   sandbox's first change in each block. A follower goes from block to block of its own, and
 *   within one looks at each of its 4 stretches: a seek each, whatever the other sandboxes
 *   wrote, so a read is O(limit + log N) with a constant of at most 5 seeks a block;
 * - `change-log`: the log's id, and per sandbox the highest sequence forgotten, below which
 *   a cursor has missed changes.
 *
 * A change's sequence number is the log's highest plus one, taken inside its transaction.
 * LMDB has one writer at a time, across every process of the environment, so numbers follow
 * commit order exactly: a follower reading what is committed never passes a change still to
 * commit, and reads each change once, in order, whichever process wrote it. (A follower may
 * read a change a moment before its writer is answered, between the commit and its sync.)
 *
 * Followers are woken by this process's writes once they settle; when other processes write
 * to the environment too (the workers of one server), a poll every OTHERS_POLL_MS, while
 * anyone here follows, wakes the followers of the sandboxes they changed.
 */
export class DiskChangeLog implements ChangeRetention {
  private readonly bySequence: Database<[string, number], number>;
  private readonly stretches: Database<StoredChange, StretchKey>;
  private readonly blocks: Database<true, SandboxBlock>;
  private readonly blockSandboxes: Database<true, BlockSandbox>;
  private readonly meta: Database<unknown, string>;
  private readonly cursors: SequenceCursors;
  private readonly waiting = new SandboxWatchers(() => this.stopPolling());
  private poll: NodeJS.Timeout | undefined;
  /** The highest sequence number the poll has seen. */
  private polledThrough = 0;
  /** The highest number handed out, when no other process writes (so none can hand out another). */
  private handedOut: number | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly read: <T>(read: () => T) => T,
    private readonly write: <T>(start: () => Promise<T>) => Promise<T>,
    /** Whether other processes write to the environment too (a server's workers). */
    private readonly othersWrite = false,
  ) {
    this.bySequence = root.openDB<[string, number], number>({ name: 'changes' });
    this.stretches = root.openDB<StoredChange, StretchKey>({ name: 'change-stretches' });
    this.blocks = root.openDB<true, SandboxBlock>({ name: 'change-blocks' });
    this.blockSandboxes = root.openDB<true, BlockSandbox>({ name: 'change-block-sandboxes' });
    this.meta = root.openDB<unknown, string>({ name: 'change-log' });
    this.adoptEarlierIndex();
    // Made once, with the directory's first write of them: a cursor of another directory (or
    // of a directory made anew) is told apart, and every worker seals and reads cursors with
    // the same key (a directory of an earlier release, whose cursors were not sealed, gets one
    // now: its clients' cursors reset once). In a transaction: workers start together.
    this.cursors = this.meta.transactionSync(() => {
      let id = this.meta.get('id') as string | undefined;
      if (id === undefined) void this.meta.put('id', (id = randomBytes(4).toString('hex')));
      let key = this.meta.get('key') as string | undefined;
      if (key === undefined) void this.meta.put('key', (key = newCursorKey().toString('hex')));
      return new SequenceCursors(id, Buffer.from(key, 'hex'));
    });
    // Workers read the highest number from `last`, which only they keep: raised here to what
    // the log holds, since a single process (or an older release) wrote without keeping it.
    if (othersWrite) {
      this.meta.transactionSync(() => {
        const held = this.highestHeld();
        if (held > ((this.meta.get('last') as number | undefined) ?? 0)) void this.meta.put('last', held);
      });
    }
  }

  /**
   * Runs a write that records changes: `write` calls `record` inside its transaction for each
   * change it makes. Once the write settles (on disk, refused or failed) the followers of the
   * sandboxes it changed are woken.
   */
  async writing<T>(write: (record: RecordChange) => Promise<T>): Promise<T> {
    const changed = new Set<string>();
    let failed = true;
    try {
      const result = await write((sandbox, change) => {
        this.recordIn(sandbox, change);
        changed.add(sandbox);
      });
      failed = false;
      return result;
    } finally {
      // A write that failed past its deadline may still commit: its followers are woken once
      // the environment has flushed what was queued then.
      if (changed.size > 0) {
        if (failed) void this.root.flushed.then(() => this.waiting.wake(changed), () => this.waiting.wake(changed));
        else this.waiting.wake(changed);
      }
    }
  }

  /** The ChangeLog port for one sandbox. */
  of(sandbox: string): ChangeLog {
    return {
      open: async (cursor) => {
        const after = cursor === undefined ? undefined : this.cursors.sequenceOf(cursor);
        const [last, forgotten] = this.read(() => [this.committedLast(), this.forgottenThrough(sandbox)]);
        const known = after !== undefined && after <= last && after >= forgotten;
        return { reader: known ? this.reader(sandbox, after, cursor) : this.reader(sandbox, last), reset: cursor !== undefined && !known };
      },
      watch: (wake) => {
        const unwatch = this.waiting.watch(sandbox, wake);
        if (this.othersWrite) this.startPolling();
        return unwatch;
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
    // Marks are read and raised inside the transaction: another process may prune or purge too.
    await this.write(() => this.root.transaction(() => {
      for (const { key, value } of old) {
        void this.bySequence.remove(key);
        void this.stretches.remove([stretchOf(key), value[0], key]);
      }
      // Never below a purge's mark (forgetSandboxIn), which retention reaches only later.
      for (const [sandbox, sequence] of highest) void this.meta.put(`pruned/${sandbox}`, Math.max(sequence, this.forgottenThrough(sandbox)));
      const pruned = Math.max(old.at(-1)!.key, (this.meta.get('pruned') as number | undefined) ?? 0);
      void this.meta.put('pruned', pruned);
      // The notes of the blocks now wholly pruned, up to `limit` a pass (the next goes on).
      for (const key of this.blockSandboxes.getKeys({ end: [blockOf(pruned + 1), ''], limit })) {
        void this.blockSandboxes.remove(key);
        void this.blocks.remove([key[1], key[0]]);
      }
    }));
    return old.length;
  }

  /**
   * Inside a purge's transaction: marks every change of a sandbox that is gone forgotten, so
   * its cursors reset and a sandbox made anew under the name never reads them. Retention
   * removes them with the others' (a purge stays bounded by the plants it removes).
   */
  forgetSandboxIn(sandbox: string): void {
    // Past the newest number: even a cursor of the sandbox's last change resets.
    void this.meta.put(`pruned/${sandbox}`, this.currentSequence() + 1);
  }

  /** Stops looking for other processes' changes; the environment is closing. */
  close(): void {
    this.waiting.clear();
    this.stopPolling();
  }

  /** Inside the write's transaction, so the number read is the highest committed (or written earlier in it). */
  private recordIn(sandbox: string, change: ChangeMade): void {
    const sequence = this.currentSequence() + 1;
    if (this.othersWrite) void this.meta.put('last', sequence);
    else this.handedOut = sequence;
    const at = Date.now();
    const stored: StoredChange =
      'deleted' in change
        ? { t: 'd', i: change.deleted, a: at }
        : change.created.tag === undefined
          ? { t: 'c', i: change.created.id, n: change.created.name, a: at }
          : { t: 'c', i: change.created.id, n: change.created.name, g: change.created.tag, a: at };
    void this.bySequence.put(sequence, [sandbox, at]);
    this.indexIn(sandbox, sequence, stored);
  }

  /** Inside a write transaction: the change where its sandbox's followers find it (its stretch, its block's note). */
  private indexIn(sandbox: string, sequence: number, stored: StoredChange): void {
    void this.stretches.put([stretchOf(sequence), sandbox, sequence], stored);
    // Once a sandbox and block (reads inside the transaction see its own writes): a busy
    // sandbox's changes touch these leaves about once every BLOCK changes of the store.
    const block = blockOf(sequence);
    if (!this.blocks.doesExist([sandbox, block])) {
      void this.blocks.put([sandbox, block], true);
      void this.blockSandboxes.put([block, sandbox], true);
    }
  }

  /**
   * Moves the changes an earlier build kept in EARLIER_INDEX (`[sandbox, sequence]`) into the
   * stretches, once, so that its cursors go on reading them.
   */
  private adoptEarlierIndex(): void {
    adoptEarlierDatabase<StoredChange, [sandbox: string, sequence: number]>(this.root, EARLIER_INDEX, (key, value) => this.indexIn(key[0], key[1], value));
  }

  /**
   * Inside a write transaction: the highest number handed out. Alone on the environment it is
   * counted here (transaction callbacks run one after another, in commit order); with
   * workers it is read from `last`, which each change raises in its transaction (a point
   * read: finding the log's last key costs a request about a tenth more).
   */
  private currentSequence(): number {
    if (this.othersWrite) return (this.meta.get('last') as number | undefined) ?? 0;
    return (this.handedOut ??= this.highestHeld());
  }

  /** The highest number committed: what a cursor may name. */
  private committedLast(): number {
    return this.othersWrite ? ((this.meta.get('last') as number | undefined) ?? 0) : this.highestHeld();
  }

  /** The newest change's number, or the highest pruned once all are. */
  private highestHeld(): number {
    for (const key of this.bySequence.getKeys({ reverse: true, limit: 1 })) return key;
    return (this.meta.get('pruned') as number | undefined) ?? 0;
  }

  /** The highest sequence number of the sandbox's forgotten (pruned or purged); 0 when none. */
  private forgottenThrough(sandbox: string): number {
    return (this.meta.get(`pruned/${sandbox}`) as number | undefined) ?? 0;
  }

  private startPolling(): void {
    if (this.poll !== undefined) return;
    try {
      this.polledThrough = this.read(() => this.committedLast());
    } catch {
      return; // closed: nothing to follow
    }
    this.poll = setInterval(() => this.pollOthers(), OTHERS_POLL_MS);
    this.poll.unref();
  }

  private stopPolling(): void {
    clearInterval(this.poll);
    this.poll = undefined;
  }

  /** Wakes the followers of the sandboxes changed since the last poll (this process's changes too: a reader that finds nothing new reads nothing). */
  private pollOthers(): void {
    const batch = 1024;
    let changed: Set<string> | 'all';
    try {
      changed = this.read(() => {
        const found = new Set<string>();
        let count = 0;
        for (const { key, value } of this.bySequence.getRange({ start: this.polledThrough + 1, limit: batch })) {
          found.add(value[0]);
          this.polledThrough = key;
          count++;
        }
        if (count < batch) return found;
        // Far behind: every follower looks, and the poll starts again from the newest.
        this.polledThrough = this.committedLast();
        return 'all';
      });
    } catch {
      return; // unreadable now (closing): the next poll tries again
    }
    this.waiting.wake(changed === 'all' ? this.waiting.sandboxes() : changed);
  }

  /**
   * Reads a sandbox's changes after `after`: block by block of its own (change-blocks), and in
   * each block stretch by stretch, one range each. `looked` is how far every change of the
   * sandbox has been read: past `last` once a read ends short of `limit`, since nothing of
   * the sandbox lies between its last change and the log's newest then.
   */
  private reader(sandbox: string, after: number, given?: string): ChangeReader {
    let last = after;
    let looked = after;
    // The cursor given for `after`, or one made afresh when asked (see SequenceCursors), then each change's.
    let cursor = given;
    const cursors = this.cursors;
    return {
      get position() {
        return (cursor ??= cursors.at(last));
      },
      next: async (limit) =>
        this.read(() => {
          const changes: PlantChange[] = [];
          // In the same read as the ranges: no change above it is committed in what they see.
          const newest = this.committedLast();
          let from = looked + 1;
          while (changes.length < limit && from <= newest) {
            const block = this.nextBlock(sandbox, blockOf(from));
            if (block === undefined || block * BLOCK > newest) break;
            from = Math.max(from, block * BLOCK);
            const blockEnd = Math.min((block + 1) * BLOCK - 1, newest);
            while (changes.length < limit && from <= blockEnd) {
              const stretch = stretchOf(from);
              for (const { key, value } of this.stretches.getRange({ start: [stretch, sandbox, from], end: [stretch, sandbox, LAST_SEQUENCE], limit: limit - changes.length })) {
                last = key[2];
                cursor = cursors.of(last);
                changes.push({ cursor, event: eventOf(sandbox, value) });
              }
              from = (stretch + 1) * STRETCH;
            }
          }
          looked = changes.length >= limit ? last : Math.max(last, newest);
          return changes;
        }),
    };
  }

  /** The first block at or after `block` in which the sandbox has changes. */
  private nextBlock(sandbox: string, block: number): number | undefined {
    for (const key of this.blocks.getKeys({ start: [sandbox, block], end: [sandbox, LAST_SEQUENCE], limit: 1 })) return key[1];
    return undefined;
  }
}

function eventOf(sandbox: string, stored: StoredChange): PlantEvent {
  // The default sandbox's events carry no sandbox field: plantCreated and plantDeleted see to it.
  if (stored.t === 'd') return plantDeleted(stored.i, sandbox);
  return plantCreated(stored.g === undefined || stored.g === null ? { id: stored.i, name: stored.n! } : { id: stored.i, name: stored.n!, tag: stored.g }, sandbox);
}
