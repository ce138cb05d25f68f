import { randomUUID } from 'node:crypto';
import {
  claimed,
  isClaimable,
  nextDeliveries,
  pendingOf,
  retried,
  settled,
  withDeliveries,
  type DeliveryOutbox,
  type DeliveryOutcome,
  type DeliveryState,
  type FailedDelivery,
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

/** The delivery state of a set of records; shared by the storages that read them all. */
export function stateOf(records: Iterable<[number, OutboxRecord]>): DeliveryState {
  let pending = 0;
  let oldestPendingAt: number | undefined;
  const failed: FailedDelivery[] = [];
  for (const [plantId, record] of records) {
    for (const delivery of pendingOf(record)) {
      pending++;
      oldestPendingAt = Math.min(oldestPendingAt ?? delivery.createdAt, delivery.createdAt);
    }
    for (const delivery of record.deliveries) {
      if (!delivery.failed) continue;
      failed.push({
        id: delivery.id,
        plantId,
        endpoint: delivery.endpoint,
        type: delivery.event.type,
        createdAt: delivery.createdAt,
        attempts: delivery.attempts,
        ...(delivery.lastStatus !== undefined && { lastStatus: delivery.lastStatus }),
        ...(delivery.lastError !== undefined && { lastError: delivery.lastError }),
      });
    }
  }
  return { pending, ...(oldestPendingAt !== undefined && { oldestPendingAt }), failed };
}
