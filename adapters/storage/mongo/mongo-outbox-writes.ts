import type { Collection, UpdateFilter } from 'mongodb';
import type { PendingDelivery, Plant } from '../../../core/index.js';
import { isDuplicateKey } from './mongo-errors.js';
import { toDocument, type PlantDocument } from './plant-document.js';

// Changes that carry deliveries, on a database without multi-document transactions: the
// deliveries live inside the plant's own document, so a change and its deliveries are one
// single-document write, which MongoDB (and FerretDB) apply atomically. A deleted plant
// with deliveries left becomes a tombstone (`gone`, no name or tag) until they are done;
// readers skip tombstones and the worker removes them.

const earliest = (deliveries: readonly PendingDelivery[]) => Math.min(...deliveries.map((delivery) => delivery.dueAt));

/** Inserts the plant with its deliveries, or revives its tombstone with them; false when a live plant holds the id. */
export async function addWithDeliveries(collection: Collection<PlantDocument>, plant: Plant, deliveries: readonly PendingDelivery[], mayHaveTombstones: boolean): Promise<boolean> {
  const withOutbox: PlantDocument = deliveries.length === 0 ? toDocument(plant) : { ...toDocument(plant), outbox: [...deliveries], due: earliest(deliveries), v: 1 };
  try {
    await collection.insertOne(withOutbox);
    return true;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  // Without tombstones in the collection the holder is a live plant. (The revival below
  // filters on more than `_id`, which FerretDB answers by a scan: kept off imports.)
  if (!mayHaveTombstones) return false;
  // The id is held by a live plant (refused) or a tombstone (revived): one conditional
  // update decides. A tombstone removed by the worker in the instant between the two calls
  // makes this a refusal of a free id; a retry of the create then succeeds.
  const revive: UpdateFilter<PlantDocument> = {
    $set: plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
    $unset: { gone: '', ...(plant.tag === undefined && { tag: '' }) },
    $inc: { v: 1 },
    ...(deliveries.length > 0 && { $push: { outbox: { $each: [...deliveries] } }, $min: { due: earliest(deliveries) } }),
  };
  return (await collection.updateOne({ _id: plant.id, gone: true }, revive)).matchedCount === 1;
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
