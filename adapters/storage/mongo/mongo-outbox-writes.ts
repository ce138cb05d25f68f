import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { ErrorCode, PlantStoreError, withDeliveries, type OutboxRecord, type PendingDelivery, type Plant } from '../../../core/index.js';
import { isDuplicateKey } from './mongo-errors.js';
import { pendingFields, withPendingChange, type NewChange, type Written } from './pending-changes.js';
import { documentAt, freshVersion, type PendingChange, type PlantDocument, type PlantKey } from './plant-document.js';

// Changes that carry deliveries, on a database without multi-document transactions: the
// deliveries live inside the plant's own document, so a change and its deliveries are one
// single-document write, which MongoDB applies atomically (FerretDB 1.x, the tests' stand-in,
// does not always under concurrency: see docs). A deleted plant with deliveries left becomes
// a tombstone (`gone`, no name or tag) until they are done; readers skip tombstones and the
// worker removes them. Invariants every write keeps:
// - `due` is exactly the earliest due time of the deliveries that may go now (per endpoint
//   the oldest, unless failed), and absent when none may: a delivery queued behind a failing
//   one is not due, so it cannot fill a worker's batch with nothing to send.
// - A tombstone holds an outbox or changes on their way to the change log (pending-changes.ts):
//   one left with neither is deleted, never left behind.
// - A write computed from a read of the document is conditional on its version `v`.
// With a change log, each add and remove also puts its change into the document (`feed`),
// and answers what it left there to copy into the log (see Written).

/** Rounds a write may lose to concurrent changes of the same plant before it gives up. */
const ROUNDS = 8;

/** The fields that hold `record` (or none), for `$set` and `$unset`, with a fresh version. */
export function outboxFields(record: OutboxRecord | undefined): { set: Partial<PlantDocument>; unset: Record<string, ''> } {
  const set: Partial<PlantDocument> = { v: freshVersion() };
  const unset: Record<string, ''> = {};
  if (record === undefined) Object.assign(unset, { outbox: '', due: '' });
  else {
    set.outbox = [...record.deliveries];
    if (record.dueAt === undefined) unset.due = '';
    else set.due = record.dueAt;
  }
  return { set, unset };
}

/** The document's outbox as the core's record. */
export const recordOf = (document: PlantDocument): OutboxRecord => ({
  deliveries: document.outbox ?? [],
  ...(document.due !== undefined && { dueAt: document.due }),
});

/** Matches the document only as it was read: same version (or, like it, none). */
export const asRead = (document: PlantDocument): Filter<PlantDocument> =>
  ({ _id: document._id, v: document.v ?? { $exists: false } }) as Filter<PlantDocument>;

/**
 * Inserts the plant with its deliveries, or revives its tombstone with them; false when a
 * live plant holds the id. `key` is the plant's in its sandbox (see PlantKey): by default its
 * id, the default sandbox's. With `change`, the change goes into the document too.
 */
export async function addWithDeliveries(
  collection: Collection<PlantDocument>,
  plant: Plant,
  deliveries: readonly PendingDelivery[],
  key: PlantKey = plant.id,
  change?: NewChange,
): Promise<Written> {
  const record = withDeliveries(undefined, deliveries);
  const fv = freshVersion();
  const plain: PlantDocument = record === undefined ? documentAt(key, plant) : { ...documentAt(key, plant), ...outboxFields(record).set };
  const fresh = change === undefined ? plain : { ...plain, ...pendingFields(change, fv) };
  // The id is free (inserted), held by a live plant (refused), or by a tombstone: revived
  // with the tombstone's deliveries first, so the deletion still goes out before this
  // creation. The revive is tried on every refused insert: another server sharing the
  // database may have left the tombstone. (Imports go through addMany, which never revives.)
  for (let round = 0; round < ROUNDS; round++) {
    if (await inserted(collection, fresh)) return written(key, [], change, fv, false);
    const current = await collection.findOne({ _id: fresh._id });
    // Removed by a worker since the insert was refused: the id is free again.
    if (current === null) continue;
    if (current.gone !== true) return false;
    const { set, unset } = outboxFields(withDeliveries(recordOf(current), deliveries));
    const update: UpdateFilter<PlantDocument> = {
      $set: { ...set, name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) },
      $unset: { ...unset, gone: '', ...(plant.tag === undefined && { tag: '' }) },
    };
    const revived = change === undefined ? update : withPendingChange(update, change, fv);
    if ((await collection.updateOne({ ...asRead(current), gone: true }, revived)).matchedCount === 1) return written(key, current.feed ?? [], change, fv, false);
  }
  throw contention(plant.id);
}

/** What a write that succeeded left to copy: `before` (the pending changes it found) and its own. */
function written(key: PlantKey, before: readonly PendingChange[], change: NewChange | undefined, fv: number, bare: boolean): Written {
  return change === undefined ? true : { key, changes: [...before, change.change], fv, bare };
}

async function inserted(collection: Collection<PlantDocument>, document: PlantDocument): Promise<boolean> {
  try {
    await collection.insertOne(document);
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Deletes the plant (under `key`, as for add), or turns it into a tombstone holding its
 * deliveries (and, with `change`, the change until it is copied); false when no live plant
 * has the id.
 */
export async function removeWithDeliveries(
  collection: Collection<PlantDocument>,
  id: number,
  deliveries: readonly PendingDelivery[],
  key: PlantKey = id,
  change?: NewChange,
): Promise<Written> {
  const alone = withDeliveries(undefined, deliveries);
  const fv = freshVersion();
  const nothingWaiting = { _id: key, gone: { $exists: false }, outbox: { $exists: false }, ...(change !== undefined && { feed: { $exists: false } }) } as Filter<PlantDocument>;
  for (let round = 0; round < ROUNDS; round++) {
    // Nothing waiting for the plant: one write. A plain delete when this change records
    // nothing either (as without webhooks or a change log); a tombstone otherwise.
    if (change !== undefined) {
      if ((await collection.updateOne(nothingWaiting, withPendingChange(tombstone(alone), change, fv))).matchedCount === 1) return written(key, [], change, fv, alone === undefined);
    } else if (alone === undefined) {
      if ((await collection.deleteOne(nothingWaiting)).deletedCount === 1) return true;
    } else if ((await collection.updateOne(nothingWaiting, tombstone(alone))).matchedCount === 1) return true;
    // Deliveries or changes are waiting: the tombstone keeps them, this change's behind them.
    const current = await collection.findOne({ _id: key });
    if (current === null || current.gone === true) return false;
    const record = withDeliveries(recordOf(current), deliveries);
    // The worker emptied the outbox since: the one-write path above applies now.
    if (record === undefined && change === undefined) continue;
    const update = change === undefined ? tombstone(record) : withPendingChange(tombstone(record), change, fv);
    if ((await collection.updateOne({ ...asRead(current), gone: { $exists: false } }, update)).matchedCount === 1) return written(key, current.feed ?? [], change, fv, record === undefined);
  }
  throw contention(id);
}

function tombstone(record: OutboxRecord | undefined): UpdateFilter<PlantDocument> {
  const { set, unset } = outboxFields(record);
  return { $set: { ...set, gone: true }, $unset: { ...unset, name: '', tag: '' } };
}

/** Every round lost to another change of the same plant: unheard of but for a storm of writes to one id. */
function contention(id: number): PlantStoreError {
  return new PlantStoreError(ErrorCode.StorageUnavailable, `plant ${id} changed too often to be written; try again`);
}
