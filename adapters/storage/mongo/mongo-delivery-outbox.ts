import { randomUUID } from 'node:crypto';
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import {
  nextDeliveries,
  retried,
  settled,
  stateOf,
  type DeliveryOutbox,
  type DeliveryOutcome,
  type DeliveryState,
  type OutboxClaim,
  type OutboxRecord,
} from '../../../core/index.js';
import { withDeadline } from './mongo-errors.js';
import type { PlantDocument } from './plant-document.js';

/** Finds the plants with deliveries due; plants without any have no `due` and stay out of the way. */
export const DUE_INDEX = { key: { due: 1 }, name: 'due_1' } as const;
// A worker's conditional write loses to a concurrent change of the same plant; it re-reads and tries again.
const SETTLE_ATTEMPTS = 5;

const recordOf = (document: PlantDocument): OutboxRecord => ({
  deliveries: document.outbox ?? [],
  ...(document.due !== undefined && { dueAt: document.due }),
  ...(document.lease !== undefined && { lease: document.lease }),
  ...(document.leaseUntil !== undefined && { leaseUntil: document.leaseUntil }),
});

/**
 * The outbox of the MongoDB storage, kept inside the plants' documents (see
 * mongo-outbox-writes.ts). Several servers may share the database: a claim is a
 * conditional update that sets a lease, so one server holds a plant's deliveries at a
 * time, and a lease left by a dead server expires. Every write the worker makes is
 * conditional on the document's version `v`, which every change of the outbox bumps.
 */
export class MongoDeliveryOutbox implements DeliveryOutbox {
  /** The documents as this server's claims left them, by lease and plant: settling needs no re-read. */
  private readonly claimed = new Map<string, PlantDocument>();

  constructor(
    private readonly collection: Collection<PlantDocument>,
    private readonly timeoutMS: number,
  ) {}

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    // Three calls per batch, whatever its size: due candidates, one conditional update
    // leasing those still claimable, and a read of what this lease got. Two servers
    // racing for a plant cannot both win: the update's filter is checked per document.
    const candidates = await withDeadline(this.timeoutMS, (signal) =>
      this.collection.find({ due: { $lte: now } }, { sort: { due: 1 }, limit: limit * 2, projection: { _id: 1 }, signal }).toArray(),
    );
    if (candidates.length === 0) return [];
    // Servers see the same candidates: shuffled, each mostly takes plants the others do not.
    const ids = shuffled(candidates.map((candidate) => candidate._id)).slice(0, limit);
    const lease = randomUUID();
    await withDeadline(this.timeoutMS, () =>
      this.collection.updateMany(
        { _id: { $in: ids }, due: { $lte: now }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] },
        { $set: { lease, leaseUntil: now + leaseMs }, $inc: { v: 1 } },
      ),
    );
    const documents = await withDeadline(this.timeoutMS, (signal) => this.collection.find({ _id: { $in: ids }, lease }, { signal }).toArray());
    return documents.map((document) => {
      this.claimed.set(`${lease}/${document._id}`, document);
      return { plantId: document._id, lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(recordOf(document), now) };
    });
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    // First against the document as claimed (one write); re-read only if a change came in between.
    let document: PlantDocument | null | undefined = this.claimed.get(`${claim.lease}/${claim.plantId}`);
    this.claimed.delete(`${claim.lease}/${claim.plantId}`);
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      document ??= await this.read(claim.plantId);
      if (document === null || document.lease !== claim.lease) return false;
      if (await this.replaceOutbox(document, settled(recordOf(document), outcomes))) return true;
      document = undefined;
    }
    return false;
  }

  async state(): Promise<DeliveryState> {
    const documents = await withDeadline(this.timeoutMS, (signal) =>
      this.collection.find({ outbox: { $exists: true } }, { projection: { outbox: 1 }, signal }).toArray(),
    );
    return stateOf(documents.map((document): [number, OutboxRecord] => [document._id, recordOf(document)]));
  }

  async retryFailed(now: number): Promise<number> {
    const documents = await withDeadline(this.timeoutMS, (signal) =>
      this.collection.find({ 'outbox.failed': true } as Filter<PlantDocument>, { projection: { _id: 1 }, signal }).toArray(),
    );
    let total = 0;
    for (const { _id } of documents) {
      for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
        const document = await this.read(_id);
        if (document === null) break;
        const { record, count } = retried(recordOf(document), now);
        if (count === 0) break;
        if (await this.replaceOutbox(document, record, true)) {
          total += count;
          break;
        }
      }
    }
    return total;
  }

  private read(id: number): Promise<PlantDocument | null> {
    return withDeadline(this.timeoutMS, (signal) => this.collection.findOne({ _id: id }, { signal }));
  }

  /** Writes `next` as the document's outbox if nobody changed it since it was read; a done tombstone goes. */
  private async replaceOutbox(document: PlantDocument, next: OutboxRecord | undefined, keepLease = false): Promise<boolean> {
    const unchanged = { _id: document._id, v: document.v ?? { $exists: false } } as Filter<PlantDocument>;
    if (next === undefined && document.gone === true) {
      const deleted = await withDeadline(this.timeoutMS, () => this.collection.deleteOne(unchanged));
      return deleted.deletedCount === 1;
    }
    const unset: Record<string, ''> = keepLease ? {} : { lease: '', leaseUntil: '' };
    const set: Partial<PlantDocument> = {};
    if (next === undefined) Object.assign(unset, { outbox: '', due: '' });
    else {
      set.outbox = [...next.deliveries];
      if (next.dueAt === undefined) unset['due'] = '';
      else set.due = next.dueAt;
    }
    const update: UpdateFilter<PlantDocument> = { $inc: { v: 1 }, ...(Object.keys(set).length > 0 && { $set: set }), ...(Object.keys(unset).length > 0 && { $unset: unset }) };
    const updated = await withDeadline(this.timeoutMS, () => this.collection.updateOne(unchanged, update));
    return updated.matchedCount === 1;
  }
}

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
