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
import { insertEach } from './insert-each.js';
import { withDeadline } from './mongo-errors.js';
import type { PlantDocument } from './plant-document.js';

/** Finds the plants with deliveries due; plants without any have no `due` and stay out of the way. */
export const DUE_INDEX = { key: { due: 1 }, name: 'due_1' } as const;
// A worker's conditional write loses to a concurrent change of the same plant; it re-reads and tries again.
const SETTLE_ATTEMPTS = 5;

/** A server's hold on one plant's deliveries: `_id` is the plant id, so one lease per plant. */
export interface LeaseDocument {
  _id: number;
  lease: string;
  /** Past this (ms since the epoch) the holder is taken to be dead and another server may claim. */
  until: number;
}

const recordOf = (document: PlantDocument): OutboxRecord => ({
  deliveries: document.outbox ?? [],
  ...(document.due !== undefined && { dueAt: document.due }),
});

/**
 * The outbox of the MongoDB storage, kept inside the plants' documents (see
 * mongo-outbox-writes.ts). Several servers may share the database. A claim inserts one
 * lease document per plant into a collection of its own: the unique `_id` index lets one
 * insert win, on MongoDB and on stand-ins whose conditional updates are not atomic
 * (FerretDB 1.x), and a lease left by a dead server is removed once past its time. Every
 * write the worker makes to a plant's document is conditional on its version `v`, which
 * every change of the outbox bumps, so the worker never undoes a change it did not see.
 */
export class MongoDeliveryOutbox implements DeliveryOutbox {
  /** The documents as this server's claims read them, by lease and plant: settling needs no re-read. */
  private readonly claimed = new Map<string, PlantDocument>();

  constructor(
    private readonly collection: Collection<PlantDocument>,
    private readonly leases: Collection<LeaseDocument>,
    readonly callTimeoutMs: number,
  ) {}

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    // Four calls per batch, whatever its size: due candidates, lapsed leases among them
    // removed, one insert of a lease per candidate (the taken ones refused), and a read of
    // the plants this server got.
    const candidates = await this.call((signal) =>
      this.collection.find({ due: { $lte: now } }, { sort: { due: 1 }, limit: limit * 2, projection: { _id: 1 }, signal }).toArray(),
    );
    if (candidates.length === 0) return [];
    // Servers see the same candidates: shuffled, each mostly takes plants the others do not.
    const ids = shuffled(candidates.map((candidate) => candidate._id)).slice(0, limit);
    await this.call(() => this.leases.deleteMany({ _id: { $in: ids }, until: { $lt: now } }));
    const lease = randomUUID();
    const won = await this.insertLeases(ids.map((_id) => ({ _id, lease, until: now + leaseMs })));
    if (won.length === 0) return [];
    const documents = await this.call((signal) => this.collection.find({ _id: { $in: won } }, { signal }).toArray());
    const claims: OutboxClaim[] = [];
    for (const document of documents) {
      const deliveries = nextDeliveries(recordOf(document), now);
      if (deliveries.length === 0) continue;
      this.claimed.set(`${lease}/${document._id}`, document);
      claims.push({ plantId: document._id, lease, leaseUntil: now + leaseMs, deliveries });
    }
    // Settled by the previous holder since the candidates were read: nothing to do, let go.
    const idle = won.filter((id) => !claims.some((claim) => claim.plantId === id));
    if (idle.length > 0) await this.call(() => this.leases.deleteMany({ _id: { $in: idle }, lease }));
    return claims;
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    // First against the document as claimed (one write); re-read only if a change came in between.
    let document: PlantDocument | null | undefined = this.claimed.get(`${claim.lease}/${claim.plantId}`);
    this.claimed.delete(`${claim.lease}/${claim.plantId}`);
    let written = false;
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS && !written; attempt++) {
      document ??= await this.read(claim.plantId);
      if (document === null) break;
      written = await this.replaceOutbox(document, settled(recordOf(document), outcomes));
      document = undefined;
    }
    // A lease left behind (this call failing) only delays the plant's next attempt until it lapses.
    await this.call(() => this.leases.deleteOne({ _id: claim.plantId, lease: claim.lease })).catch(() => {});
    return written;
  }

  async state(): Promise<DeliveryState> {
    const documents = await this.call((signal) => this.collection.find({ outbox: { $exists: true } }, { projection: { outbox: 1 }, signal }).toArray());
    return stateOf(documents.map((document): [number, OutboxRecord] => [document._id, recordOf(document)]));
  }

  async retryFailed(now: number): Promise<number> {
    const documents = await this.call((signal) =>
      this.collection.find({ 'outbox.failed': true } as Filter<PlantDocument>, { projection: { _id: 1 }, signal }).toArray(),
    );
    let total = 0;
    for (const { _id } of documents) {
      for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
        const document = await this.read(_id);
        if (document === null) break;
        const { record, count } = retried(recordOf(document), now);
        if (count === 0) break;
        if (await this.replaceOutbox(document, record)) {
          total += count;
          break;
        }
      }
    }
    return total;
  }

  private call<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(this.callTimeoutMs, work);
  }

  /** The plant ids whose lease this insert placed; an id already leased is refused by the unique index. */
  private async insertLeases(leases: LeaseDocument[]): Promise<number[]> {
    const placed = await this.call(() => insertEach(this.leases, leases));
    return leases.filter((_, i) => placed[i]).map((lease) => lease._id);
  }

  private read(id: number): Promise<PlantDocument | null> {
    return this.call((signal) => this.collection.findOne({ _id: id }, { signal }));
  }

  /** Writes `next` as the document's outbox if nobody changed it since it was read; a done tombstone goes. */
  private async replaceOutbox(document: PlantDocument, next: OutboxRecord | undefined): Promise<boolean> {
    const unchanged = { _id: document._id, v: document.v ?? { $exists: false } } as Filter<PlantDocument>;
    if (next === undefined && document.gone === true) {
      const deleted = await this.call(() => this.collection.deleteOne(unchanged));
      return deleted.deletedCount === 1;
    }
    const update: UpdateFilter<PlantDocument> =
      next === undefined
        ? { $inc: { v: 1 }, $unset: { outbox: '', due: '' } }
        : { $inc: { v: 1 }, $set: { outbox: [...next.deliveries], ...(next.dueAt !== undefined && { due: next.dueAt }) }, ...(next.dueAt === undefined && { $unset: { due: '' } }) };
    const updated = await this.call(() => this.collection.updateOne(unchanged, update));
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
