import { randomUUID } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import {
  isClaimable,
  nextDeliveries,
  retried,
  settled,
  stateOf,
  withDeliveries,
  type DeliveryOutbox,
  type DeliveryOutcome,
  type DeliveryState,
  type OutboxClaim,
  type OutboxRecord,
  type PendingDelivery,
} from '../../../core/index.js';
import { toStoreError } from '../storage-unavailable.js';
import { reading } from './disk-errors.js';

/**
 * The outbox of the disk storage: a database `outbox` in the same LMDB environment, one
 * record per plant with deliveries, keyed by plant id. `recordIn` runs inside the plant's
 * own write transaction, so a change and its deliveries are one commit and one sync.
 */
export class DiskDeliveryOutbox implements DeliveryOutbox {
  private readonly records: Database<OutboxRecord, number>;
  /**
   * Claims, by plant, kept in memory only: the directory's lock means no other process
   * works on it, and a claim cannot outlive the process that made it. So claiming writes
   * nothing (no commit, no sync), and after a crash every delivery is claimable at once.
   */
  private readonly claims = new Map<number, { readonly lease: string; readonly until: number }>();
  /**
   * When each record is next due, by plant, kept in memory so that a claim reads only the
   * records that are due: reading every record (as a claim did) took 230 ms at 100,000
   * records waiting for a retry (an endpoint down), on every wake, i.e. every change. Set in
   * the same synchronous step as each write, and only a hint: a claim checks the record
   * itself. Built by one scan at the first claim, and again after a failed write (whose
   * records may not be what the index says).
   */
  private due: Map<number, number> | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly isClosed: () => boolean,
  ) {
    this.records = root.openDB<OutboxRecord, number>({ name: 'outbox' });
  }

  /** Appends a change's deliveries; call only inside a write transaction. */
  recordIn(plantId: number, deliveries: readonly PendingDelivery[]): void {
    if (deliveries.length === 0) return;
    const record = withDeliveries(this.records.get(plantId), deliveries)!;
    void this.records.put(plantId, record);
    // Should the change's transaction fail, the hint names a record that is not due: harmless.
    this.noteDue(plantId, record);
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      const due = (this.due ??= this.scanDue());
      const claims: OutboxClaim[] = [];
      for (const [key, dueAt] of due) {
        if (claims.length >= limit) break;
        if (dueAt > now) continue;
        const held = this.claims.get(key);
        if (held !== undefined && held.until >= now) continue;
        const value = this.records.get(key);
        if (value === undefined) {
          due.delete(key);
          continue;
        }
        if (!isClaimable(held === undefined ? value : { ...value, leaseUntil: held.until }, now)) {
          this.noteDue(key, value);
          continue;
        }
        const lease = randomUUID();
        this.claims.set(key, { lease, until: now + leaseMs });
        claims.push({ plantId: key, lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(value, now) });
      }
      return claims;
    });
  }

  settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    if (this.claims.get(claim.plantId)?.lease !== claim.lease) return Promise.resolve(false);
    this.claims.delete(claim.plantId);
    return this.transaction(() => {
      const record = this.records.get(claim.plantId);
      if (record === undefined) return false;
      const next = settled(record, outcomes);
      if (next === undefined) void this.records.remove(claim.plantId);
      else void this.records.put(claim.plantId, next);
      this.noteDue(claim.plantId, next);
      return true;
    });
  }

  async state(): Promise<DeliveryState> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      return stateOf([...this.records.getRange()].map(({ key, value }): [number, OutboxRecord] => [key, value]));
    });
  }

  retryFailed(now: number): Promise<number> {
    return this.transaction(() => {
      let total = 0;
      for (const { key, value } of this.records.getRange()) {
        const { record, count } = retried(value, now);
        if (count > 0) {
          void this.records.put(key, record);
          this.noteDue(key, record);
        }
        total += count;
      }
      return total;
    });
  }

  private async transaction<T>(work: () => T): Promise<T> {
    if (this.isClosed()) throw toStoreError(new Error('the disk storage is closed'));
    try {
      return await this.root.transaction(work);
    } catch (error) {
      // The index may now name due times the records do not have: the next claim rebuilds it.
      this.due = undefined;
      throw toStoreError(error);
    }
  }

  /** The index entry for a record as just written (or read): its due time, or none. */
  private noteDue(plantId: number, record: OutboxRecord | undefined): void {
    if (this.due === undefined) return;
    if (record?.dueAt === undefined) this.due.delete(plantId);
    else this.due.set(plantId, record.dueAt);
  }

  private scanDue(): Map<number, number> {
    const due = new Map<number, number>();
    for (const { key, value } of this.records.getRange()) if (value.dueAt !== undefined) due.set(key, value.dueAt);
    return due;
  }
}
