import { randomUUID } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import {
  claimed,
  isClaimable,
  nextDeliveries,
  retried,
  settled,
  withDeliveries,
  type DeliveryOutbox,
  type DeliveryOutcome,
  type DeliveryState,
  type OutboxClaim,
  type OutboxRecord,
  type PendingDelivery,
} from '../../../core/index.js';
import { stateOf } from '../memory/memory-delivery-outbox.js';
import { reading, toStoreError } from './disk-errors.js';

/**
 * The outbox of the disk storage: a database `outbox` in the same LMDB environment, one
 * record per plant with deliveries, keyed by plant id. `recordIn` runs inside the plant's
 * own write transaction, so a change and its deliveries are one commit and one sync.
 */
export class DiskDeliveryOutbox implements DeliveryOutbox {
  private readonly records: Database<OutboxRecord, number>;
  /**
   * The claims made by this instance. The directory's lock means no other process works
   * on it, so a claim found in a record and not made here was left by a process that
   * died: void at once, not after its lease time.
   */
  private readonly issued = new Set<string>();

  constructor(
    private readonly root: RootDatabase,
    private readonly isClosed: () => boolean,
  ) {
    this.records = root.openDB<OutboxRecord, number>({ name: 'outbox' });
  }

  /** Appends a change's deliveries; call only inside a write transaction. */
  recordIn(plantId: number, deliveries: readonly PendingDelivery[]): void {
    if (deliveries.length === 0) return;
    void this.records.put(plantId, withDeliveries(this.records.get(plantId), deliveries)!);
  }

  claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    return this.transaction(() => {
      const claims: OutboxClaim[] = [];
      // One process holds the directory, so the scan competes with no other worker; it
      // reads the records with deliveries only, never the plants.
      for (const { key, value: stored } of this.records.getRange()) {
        if (claims.length >= limit) break;
        const value = stored.lease === undefined || this.issued.has(stored.lease) ? stored : { ...stored, leaseUntil: undefined };
        if (!isClaimable(value, now)) continue;
        const lease = randomUUID();
        this.issued.add(lease);
        void this.records.put(key, claimed(value, lease, now + leaseMs));
        claims.push({ plantId: key, lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(value, now) });
      }
      return claims;
    });
  }

  settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    return this.transaction(() => {
      this.issued.delete(claim.lease);
      const record = this.records.get(claim.plantId);
      if (record === undefined || record.lease !== claim.lease) return false;
      const next = settled(record, outcomes);
      if (next === undefined) void this.records.remove(claim.plantId);
      else void this.records.put(claim.plantId, next);
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
        if (count > 0) void this.records.put(key, record);
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
      throw toStoreError(error);
    }
  }
}
