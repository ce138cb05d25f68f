import { randomBytes } from 'node:crypto';
import { DEFAULT_SANDBOX, MAX_PLANT_ID, type PendingDelivery, type Plant, type PlantEvent } from '../../../core/index.js';

/**
 * A plant document's `_id`, which says both the plant and its sandbox:
 * - the default sandbox's plant is its id, a number, as before sandboxes existed (so data
 *   written then opens unchanged as the default sandbox, and its queries stay as they were);
 * - a named sandbox's is the string `<sandbox>/<id in 16 digits, zero-padded>`, so string
 *   order is id order and a sandbox's plants are one `_id` range, `"<sandbox>/"` up to
 *   `"<sandbox>0"` ('0' follows '/'; names hold no '/', so no other sandbox's keys fall
 *   between).
 * MongoDB compares values of different types by type alone, and a range (`$gt`, `$lt`) only
 * matches values of its bound's type: a numeric range never reaches a string `_id`, and a
 * string range never a number. So the default sandbox's reads cannot see named ones' plants,
 * nor theirs the default's, and each is a range of the `_id` (or `{tag, _id}`) index.
 */
export type PlantKey = number | string;

/** The digits of the largest id: every named sandbox's key pads its id to them. */
const ID_DIGITS = String(MAX_PLANT_ID).length;

const isDefault = (sandbox: string | undefined): sandbox is undefined => sandbox === undefined || sandbox === DEFAULT_SANDBOX;

/** The `_id` of plant `id` in `sandbox` (undefined or `default`: the default sandbox). */
export function plantKey(id: number, sandbox: string | undefined): PlantKey {
  if (isDefault(sandbox)) return id;
  // Outside these the key would not sort as the id, or would reach into another sandbox's
  // range; the core never asks for them, so this is a bug, not a user's mistake.
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`a plant id is an integer from 0 to ${MAX_PLANT_ID}, got ${id}`);
  return `${sandbox}/${String(id).padStart(ID_DIGITS, '0')}`;
}

/** The plant id and sandbox (absent for the default one) a key stands for. */
export function plantOfKey(key: PlantKey): { plantId: number; sandbox?: string } {
  if (typeof key === 'number') return { plantId: key };
  const slash = key.lastIndexOf('/');
  return { plantId: Number(key.slice(slash + 1)), sandbox: key.slice(0, slash) };
}


/** The keys of the sandbox's plants above `after`, as an `_id` condition (numeric for the default sandbox, as before). */
export function keysAfter(after: number, sandbox: string | undefined): { $gt: PlantKey; $lt?: string } {
  return isDefault(sandbox) ? { $gt: after } : { $gt: plantKey(after, sandbox), $lt: `${sandbox}0` };
}

/** Every key of the sandbox, as an `_id` condition. */
export function keysOf(sandbox: string | undefined): { $type: 'number' } | { $gt: string; $lt: string } {
  return isDefault(sandbox) ? { $type: 'number' } : { $gt: `${sandbox}/`, $lt: `${sandbox}0` };
}

/**
 * A plant as stored in MongoDB. The plant's key (its id, or in a named sandbox the sandbox
 * and id) is `_id`, so the primary key index makes ids unique per sandbox and serves id
 * ranges. The other fields are the plant's outbox (see mongo-outbox-writes.ts) and its
 * changes on their way to the change log (see pending-changes.ts), written in the same
 * single-document write as the change.
 */
export interface PlantDocument {
  _id: PlantKey;
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
  /** This plant's changes written but not yet in the change log, oldest first; absent when none. */
  feed?: PendingChange[];
  /** The version of `feed`: fresh at every write that adds to it, gone with it. */
  fv?: number;
  /** When the oldest of `feed` was written (ms since the epoch): indexed, so a sweeper finds changes left behind. */
  feedSince?: number;
}

/** A change as its plant's document keeps it until it is in the log (see pending-changes.ts). */
export interface PendingChange {
  /** The event id, which is the `_id` of its log document: copied twice, it is stored once. */
  readonly e: string;
  readonly type: PlantEvent['type'];
  readonly data: PlantEvent['data'];
}

/** A new outbox version: 48 random bits, never handed out twice in practice. */
export function freshVersion(): number {
  return randomBytes(6).readUIntBE(0, 6);
}

// Field by field, in both directions: unknown fields neither reach the database nor leave it.
// The id is the key's alone: a named sandbox's documents hold no copy of it to disagree with.
export function toDocument(plant: Plant, sandbox?: string): PlantDocument {
  return documentAt(plantKey(plant.id, sandbox), plant);
}

/** The plant's document under `key` (its plantKey). */
export function documentAt(_id: PlantKey, plant: Plant): PlantDocument {
  return plant.tag === undefined ? { _id, name: plant.name } : { _id, name: plant.name, tag: plant.tag };
}

export function toPlant(document: PlantDocument): Plant {
  const id = typeof document._id === 'number' ? document._id : plantOfKey(document._id).plantId;
  // A tag of null (written by hand, say) means no tag, as it does on the wire.
  return document.tag === undefined || document.tag === null ? { id, name: document.name } : { id, name: document.name, tag: document.tag };
}

/** The plant's fields (and the tombstone mark), so outboxes and stray fields are not even transferred. */
export const plantProjection = { _id: 1, name: 1, tag: 1, gone: 1 } as const;
