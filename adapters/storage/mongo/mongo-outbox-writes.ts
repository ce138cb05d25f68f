import type { Collection, UpdateFilter } from 'mongodb';
import type { PendingDelivery, Plant } from '../../../core/index.js';
import { isDuplicateKey } from './mongo-errors.js';
import { toDocument, type PlantDocument } from './plant-document.js';

// Changes that carry deliveries, on a database without multi-document transactions: the
// deliveries live inside the plant's own document, so a change and its deliveries are one
// single-document write, which MongoDB applies atomically (FerretDB 1.x, the tests' stand-in,
// does not always under concurrency: see the README). A deleted plant
// with deliveries left becomes a tombstone (`gone`, no name or tag) until they are done;
// readers skip tombstones and the worker removes them.

const earliest = (deliveries: readonly PendingDelivery[]) => Math.min(...deliveries.map((delivery) => delivery.dueAt));

/** Inserts the plant with its deliveries, or revives its tombstone with them; false when a live plant holds the id. */
export async function addWithDeliveries(collection: Collection<PlantDocument>, plant: Plant, deliveries: readonly PendingDelivery[]): Promise<boolean> {
  const withOutbox: PlantDocument = deliveries.length === 0 ? toDocument(plant) : { ...toDocument(plant), outbox: [...deliveries], due: earliest(deliveries), v: 1 };
  // The id is free (inserted), held by a tombstone (revived by one conditional update) or by
  // a live plant (refused). A tombstone removed by a worker between the insert and the
  // revive leaves the id free: the insert is tried once more, so a free id is never refused.
  // The revive is tried on every refused insert: another server sharing the database may
  // have left the tombstone, so no flag of this process can say there is none. (Imports go
  // through addMany, which never revives: a refused create is the API's 409 path only.)
  const revive: UpdateFilter<PlantDocument> = {
    $set: plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
    $unset: { gone: '', ...(plant.tag === undefined && { tag: '' }) },
    $inc: { v: 1 },
    ...(deliveries.length > 0 && { $push: { outbox: { $each: [...deliveries] } }, $min: { due: earliest(deliveries) } }),
  };
  for (let round = 0; round < 2; round++) {
    if (await inserted(collection, withOutbox)) return true;
    if (round === 0 && (await collection.updateOne({ _id: plant.id, gone: true }, revive)).matchedCount === 1) return true;
  }
  return false;
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

/** Deletes the plant, or turns it into a tombstone holding its deliveries; false when no live plant has the id. */
export async function removeWithDeliveries(collection: Collection<PlantDocument>, id: number, deliveries: readonly PendingDelivery[]): Promise<boolean> {
  // Nothing to record and nothing waiting: a plain delete, as without webhooks.
  if (deliveries.length === 0) {
    const deleted = await collection.deleteOne({ _id: id, gone: { $exists: false }, outbox: { $exists: false } });
    if (deleted.deletedCount === 1) return true;
  }
  const tombstone: UpdateFilter<PlantDocument> = {
    $set: { gone: true },
    $unset: { name: '', tag: '' },
    $inc: { v: 1 },
    ...(deliveries.length > 0 && { $push: { outbox: { $each: [...deliveries] } }, $min: { due: earliest(deliveries) } }),
  };
  const updated = await collection.updateOne({ _id: id, gone: { $exists: false } }, tombstone);
  return updated.matchedCount === 1;
}
