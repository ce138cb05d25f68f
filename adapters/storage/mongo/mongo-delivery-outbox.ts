import { randomUUID } from 'node:crypto';
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import {
  nextDeliveries,
  withDeliveries,
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
import { asRead, outboxFields, recordOf } from './mongo-outbox-writes.js';
import { keysOf, plantKey, plantOfKey, type PlantDocument, type PlantKey } from './plant-document.js';

/** Finds the plants with deliveries due; plants without any have no `due` and stay out of the way. */
export const DUE_INDEX = { key: { due: 1 }, name: 'due_1' } as const;
// A worker's conditional write loses to a concurrent change of the same plant; it re-reads and tries again.
const SETTLE_ATTEMPTS = 5;

/** A claim's hold on one plant, for choosing one claim among servers: `_id` is the plant document's `_id`. */
export interface LeaseDocument {
  _id: PlantKey;
  lease: string;
  /** Past this (ms since the epoch) the holder is taken to be dead and another server may claim. */
  until: number;
}

/** An endpoint that answered 410 Gone; `_id` is its URL. */
export interface EndpointDocument {
  _id: string;
  /** When it answered 410 (ms since the epoch). */
  goneAt: number;
}

/**
 * The outbox of the MongoDB storage, kept inside the plants' documents (see
 * mongo-outbox-writes.ts). Several servers may share the database; each write below is one
 * single-document operation, atomic on MongoDB (see docs for what FerretDB 1.x does not
 * make atomic):
 * - a claim stamps its lease into each due document whose lease is absent or lapsed, so one
 *   claim at a time holds a plant (a lease document per plant, whose unique `_id` lets one
 *   insert win, first picks one claim among servers even where updates are not atomic);
 * - a settle writes only while the document still carries its lease and the version it read:
 *   after another claim took the plant, or a new plant took the id, it writes nothing.
 * Endpoints that answered 410 are kept in a collection of their own, for every server.
 * Claims, retries and the state without a sandbox named take every sandbox's plants: each
 * plant is known by its document's `_id` (see PlantKey), which also names its sandbox.
 */
export class MongoDeliveryOutbox implements DeliveryOutbox {
  /** The documents as this server's claims read them, by lease and key (see claimKey): settling needs no re-read. */
  private readonly claimed = new Map<string, PlantDocument>();

  constructor(
    private readonly collection: Collection<PlantDocument>,
    private readonly leases: Collection<LeaseDocument>,
    private readonly endpoints: Collection<EndpointDocument>,
    /** The longest one of its calls may take before it fails (the storage's timeout). */
    readonly callTimeoutMs: number,
    /** Picks among the candidates; a simulation passes a seeded one to replay a schedule. */
    private readonly random: () => number = Math.random,
  ) {}

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    // Five calls per batch, whatever its size: due candidates; lapsed leases among them
    // removed; one lease document inserted per candidate (the unique `_id` index refuses
    // the taken ones, atomically even on stand-ins whose conditional updates are not, such
    // as FerretDB 1.x); the lease stamped into the plants won (only where no live lease is,
    // atomic per document on MongoDB: the stamp is what a settle checks); a read of them.
    // A plant whose change is still on its way to the change log (pending-changes.ts) waits for
    // it: its writer's next write to the document comes within the call, and a claim racing it
    // would only risk it where updates are not atomic (FerretDB); a stopped writer's change is
    // copied by the sweeper, and its deliveries go then.
    const due = { due: { $lte: now }, fv: { $exists: false } } as Filter<PlantDocument>;
    const candidates = await this.call((signal) => this.collection.find(due, { sort: { due: 1 }, limit: limit * 2, projection: { _id: 1 }, signal }).toArray());
    if (candidates.length === 0) return [];
    // Servers see the same candidates: shuffled, each mostly takes plants the others do not.
    const ids = shuffled(candidates.map((candidate) => candidate._id), this.random).slice(0, limit);
    await this.call(() => this.leases.deleteMany({ _id: { $in: ids }, until: { $lt: now } }));
    const lease = randomUUID();
    const leaseUntil = now + leaseMs;
    const won = await this.insertLeases(ids.map((_id) => ({ _id, lease, until: leaseUntil })));
    if (won.length === 0) return [];
    const free = { _id: { $in: won }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] } as Filter<PlantDocument>;
    await this.call(() => this.collection.updateMany(free, { $set: { lease, leaseUntil } }));
    const documents = await this.call((signal) => this.collection.find({ _id: { $in: won }, lease } as Filter<PlantDocument>, { signal }).toArray());
    const claims: OutboxClaim[] = [];
    const taken = new Set<PlantKey>();
    for (const document of documents) {
      const deliveries = nextDeliveries(recordOf(document), now);
      if (deliveries.length === 0) {
        // Settled by the previous holder since the candidates were read, or its `due` was
        // early (written before these invariants held): set it right and let go.
        await this.write(document, withDeliveries(recordOf(document), []), lease);
        continue;
      }
      this.claimed.set(claimKey(lease, document._id), document);
      taken.add(document._id);
      // The plant and its sandbox are the key's, so the settle finds this very document.
      claims.push({ ...plantOfKey(document._id), lease, leaseUntil, deliveries });
    }
    // Lease documents of plants not claimed after all (gone, or not due any more).
    const idle = won.filter((key) => !taken.has(key));
    if (idle.length > 0) await this.call(() => this.leases.deleteMany({ _id: { $in: idle }, lease }));
    return claims;
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    // First against the document as claimed (one write); re-read only if a change came in between.
    const key = plantKey(claim.plantId, claim.sandbox);
    let document: PlantDocument | null | undefined = this.claimed.get(claimKey(claim.lease, key));
    this.claimed.delete(claimKey(claim.lease, key));
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      document ??= await this.read(key);
      // Another claim took the plant after this one lapsed, or the id now holds a new plant.
      if (document === null || document.lease !== claim.lease) {
        await this.releaseLease(key, claim.lease);
        return false;
      }
      if (await this.write(document, settled(recordOf(document), outcomes), claim.lease)) {
        await this.releaseLease(key, claim.lease);
        return true;
      }
      document = undefined;
    }
    // Left claimed: the plant is claimed again once the lease lapses, and sent again.
    return false;
  }

  /** Lets the lease document go once the plant's own stamp is released (or was taken over). */
  private async releaseLease(key: PlantKey, lease: string): Promise<void> {
    // A lease document left behind (this call failing) only delays the plant until it lapses.
    await this.call(() => this.leases.deleteOne({ _id: key, lease })).catch(() => {});
  }

  async state(sandbox?: string): Promise<DeliveryState> {
    // A sandbox's plants are those under its keys (one `_id` range for a named sandbox).
    const filter = { outbox: { $exists: true }, ...(sandbox !== undefined && { _id: keysOf(sandbox) }) } as Filter<PlantDocument>;
    const documents = await this.call((signal) => this.collection.find(filter, { projection: { outbox: 1 }, signal }).toArray());
    return stateOf(documents.map((document) => recordOf(document)));
  }

  async retryFailed(now: number): Promise<number> {
    await this.call(() => this.endpoints.deleteMany({}));
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
        // A claim holding the plant keeps it: its settle re-reads and finds these pending.
        if (await this.write(document, record)) {
          total += count;
          break;
        }
      }
    }
    return total;
  }

  async goneEndpoints(): Promise<ReadonlySet<string>> {
    const documents = await this.call((signal) => this.endpoints.find({}, { signal }).toArray());
    return new Set(documents.map((document) => document._id));
  }

  async markGone(endpoint: string, now: number): Promise<void> {
    await this.call(() => this.endpoints.updateOne({ _id: endpoint }, { $set: { goneAt: now } }, { upsert: true }));
  }

  private call<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(this.callTimeoutMs, work);
  }

  /** The plants (keys) whose lease this insert placed; a plant already leased is refused by the unique index. */
  private async insertLeases(leases: LeaseDocument[]): Promise<PlantKey[]> {
    const placed = await this.call(() => insertEach(this.leases, leases));
    return leases.filter((_, i) => placed[i]).map((lease) => lease._id);
  }

  private read(key: PlantKey): Promise<PlantDocument | null> {
    return this.call((signal) => this.collection.findOne({ _id: key }, { signal }));
  }

  /**
   * Writes `next` as the document's outbox if the document is still as read (and, with
   * `lease`, still held by it, which the write releases); a tombstone with nothing left goes.
   */
  private async write(document: PlantDocument, next: OutboxRecord | undefined, lease?: string): Promise<boolean> {
    let unchanged = lease === undefined ? asRead(document) : ({ ...asRead(document), lease } as Filter<PlantDocument>);
    if (next === undefined && document.gone === true) {
      if (document.fv === undefined) return (await this.call(() => this.collection.deleteOne({ ...unchanged, fv: { $exists: false } } as Filter<PlantDocument>))).deletedCount === 1;
      // Changes on their way to the change log keep the tombstone (pending-changes.ts); should
      // their copier take them out first, this write misses, and the re-read deletes it.
      unchanged = { ...unchanged, fv: document.fv } as Filter<PlantDocument>;
    }
    const { set, unset } = outboxFields(next);
    const update: UpdateFilter<PlantDocument> = { $set: set, $unset: lease === undefined ? unset : { ...unset, lease: '', leaseUntil: '' } };
    return (await this.call(() => this.collection.updateOne(unchanged, update))).matchedCount === 1;
  }
}

/** A claimed document's entry in `claimed`: a number key has no '/', a string key always one, so none collide. */
const claimKey = (lease: string, key: PlantKey): string => `${lease}/${key}`;

function shuffled<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
