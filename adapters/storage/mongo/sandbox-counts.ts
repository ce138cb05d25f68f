import type { Collection, Filter } from 'mongodb';
import { isDuplicateKey } from './mongo-errors.js';
import { freshVersion } from './plant-document.js';

/**
 * How many plants a named sandbox holds, for its quota: one document per sandbox, `_id` its
 * name. A quota spans many plant documents, and MongoDB makes only single-document writes
 * atomic (no transactions here), so the count lives in one document and every change of it
 * is one conditional update:
 * - an add first reserves room (`plants` below the quota, then +1: one update, so concurrent
 *   adds at the edge cannot both pass), then inserts; an insert refused (the id is taken)
 *   gives the room back;
 * - a remove or a purge deletes first, then counts off.
 * So `plants` is never below the plants the sandbox holds: it also counts adds under way
 * (reserved, not yet inserted) and removes not yet counted off, which is what keeps the quota
 * exact while they run.
 *
 * A process that dies (or a call whose outcome is unknown, such as a timeout) between the
 * two steps leaves `plants` one high: an add that reserved and never inserted, a remove that
 * deleted and never counted off. Never low, so the quota still holds; the sandbox just
 * refuses a plant early, one per such failure. That is set right by a recount, made when an
 * add is refused and the sandbox has had no reservation for `quietMs` (so no add is under
 * way: each ends within its call deadline, far shorter; the servers' clocks are taken to
 * agree within seconds): `plants` becomes the plants in the sandbox's range, provided nothing
 * reserved or recounted in between. Removes under way during a recount are told by `epoch`:
 * a remove reads it before deleting and counts off only if it is unchanged (if a recount came
 * in between, it may already have left the plant out; skipped, the count stays high, never
 * low). A sandbox's last purge drops its count, a high one too once quiet.
 *
 * FerretDB 1.x does not apply a conditional update as one step (see docs on FerretDB), so
 * there concurrent adds at the edge can pass together; the quota is exact on MongoDB, as
 * stand-ins with its atomicity show (test/storage/mongo-sandbox-quota.test.ts).
 */
export interface SandboxCountDocument {
  _id: string;
  /** The sandbox's plants, plus adds under way and removes not yet counted off. */
  plants: number;
  /** Reservations made so far: changes with each one, so a recount can tell that none came in between. */
  added: number;
  /** The latest reservation or recount (ms since the epoch, the servers' clocks). */
  at: number;
  /** Chosen anew by every recount (see above). */
  epoch: number;
}

/** How long a sandbox has no reservation before a refused add may recount it (or ten call deadlines, if longer). */
export const RECOUNT_QUIET_MS = 60_000;

/** The counts of named sandboxes, in their own collection. Each method is one call (but `recount`). */
export class SandboxCounts {
  constructor(
    private readonly counts: Collection<SandboxCountDocument>,
    /** The repository's clock (ms since the epoch); a simulation passes its own. */
    private readonly now: () => number,
    /** See RECOUNT_QUIET_MS; never below several call deadlines. */
    private readonly quietMs: number,
  ) {}

  /** Reserves room for `n` plants, with at most `max` in all when given; false when there is none. */
  async reserve(sandbox: string, n: number, max?: number): Promise<boolean> {
    if (max !== undefined && n > max) return false;
    const filter: Filter<SandboxCountDocument> = max === undefined ? { _id: sandbox } : { _id: sandbox, plants: { $lte: max - n } };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.counts.updateOne(filter, { $inc: { plants: n, added: 1 }, $max: { at: this.now() }, $setOnInsert: { epoch: freshVersion() } }, { upsert: true });
        return true;
      } catch (error) {
        // The upsert found no count to update and its insert was refused by the `_id` index:
        // a concurrent first reservation made the count meanwhile (tried again, the update
        // applies to it), or the filter missed an existing count, a full sandbox's. Filter
        // and refusal are one atomic update. (MongoDB retries an upsert itself only when its
        // filter is equalities on `_id` alone: the unbounded one.)
        if (!isDuplicateKey(error) || attempt > 0) {
          if (max !== undefined && isDuplicateKey(error)) return false;
          throw error;
        }
      }
    }
  }

  /** Gives back room reserved for plants that were not inserted. */
  async giveBack(sandbox: string, n: number): Promise<void> {
    if (n > 0) await this.counts.updateOne({ _id: sandbox }, { $inc: { plants: -n } });
  }

  /** What a remove reads before deleting, for `countOff`; undefined when the sandbox has no count. */
  async epochOf(sandbox: string): Promise<number | undefined> {
    return (await this.counts.findOne({ _id: sandbox }, { projection: { epoch: 1 } }))?.epoch;
  }

  /** Counts off `n` deleted plants, unless a recount came since `epoch` was read (or there is no count). */
  async countOff(sandbox: string, n: number, epoch: number | undefined): Promise<void> {
    if (n > 0 && epoch !== undefined) await this.counts.updateOne({ _id: sandbox, epoch }, { $inc: { plants: -n } });
  }

  /**
   * Sets the count to `live()` (the plants the sandbox holds) if the sandbox has been quiet
   * for `quietMs` and nothing changed the count meanwhile; true when that made room. At most
   * once per quiet period and sandbox, however many adds are refused.
   */
  async recount(sandbox: string, live: () => Promise<number>): Promise<boolean> {
    const count = await this.counts.findOne({ _id: sandbox });
    const now = this.now();
    if (count === null || count.at > now - this.quietMs) return false;
    const plants = await live();
    const unchanged: Filter<SandboxCountDocument> = { _id: sandbox, plants: count.plants, added: count.added, epoch: count.epoch };
    const result = await this.counts.updateOne(unchanged, { $set: { plants, epoch: freshVersion() }, $max: { at: now } });
    return result.matchedCount === 1 && plants < count.plants;
  }

  /**
   * Drops the count of a sandbox found empty (its last purge), if it counts nothing, or
   * nothing was reserved for `quietMs`: the one high by an add that died goes with it.
   */
  async forget(sandbox: string): Promise<void> {
    await this.counts.deleteOne({ _id: sandbox, $or: [{ plants: { $lte: 0 } }, { at: { $lt: this.now() - this.quietMs } }] });
  }
}
