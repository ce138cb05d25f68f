import type { Collection, Filter, UpdateFilter } from 'mongodb';
import type { PendingChange, PlantDocument, PlantKey } from './plant-document.js';

// A plant's changes on their way to the change log, on a database without multi-document
// transactions: a write of a plant puts its change into the plant's own document (`feed`), in
// the same single-document write as the change (which MongoDB applies atomically); right after,
// the writer copies the document's pending changes into the log collection (mongo-change-log.ts)
// and takes them out of the document. A writer that stops between the two leaves them there, for
// the sweeper to copy. Invariants every write keeps (with those of mongo-outbox-writes.ts):
// - `feed` holds, oldest first, every change of the plant written and not yet known to be in
//   the log; `fv` and `feedSince` are there exactly when `feed` is.
// - A write that adds to `feed` gives `fv` a fresh value, and knows every change already in it:
//   it is an insert, or conditional on the outbox version `v` as it read the document (every
//   write that adds to `feed` also renews `v`), or conditional on there being no `feed`.
// - Changes leave a document only by a write conditional on `fv` as their copier knows it, so a
//   change added since is never taken out before it is copied.
// - A tombstone holds an outbox or pending changes: the write that takes away the last of them
//   deletes the document instead (a worker's outbox write is conditional on `fv` as read).
// - A document with pending changes is not claimed for delivery (mongo-delivery-outbox.ts).

/** A change to record with a write: the change, and when it is written (for `feedSince`). */
export interface NewChange {
  readonly change: PendingChange;
  readonly now: number;
}

/** What copying a document's pending changes into the log needs to know: what the write left there. */
export interface Pending {
  readonly key: PlantKey;
  /** The pending changes as the writer knows them, oldest first: every one still in the document, and maybe some already copied. */
  readonly changes: readonly PendingChange[];
  /** `fv` as written. */
  readonly fv: number;
  /** The document is a tombstone without deliveries: deleted once its changes are copied. */
  readonly bare: boolean;
}

/** What an add or remove did: false when refused, true when done with no change to copy, else the changes to copy. */
export type Written = boolean | Pending;

/** The fields of a new document that hold `change` alone. */
export function pendingFields({ change, now }: NewChange, fv: number): Pick<PlantDocument, 'feed' | 'fv' | 'feedSince'> {
  return { feed: [change], fv, feedSince: now };
}

/** `update` that also adds `change` to the document's pending changes (`feedSince` kept if older). */
export function withPendingChange(update: UpdateFilter<PlantDocument>, { change, now }: NewChange, fv: number): UpdateFilter<PlantDocument> {
  return { ...update, $set: { ...update.$set, fv }, $push: { feed: change }, $min: { feedSince: now } } as UpdateFilter<PlantDocument>;
}

/** What the sweeper finds of a document with changes left behind. */
export function pendingOf(document: PlantDocument): Pending | undefined {
  if (document.feed === undefined || document.fv === undefined) return undefined;
  return { key: document._id, changes: document.feed, fv: document.fv, bare: document.gone === true && document.outbox === undefined };
}

/**
 * Takes copied changes out of their document, unless changes were added since (their writer
 * takes these out with its own); a tombstone left with nothing is deleted. The likelier shape
 * is tried first; a worker emptying a tombstone's outbox meanwhile turns one into the other.
 */
export async function forgetCopied(collection: Collection<PlantDocument>, { key, fv, bare }: Pending): Promise<void> {
  const mine = { _id: key, fv };
  const keepsDocument = async () =>
    (await collection.updateOne({ ...mine, $or: [{ gone: { $exists: false } }, { outbox: { $exists: true } }] } as Filter<PlantDocument>, { $unset: { feed: '', fv: '', feedSince: '' } })).matchedCount === 1;
  const deletesDocument = async () => (await collection.deleteOne({ ...mine, gone: true, outbox: { $exists: false } } as Filter<PlantDocument>)).deletedCount === 1;
  const tries = bare ? [deletesDocument, keepsDocument] : [keepsDocument, deletesDocument];
  for (const attempt of tries) if (await attempt()) return;
  // Neither: `fv` changed (a newer write's copier takes these out with its own) or the document is gone.
}
