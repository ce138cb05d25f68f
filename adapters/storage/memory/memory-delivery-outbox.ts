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
  /** Every call is answered at once. */
  readonly callTimeoutMs = 0;

  /** Appends a change's deliveries; synchronous, so it is one step with the change. */
  record(plantId: number, deliveries: readonly PendingDelivery[]): void {
    if (deliveries.length === 0) return;
    this.records.set(plantId, withDeliveries(this.records.get(plantId), deliveries)!);
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    const claims: OutboxClaim[] = [];
    for (const [plantId, record] of this.records) {
      if (claims.length >= limit) break;
      if (!isClaimable(record, now)) continue;
      const lease = randomUUID();
      this.records.set(plantId, claimed(record, lease, now + leaseMs));
      claims.push({ plantId, lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(record, now) });
    }
    return claims;
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    const record = this.records.get(claim.plantId);
    if (record === undefined || record.lease !== claim.lease) return false;
    const next = settled(record, outcomes);
    if (next === undefined) this.records.delete(claim.plantId);
    else this.records.set(claim.plantId, next);
    return true;
  }

  async state(): Promise<DeliveryState> {
    return stateOf(this.records);
  }

  async retryFailed(now: number): Promise<number> {
    let total = 0;
    for (const [plantId, record] of this.records) {
      const { record: next, count } = retried(record, now);
      if (count > 0) this.records.set(plantId, next);
      total += count;
    }
    return total;
  }
}
