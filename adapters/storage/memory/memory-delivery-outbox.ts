import { randomUUID } from 'node:crypto';
import {
  claimed,
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

/**
 * The outbox of the memory storage: one record per plant with deliveries, written in the
 * same synchronous step as the plant (see MemoryPlantRepository). It lives and dies with
 * the process: pending deliveries are lost when it exits.
 */
export class MemoryDeliveryOutbox implements DeliveryOutbox {
  private readonly records = new Map<number, OutboxRecord>();
  /**
   * The plants with a delivery that may go (a due time): claims look only here, so failed
   * deliveries kept for operators, however many, cost a claim nothing.
   */
  private readonly scheduled = new Set<number>();
  /** Endpoints that answered 410 Gone. */
  private readonly gone = new Set<string>();

  /** Appends a change's deliveries; synchronous, so it is one step with the change. */
  record(plantId: number, deliveries: readonly PendingDelivery[]): void {
    if (deliveries.length === 0) return;
    this.put(plantId, withDeliveries(this.records.get(plantId), deliveries));
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    const claims: OutboxClaim[] = [];
    for (const plantId of this.scheduled) {
      if (claims.length >= limit) break;
      const record = this.records.get(plantId)!;
      if (!isClaimable(record, now)) continue;
      const lease = randomUUID();
      this.put(plantId, claimed(record, lease, now + leaseMs));
      claims.push({ plantId, lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(record, now) });
    }
    return claims;
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    const record = this.records.get(claim.plantId);
    if (record === undefined || record.lease !== claim.lease) return false;
    this.put(claim.plantId, settled(record, outcomes));
    return true;
  }

  async state(): Promise<DeliveryState> {
    return stateOf(this.records);
  }

  async retryFailed(now: number): Promise<number> {
    this.gone.clear();
    let total = 0;
    for (const [plantId, record] of this.records) {
      const { record: next, count } = retried(record, now);
      if (count > 0) this.put(plantId, next);
      total += count;
    }
    return total;
  }

  async goneEndpoints(): Promise<ReadonlySet<string>> {
    return new Set(this.gone);
  }

  async markGone(endpoint: string): Promise<void> {
    this.gone.add(endpoint);
  }

  /** Keeps `scheduled` in step with the records; undefined removes the plant's record. */
  private put(plantId: number, record: OutboxRecord | undefined): void {
    if (record === undefined) this.records.delete(plantId);
    else this.records.set(plantId, record);
    if (record?.dueAt === undefined) this.scheduled.delete(plantId);
    else this.scheduled.add(plantId);
  }
}
