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

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      const claims: OutboxClaim[] = [];
      for (const { key, value } of this.records.getRange()) {
        if (claims.length >= limit) break;
        const held = this.claims.get(key);
        if (!isClaimable(held === undefined ? value : { ...value, leaseUntil: held.until }, now)) continue;
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
