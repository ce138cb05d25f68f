import { randomBytes } from 'node:crypto';
import type { PendingDelivery, Plant } from '../../../core/index.js';

/**
 * A plant as stored in MongoDB. The plant id is `_id`, so the primary key index makes ids
 * unique and serves id ranges. The other fields are the plant's outbox (see
 * mongo-outbox-writes.ts), written in the same single-document write as the change.
 */
export interface PlantDocument {
  _id: number;
  name: string;
  tag?: string;
  /** Deliveries of this plant's changes, oldest first; absent when none is left. */
  outbox?: PendingDelivery[];
  /** Earliest next attempt among them (indexed, so workers find due plants); absent when none is due. */
  due?: number;
  /** A deleted plant whose deletion (or earlier) deliveries are still in `outbox`: no plant for readers. */
  gone?: true;
  /**
   * The outbox's version: a fresh random number at every write that touches the outbox, so a
   * version never comes back, not even in a document created anew under the same id (a
   * counter restarting at 1 did). Writes made from a read of the document are conditional on
   * it, so none undoes a change it did not see.
   */
  v?: number;
  /** The claim holding the outbox (a worker's lease) and until when (ms since the epoch). */
  lease?: string;
  leaseUntil?: number;
}

/** A new outbox version: 48 random bits, never handed out twice in practice. */
export function freshVersion(): number {
  return randomBytes(6).readUIntBE(0, 6);
}

// Field by field, in both directions: unknown fields neither reach the database nor leave it.
export function toDocument(plant: Plant): PlantDocument {
  return plant.tag === undefined ? { _id: plant.id, name: plant.name } : { _id: plant.id, name: plant.name, tag: plant.tag };
}

export function toPlant(document: PlantDocument): Plant {
  // A tag of null (written by hand, say) means no tag, as it does on the wire.
  return document.tag === undefined || document.tag === null
    ? { id: document._id, name: document.name }
    : { id: document._id, name: document.name, tag: document.tag };
}

/** The plant's fields (and the tombstone mark), so outboxes and stray fields are not even transferred. */
export const plantProjection = { _id: 1, name: 1, tag: 1, gone: 1 } as const;
