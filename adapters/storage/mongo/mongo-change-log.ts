import { randomInt } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import { DEFAULT_SANDBOX, type ChangeLog, type ChangeRetention, type Plant, type PlantEvent } from '../../../core/index.js';
import { ChangePoller } from './mongo-change-poller.js';
import { FEED_WINDOW_MS, MongoChangeReader, positionOf, US_PER_MS, type ChangeDocument, type LogPosition } from './mongo-change-reader.js';
import { isDuplicateKey, withDeadline } from './mongo-errors.js';
import { forgetCopied, pendingOf, type NewChange, type Pending } from './pending-changes.js';
import { plantOfKey, type PlantDocument } from './plant-document.js';

/** Followers' reads, the poll and a purge: a sandbox's changes by time. */
const CHANGE_ORDER_INDEX = { key: { sb: 1, at: 1, _id: 1 }, name: 'sb_1_at_1__id_1' } as const;
/** A reader's look back for a plant's changes its scan passed (MongoChangeReader.missedBefore). */
const CHANGE_PLANT_INDEX = { key: { sb: 1, 'data.id': 1, at: 1 }, name: 'sb_1_data.id_1_at_1' } as const;
/** Retention: every sandbox's changes by time. */
const CHANGE_TIME_INDEX = { key: { at: 1 }, name: 'at_1' } as const;
/** The plants with changes not yet copied into the log, for the sweeper: sparse, so only they are in it. */
export const PENDING_INDEX = { key: { feedSince: 1 }, name: 'feedSince_1' } as const;

/**
 * Marks kept in the log collection (no event id looks like their `_id`s; they have no `sb`, so
 * no reader meets them): `~retention` says from when the log holds every change (when it was
 * made, then how far retention pruned), `~purged/<sandbox>` when a sandbox's changes went.
 */
const RETENTION_MARK = '~retention';
const purgeMark = (sandbox: string) => `~purged/${sandbox}`;
interface Mark {
  _id: string;
  /** Changes with an earlier `at` (µs) may be gone: a cursor before it resets. */
  before: number;
  /** A purge mark's time, so retention prunes it with the changes of its time. */
  at?: number;
}

/**
 * The change log of the MongoDB storage, every sandbox's, for a database without transactions
 * or change streams (FerretDB, a standalone server). A change is written into its plant's
 * document with the change itself (pending-changes.ts), then copied here by the same call, so
 * the log is at least once: a change is in it as soon as its write is acknowledged, or, when
 * the writer stopped in between, once the sweeper (recoverStranded) finds it. Each change is
 * one document of `<plants>_changes` (ChangeDocument) stamped `at` when copied, by the copying
 * server's clock; readers go by `at` with a window for clocks that disagree and inserts that
 * land late (MongoChangeReader), so a resumed follower may see a change again (its cursor
 * tells it apart). A plant's changes made through one server are in the log in commit order
 * (its stamps only increase, and a write copies the changes its document holds oldest first);
 * through several servers, as far as their clocks agree to the millisecond.
 */
export class MongoChangeLog implements ChangeRetention {
  private readonly poller: ChangePoller;
  /** Milliseconds. Stamps never go back (see stamp); the rest reads the clock as it is, so a jump ahead then back does not leave this log ahead. */
  private readonly clock: () => number;
  /** The same in microseconds, the log's unit. */
  private readonly clockUs: () => number;
  /** The last `at` stamped: this process's, or this log's on a clock of the caller's own. */
  private readonly stamped: { last: number };
  private readonly eventId: () => string;
  private readonly marks: Collection<Mark>;
  /** The latest `at` of a copy this log has had acknowledged. */
  private acknowledged = 0;

  constructor(
    private readonly changes: Collection<ChangeDocument>,
    private readonly plants: Collection<PlantDocument>,
    private readonly timeoutMS: number,
    own: { readonly now?: (() => number) | undefined; readonly random?: (() => number) | undefined } = {},
  ) {
    this.clock = own.now ?? Date.now;
    this.clockUs = () => this.clock() * US_PER_MS;
    this.stamped = own.now === undefined ? processStamps : { last: 0 };
    this.eventId = eventIds(own.random);
    // The mark lives in the same collection: it has no `sb` or `at`, so no query of changes meets it.
    this.marks = changes as unknown as Collection<Mark>;
    this.poller = new ChangePoller(changes, this.clockUs, timeoutMS);
  }

  /** Creates the indexes, and for a new log its retention mark: it holds every change from now on. */
  async ensureIndexes(): Promise<void> {
    for (const index of [CHANGE_ORDER_INDEX, CHANGE_PLANT_INDEX, CHANGE_TIME_INDEX]) await withDeadline(this.timeoutMS, () => this.changes.createIndex(index.key, { name: index.name }));
    await withDeadline(this.timeoutMS, () => this.plants.createIndex(PENDING_INDEX.key, { name: PENDING_INDEX.name, sparse: true }));
    await withDeadline(this.timeoutMS, async () => {
      try {
        await this.marks.updateOne({ _id: RETENTION_MARK }, { $setOnInsert: { before: this.clockUs() } }, { upsert: true });
      } catch (error) {
        // Another server made it at the same moment.
        if (!isDuplicateKey(error)) throw error;
      }
    });
  }

  /** The change to write with a create of `plant`. */
  created(plant: Plant): NewChange {
    // Field by field, as a document is: no stray or undefined field reaches the log.
    return this.newChange('plant.created', plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag });
  }

  /** The change to write with a delete of plant `id`. */
  deleted(id: number): NewChange {
    return this.newChange('plant.deleted', { id });
  }

  private newChange(type: PlantEvent['type'], data: PlantEvent['data']): NewChange {
    return { change: { e: this.eventId(), type, data }, now: this.clock() };
  }

  /**
   * Copies what a write left in its plant's document into the log, wakes this process's
   * followers of its sandbox, then takes the changes out of the document. Run by the write's
   * own call, so a change is in the log when its write is acknowledged.
   */
  async copy(pending: Pending): Promise<void> {
    const sandbox = plantOfKey(pending.key).sandbox ?? DEFAULT_SANDBOX;
    let after = 0;
    // One at a time, oldest first, each stamped after the one before (which another server may
    // have copied first, by a clock ahead of ours): none is readable before the one ahead of it.
    for (const { e, type, data } of pending.changes) {
      let at = this.stamp(after + 1);
      try {
        await this.changes.insertOne({ _id: e, sb: sandbox, at, type, data });
        // Acknowledged later than a call may take (a stalled connection, a paused process): it
        // may have become readable further behind readers than their window, so it is stamped
        // again until a stamp is acknowledged in time. A reader that read it already may read
        // it again (at least once).
        while (this.clockUs() - at > this.timeoutMS * US_PER_MS) {
          at = this.stamp(at + 1);
          await this.changes.updateOne({ _id: e }, { $max: { at } });
        }
        after = at;
      } catch (error) {
        // Copied already (by the sweeper, or its own writer): the index refuses it, as wanted.
        if (!isDuplicateKey(error)) throw error;
        after = Math.max(after, (await this.changes.findOne({ _id: e }, { projection: { at: 1 } }))?.at ?? after);
      }
    }
    // A copy acknowledged after a later-stamped one of this process: readers here may have read
    // past it, so they read back to it now rather than at the next poll.
    if (after !== 0 && after < this.acknowledged) this.poller.note(sandbox, after);
    this.acknowledged = Math.max(this.acknowledged, after);
    this.poller.notify(sandbox);
    await forgetCopied(this.plants, pending);
  }

  /**
   * An `at` of at least `atLeast`: the clock in microseconds, past every stamp this process
   * gave before (the microseconds count copies within a millisecond).
   */
  private stamp(atLeast: number): number {
    this.stamped.last = Math.max(this.stamped.last + 1, this.clockUs(), atLeast);
    return this.stamped.last;
  }

  /**
   * Copies the changes left in plant documents longer than a write's call may last (their
   * writer stopped between its two steps), at most `limit` documents' worth; answers how many
   * documents' changes it copied (the sweeper calls again while that is `limit`: a document it
   * cannot copy from is not counted, so it does not spin on it). Run every few seconds.
   */
  recoverStranded(limit: number): Promise<number> {
    return withDeadline(this.timeoutMS, async (signal) => {
      const stranded = { feedSince: { $lt: this.clock() - this.timeoutMS } } as Filter<PlantDocument>;
      const documents = await this.plants.find(stranded, { limit, projection: { _id: 1, feed: 1, fv: 1, gone: 1, outbox: 1 }, signal }).toArray();
      let copied = 0;
      for (const document of documents) {
        const pending = pendingOf(document);
        if (pending === undefined) continue;
        await this.copy(pending);
        copied++;
      }
      return copied;
    });
  }

  pruneBefore(time: number, limit: number): Promise<number> {
    return withDeadline(this.timeoutMS, async (signal) => {
      // Marked first: a follower resuming from before it is reset rather than silently past changes gone.
      const before = time * US_PER_MS;
      await this.marks.updateOne({ _id: RETENTION_MARK }, { $max: { before } }, { upsert: true });
      const doomed = await this.changes.find({ at: { $lt: before } }, { projection: { _id: 1 }, limit, signal }).toArray();
      if (doomed.length > 0) await this.changes.deleteMany({ _id: { $in: doomed.map((change) => change._id) } });
      return doomed.length;
    });
  }

  /**
   * Deletes a purged sandbox's changes (run in the purge's call, once its plants are gone), so
   * a sandbox of the same name made later shows nothing of them, and its cursors reset. One
   * delete on the server, which MongoDB runs without holding up other writes.
   */
  async drop(sandbox: string): Promise<void> {
    const now = this.clockUs();
    await this.marks.updateOne({ _id: purgeMark(sandbox) }, { $max: { before: now, at: now } }, { upsert: true });
    await this.changes.deleteMany({ sb: sandbox });
  }

  /** The ChangeLog port for one sandbox. */
  of(sandbox: string): ChangeLog {
    return {
      open: (cursor) => this.open(sandbox, cursor),
      watch: (wake) => this.poller.watch(sandbox, wake),
    };
  }

  /** Stops the polls (a closing storage). */
  close(): void {
    this.poller.close();
  }

  private async open(sandbox: string, cursor: string | undefined): Promise<{ reader: MongoChangeReader; reset: boolean }> {
    const now = this.clockUs();
    const given = cursor === undefined ? undefined : positionOf(cursor);
    // A cursor from the future was not made here (or by a clock far off): like a malformed one.
    if (given !== undefined && given.at <= now + FEED_WINDOW_MS * US_PER_MS && given.at >= (await this.heldSince(sandbox))) return { reader: this.reader(sandbox, given), reset: false };
    // From now: what is readable now is taken as read, so only later changes come.
    const reader = this.reader(sandbox, { at: now, id: '' });
    await reader.skipReadable();
    return { reader, reset: cursor !== undefined };
  }

  private reader(sandbox: string, start: LogPosition): MongoChangeReader {
    return new MongoChangeReader(this.changes, sandbox, start, this.clockUs, this.timeoutMS, this.poller);
  }

  /** The earliest `at` (µs) from which the log holds every change of `sandbox`. */
  private async heldSince(sandbox: string): Promise<number> {
    const marks = await withDeadline(this.timeoutMS, (signal) => this.marks.find({ _id: { $in: [RETENTION_MARK, purgeMark(sandbox)] } }, { signal }).toArray());
    return Math.max(-Infinity, ...marks.map((mark) => mark.before));
  }
}

/** The last `at` stamped by this process's logs on the machine's clock: one process's stamps never tie. */
const processStamps = { last: 0 };

/** Event ids: 20 random characters of 0-9a-z (103 bits), so servers never make the same. */
function eventIds(random: (() => number) | undefined): () => string {
  const PART = 36 ** 5;
  const part = () => (random === undefined ? randomInt(PART) : Math.floor(random() * PART)).toString(36).padStart(5, '0');
  return () => part() + part() + part() + part();
}
