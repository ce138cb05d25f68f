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
import { reading, writing } from './disk-errors.js';

/**
 * The outbox of the disk storage: a database `outbox` in the same LMDB environment, one
 * record per plant with deliveries, keyed by plant id. `recordIn` runs inside the plant's
 * own write transaction, so a change and its deliveries are one commit and one sync.
 */
export class DiskDeliveryOutbox implements DeliveryOutbox {
  private readonly records: Database<OutboxRecord, number>;
  /** Endpoints that answered 410 Gone, by URL: when (ms since the epoch). */
  private readonly endpoints: Database<number, string>;
  /**
   * Claims, by plant, kept in memory only: the directory's lock means no other process
   * works on it, and a claim cannot outlive the process that made it. So claiming writes
   * nothing (no commit, no sync), and after a crash every delivery is claimable at once.
   */
  private readonly claims = new Map<number, { readonly lease: string; readonly until: number }>();
  /**
   * When each record is next due, by plant, kept in memory so that a claim reads only the
   * records that are due: reading every record (as a claim did) took 230 ms at 100,000
   * records waiting for a retry (an endpoint down), on every wake, i.e. every change. A
   * write is noted here only once it is on disk (`noteDurable`): LMDB runs a transaction's
   * callback before the commit, and a claim reading the record in between would not find it
   * (and, when it dropped the entry, leave the delivery unsent until a restart). Only a hint:
   * a claim checks the record itself. Built by one scan at the first claim, and again after
   * a failed write (whose records may not be what the index says).
   */
  private due: Map<number, number> | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly isClosed: () => boolean,
    /** The longest one of its writes may take before it fails (the storage's timeout). */
    readonly callTimeoutMs: number,
  ) {
    this.records = root.openDB<OutboxRecord, number>({ name: 'outbox' });
    this.endpoints = root.openDB<number, string>({ name: 'gone-endpoints' });
  }

  /**
   * Appends a change's deliveries; call only inside a write transaction, and hand the record
   * it answers to `noteDurable` once that transaction is on disk.
   */
  recordIn(plantId: number, deliveries: readonly PendingDelivery[]): OutboxRecord | undefined {
    if (deliveries.length === 0) return undefined;
    const record = withDeliveries(this.records.get(plantId), deliveries)!;
    void this.records.put(plantId, record);
    return record;
  }

  /** A record written by a change is on disk: claims may take it from now on. */
  noteDurable(plantId: number, record: OutboxRecord): void {
    this.noteDue(plantId, record);
  }

  /** A change's write failed, perhaps after its commit: the next claim reads the records afresh. */
  forgetIndex(): void {
    this.due = undefined;
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      const due = (this.due ??= this.scanDue());
      const claims: OutboxClaim[] = [];
      for (const [key, dueAt] of due) {
        if (claims.length >= limit) break;
        if (dueAt > now) continue;
        // Held by a claim still running (a lapsed one is free to take).
        if ((this.claims.get(key)?.until ?? -Infinity) >= now) continue;
        const value = this.records.get(key);
        if (value === undefined) {
          due.delete(key);
          continue;
        }
        if (!isClaimable(value, now)) {
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

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    if (this.claims.get(claim.plantId)?.lease !== claim.lease) return false;
    try {
      const notes: [number, OutboxRecord | undefined][] = [];
      return await this.transaction(notes, () => {
        const record = this.records.get(claim.plantId);
        if (record === undefined) return false;
        const next = settled(record, outcomes);
        if (next === undefined) void this.records.remove(claim.plantId);
        else void this.records.put(claim.plantId, next);
        notes.push([claim.plantId, next]);
        return true;
      });
    } finally {
      // Held until the outcome is on disk: a claim before that would read the record as it
      // was and send the same deliveries again.
      if (this.claims.get(claim.plantId)?.lease === claim.lease) this.claims.delete(claim.plantId);
    }
  }

  async state(sandbox?: string): Promise<DeliveryState> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      return stateOf([...this.records.getRange()].map(({ value }) => value), sandbox);
    });
  }

  retryFailed(now: number): Promise<number> {
    const notes: [number, OutboxRecord][] = [];
    return this.transaction(notes, () => {
      for (const endpoint of this.endpoints.getKeys()) void this.endpoints.remove(endpoint);
      let total = 0;
      for (const { key, value } of this.records.getRange()) {
        const { record, count } = retried(value, now);
        if (count > 0) {
          void this.records.put(key, record);
          notes.push([key, record]);
        }
        total += count;
      }
      return total;
    });
  }

  async goneEndpoints(): Promise<ReadonlySet<string>> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      return new Set(this.endpoints.getKeys());
    });
  }

  async markGone(endpoint: string, now: number): Promise<void> {
    await this.transaction([], () => void this.endpoints.put(endpoint, now));
  }

  /** A write of the outbox's own; `notes` (filled by `work`) reach the index once it is on disk. */
  private async transaction<T>(notes: readonly [number, OutboxRecord | undefined][], work: () => T): Promise<T> {
    if (this.isClosed()) throw toStoreError(new Error('the disk storage is closed'));
    try {
      return await writing(this.callTimeoutMs, async () => {
        const result = await this.root.transaction(work);
        await this.root.flushed;
        for (const [plantId, record] of notes) this.noteDue(plantId, record);
        return result;
      });
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
