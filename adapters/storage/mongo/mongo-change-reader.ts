import type { Collection, Filter } from 'mongodb';
import { plantCreated, plantDeleted, type ChangeReader, type Plant, type PlantChange, type PlantEvent } from '../../../core/index.js';
import { withDeadline } from './mongo-errors.js';

/** A change in the log collection (`<plants>_changes`, see mongo-change-log.ts). */
export interface ChangeDocument {
  /** The event id (see PendingChange): a change copied twice is stored once. */
  _id: string;
  /** Its sandbox's name (`default` for the default sandbox). */
  sb: string;
  /**
   * When it was copied into the log, by the copying server's clock, in microseconds since the
   * epoch (its millisecond clock, the microseconds counting its copies within a millisecond),
   * and after the plant's change before it (see MongoChangeLog).
   */
  at: number;
  type: PlantEvent['type'];
  data: PlantEvent['data'];
}

/**
 * The most the clocks of the servers sharing a database may disagree by. Every read of the log
 * goes back this far, and as far again as a copy may take to become readable (the storage's
 * call timeout: an acknowledged change was readable within its call), from where it got to, and
 * drops what it has read already by event id. A change that becomes readable further behind a
 * reader than that window is missed by it (a follower resuming from an earlier cursor gets it).
 */
export const FEED_WINDOW_MS = 5_000;
/** `at` is in microseconds. */
export const US_PER_MS = 1000;

/** The window of a log whose copies take at most `timeoutMS`, in the log's unit. */
export function windowOf(timeoutMS: number): number {
  return (FEED_WINDOW_MS + timeoutMS) * US_PER_MS;
}

/** Changes read per query at most (a follower's read asks for what it may hand out, and one more). */
const PAGE = 512;

/** A place in the log: the `at` and event id of a change, or a time and '' (no change there). */
export interface LogPosition {
  readonly at: number;
  readonly id: string;
}

// `m<at in base 36>.<event id>`: `m` tells it from the other storages' cursors (a reset there).
const CURSOR = /^m([0-9a-z]{1,11})\.([0-9a-z]{0,32})$/;

function changeCursor({ at, id }: LogPosition): string {
  return `m${at.toString(36)}.${id}`;
}

/** The position a cursor names; undefined for anything not made by changeCursor. */
export function positionOf(cursor: string): LogPosition | undefined {
  const match = CURSOR.exec(cursor);
  if (match === null) return undefined;
  const at = parseInt(match[1]!, 36);
  return Number.isSafeInteger(at) ? { at, id: match[2]! } : undefined;
}

/**
 * Where changes of a sandbox came into the log behind where its readers may have got to: the
 * poll (ChangePoller) notes the earliest `at` of the changes it had not seen, numbered, and
 * each reader reads back to the earliest noted since its last read.
 */
export interface LateChanges {
  /** The number of the latest note of `sandbox`, and the earliest `at` noted after `since`. */
  since(sandbox: string, since: number): { latest: number; from: number | undefined };
}

/**
 * One follower of a sandbox's log. The log is ordered by `at`, which servers stamp by their
 * own clocks and which a concurrent or late insert can land behind, so a reader never reads
 * behind a window (see FEED_WINDOW_MS) back from the furthest `at` read (or from now, if that
 * is earlier), and skips the event ids it has read since then: nothing readable later within
 * the window is missed, nothing read twice. It reads the whole window first; then on from
 * where it got to, and back to where the poll noted a change it had not seen (LateChanges):
 * a read costs what is new, not the window.
 * Changes come in (at, id) order within a read.
 */
export class MongoChangeReader implements ChangeReader {
  /** The last change handed out (or where the reader started): a resumed follower starts here. */
  private last: LogPosition;
  /** The furthest `at` handed out. */
  private reached: number;
  /** No read goes behind it; it only moves forward, so what is behind it is never read again. */
  private floor: number;
  /** The next read starts here (or at the floor, if that is later), unless a late change is noted earlier. */
  private resume: number;
  /** The last note of late changes a read has covered. */
  private noted: number;
  /** Event ids read at or after the floor, with their `at`, in the order read. */
  private readonly seen = new Map<string, number>();
  /** How far back from where it got to a read may go (see windowOf). */
  private readonly window: number;

  constructor(
    private readonly changes: Collection<ChangeDocument>,
    private readonly sandbox: string,
    start: LogPosition,
    /** In the log's unit, microseconds. */
    private readonly now: () => number,
    private readonly timeoutMS: number,
    private readonly late: LateChanges,
  ) {
    this.last = start;
    this.reached = start.at;
    this.window = windowOf(timeoutMS);
    this.floor = Math.min(start.at, now()) - this.window;
    this.resume = this.floor;
    this.noted = late.since(sandbox, Infinity).latest;
    if (start.id !== '') this.seen.set(start.id, start.at);
  }

  get position(): string {
    return changeCursor(this.last);
  }

  /** Takes every change readable now as read, without handing it out: a follower from now. */
  async skipReadable(): Promise<void> {
    await this.scan(this.floor, { _id: 1, at: 1 }, (document) => {
      this.seen.set(document._id, document.at);
      return true;
    });
    this.resume = Math.max(this.floor, this.reached);
  }

  async next(limit: number): Promise<PlantChange[]> {
    this.floor = Math.max(this.floor, Math.min(this.reached, this.now()) - this.window);
    forgetBefore(this.seen, this.floor);
    if (limit <= 0) return [];
    const { latest, from: lateFrom } = this.late.since(this.sandbox, this.noted);
    const from = Math.max(this.floor, Math.min(this.resume, lateFrom ?? Infinity));
    let read: ChangeDocument[] = [];
    let cut: number | undefined;
    await this.scan(from, undefined, (document) => {
      this.seen.set(document._id, document.at);
      read.push(document);
      if (read.length < limit) return true;
      cut = document.at;
      return false;
    }, Math.min(PAGE, limit + 1));
    const missed = await this.missedBefore(read);
    if (missed.length > 0) {
      read = [...read, ...missed].sort(byPosition);
      // Past the limit now: what is left over is read again from the last handed out.
      for (const document of read.slice(limit)) this.seen.delete(document._id);
      if (read.length > limit) cut = read[limit - 1]!.at;
      read = read.slice(0, limit);
    }
    const found: PlantChange[] = [];
    for (const document of read) {
      this.last = { at: document.at, id: document._id };
      this.reached = Math.max(this.reached, document.at);
      found.push({ cursor: changeCursor(this.last), event: eventOf(document) });
    }
    // Every change noted so far is at or after `from`: read up to the cut (where the next read
    // goes on), or to the end.
    this.resume = cut ?? this.reached;
    this.noted = latest;
    return found;
  }

  /**
   * The changes of the plants in `read` not seen yet and stamped no later than the last of it.
   * A scan moves along the log while copies land, so it can pass a plant's change that became
   * readable just behind it and then meet the plant's next change ahead: per plant, the first
   * must come first. A write copies its plant's pending changes into the log oldest first, so
   * the next change is inserted only once the first is in the log: a query after the scan
   * finds the first.
   */
  private async missedBefore(read: readonly ChangeDocument[]): Promise<ChangeDocument[]> {
    if (read.length === 0) return [];
    const ids = [...new Set(read.map((document) => document.data.id))];
    const last = read[read.length - 1]!.at;
    const filter = { sb: this.sandbox, 'data.id': { $in: ids }, at: { $gte: this.floor, $lte: last } } as Filter<ChangeDocument>;
    const documents = await withDeadline(this.timeoutMS, (signal) =>
      this.changes.find(filter, { projection: { _id: 1, at: 1 }, maxTimeMS: this.timeoutMS, signal }).toArray(),
    );
    const unseen = documents.filter((document) => !this.seen.has(document._id)).map((document) => document._id);
    if (unseen.length === 0) return [];
    const missed = await withDeadline(this.timeoutMS, (signal) => this.changes.find({ _id: { $in: unseen } } as Filter<ChangeDocument>, { maxTimeMS: this.timeoutMS, signal }).toArray());
    for (const document of missed) this.seen.set(document._id, document.at);
    return missed;
  }

  /** Visits the changes not seen from `from` on, in (at, id) order, while `visit` answers true. */
  private async scan(from: number, projection: Record<string, 1> | undefined, visit: (document: ChangeDocument) => boolean, page = PAGE): Promise<void> {
    let after: LogPosition | undefined;
    for (;;) {
      // The `at` range bounds the index scan; past a page, the id breaks ties on its last `at`.
      const filter = (
        after === undefined
          ? { sb: this.sandbox, at: { $gte: from } }
          : { sb: this.sandbox, at: { $gte: after.at }, $or: [{ at: { $gt: after.at } }, { _id: { $gt: after.id } }] }
      ) as Filter<ChangeDocument>;
      const documents = await withDeadline(this.timeoutMS, (signal) =>
        this.changes.find(filter, { sort: { at: 1, _id: 1 }, limit: page, ...(projection && { projection }), maxTimeMS: this.timeoutMS, signal }).toArray(),
      );
      for (const document of documents) if (!this.seen.has(document._id) && !visit(document)) return;
      if (documents.length < page) return;
      const { at, _id } = documents[documents.length - 1]!;
      after = { at, id: _id };
    }
  }
}

/**
 * Forgets the event ids read before `floor`, in the order they were read, which is nearly
 * `at` order (a late one lingers a little).
 */
export function forgetBefore(seen: Map<string, number>, floor: number): void {
  for (const [id, at] of seen) {
    if (at >= floor) break;
    seen.delete(id);
  }
}

/** (at, id) order, the log's. */
function byPosition(a: ChangeDocument, b: ChangeDocument): number {
  return a.at - b.at || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

/** The event a log document records, as the feed hands it out. */
function eventOf(document: ChangeDocument): PlantEvent {
  // The default sandbox's events carry no sandbox field: plantCreated and plantDeleted see to it.
  return document.type === 'plant.created' ? plantCreated(document.data as Plant, document.sb) : plantDeleted(document.data.id, document.sb);
}
