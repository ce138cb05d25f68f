import { DEFAULT_SANDBOX } from '../sandbox.js';
import type { DeliveryOutcome, DeliveryState, FailedDelivery, OutboxRecord, PendingDelivery } from './pending-delivery.js';

// The bookkeeping of a plant's outbox, the same for every storage: each storage only keeps
// the record, atomically with the plant.

/** The record with `added` appended (the change's deliveries), or undefined when nothing is left. */
export function withDeliveries(record: OutboxRecord | undefined, added: readonly PendingDelivery[]): OutboxRecord | undefined {
  const deliveries = [...(record?.deliveries ?? []), ...added];
  if (deliveries.length === 0) return undefined;
  return recomputed({ ...record, deliveries });
}

/**
 * The deliveries that may be attempted now: per endpoint the oldest one, if it is due and not
 * failed. A younger one waits for it, so per plant and endpoint the order of changes holds;
 * behind a failed one it waits until failed deliveries are retried (a deletion is never
 * delivered before its creation, even one retried by hand).
 */
export function nextDeliveries(record: OutboxRecord, now: number): PendingDelivery[] {
  return heads(record.deliveries).filter((delivery) => delivery.dueAt <= now);
}

/** Whether a worker may claim the record now: something is due and no live claim holds it. */
export function isClaimable(record: OutboxRecord, now: number): boolean {
  return record.dueAt !== undefined && record.dueAt <= now && (record.leaseUntil === undefined || record.leaseUntil < now);
}

/** The record claimed by `lease` until `leaseUntil`. */
export function claimed(record: OutboxRecord, lease: string, leaseUntil: number): OutboxRecord {
  return { ...record, lease, leaseUntil };
}

/** The record after a claim's outcomes, its lease released; undefined when no delivery is left. */
export function settled(record: OutboxRecord, outcomes: readonly DeliveryOutcome[]): OutboxRecord | undefined {
  const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
  const deliveries: PendingDelivery[] = [];
  for (const delivery of record.deliveries) {
    const outcome = byId.get(delivery.id);
    if (outcome === undefined) deliveries.push(delivery);
    else if (outcome.result !== 'delivered') deliveries.push(afterAttempt(delivery, outcome));
  }
  if (deliveries.length === 0) return undefined;
  const { lease: _lease, leaseUntil: _until, ...rest } = record;
  return recomputed({ ...rest, deliveries });
}

/** The record with its failed deliveries pending again from `now` (attempts start over). */
export function retried(record: OutboxRecord, now: number): { record: OutboxRecord; count: number } {
  let count = 0;
  const deliveries = record.deliveries.map((delivery) => {
    if (!delivery.failed) return delivery;
    count++;
    const { failed: _failed, ...rest } = delivery;
    return { ...rest, attempts: 0, dueAt: now };
  });
  return { record: recomputed({ ...record, deliveries }), count };
}

function afterAttempt(delivery: PendingDelivery, outcome: DeliveryOutcome): PendingDelivery {
  const attempted = {
    ...delivery,
    attempts: delivery.attempts + 1,
    ...(outcome.status !== undefined && { lastStatus: outcome.status }),
    ...(outcome.error !== undefined && { lastError: outcome.error }),
  };
  if (outcome.status === undefined) delete (attempted as { lastStatus?: number }).lastStatus;
  if (outcome.error === undefined) delete (attempted as { lastError?: string }).lastError;
  return outcome.result === 'failed' ? { ...attempted, failed: true } : { ...attempted, dueAt: outcome.dueAt ?? delivery.dueAt };
}

/** dueAt from the deliveries that may go next (a waiting one is not due before the one ahead of it). */
function recomputed(record: OutboxRecord): OutboxRecord {
  const due = heads(record.deliveries).map((delivery) => delivery.dueAt);
  const { dueAt: _old, ...rest } = record;
  return due.length === 0 ? rest : { ...rest, dueAt: Math.min(...due) };
}

/** Per endpoint the oldest delivery, unless it failed (then none goes to that endpoint). */
function heads(deliveries: readonly PendingDelivery[]): PendingDelivery[] {
  const seen = new Set<string>();
  const result: PendingDelivery[] = [];
  for (const delivery of deliveries) {
    if (seen.has(delivery.endpoint)) continue;
    seen.add(delivery.endpoint);
    if (!delivery.failed) result.push(delivery);
  }
  return result;
}

/** Pending and failed counts of a record, for the delivery state. */
export function pendingOf(record: OutboxRecord): PendingDelivery[] {
  return record.deliveries.filter((delivery) => !delivery.failed);
}

/** Whether a delivery belongs to the sandbox: every one when none is named; absent on an event means the default. */
export function inSandbox(delivery: PendingDelivery, sandbox: string | undefined): boolean {
  return sandbox === undefined || (delivery.event.sandbox ?? DEFAULT_SANDBOX) === sandbox;
}

/**
 * The delivery state of a set of records, of one sandbox's deliveries or (none named) of
 * all; for the storages that read them all. A delivery's plant and sandbox are its event's.
 */
export function stateOf(records: Iterable<OutboxRecord>, sandbox?: string): DeliveryState {
  let pending = 0;
  let oldestPendingAt: number | undefined;
  const failed: FailedDelivery[] = [];
  for (const record of records) {
    const first = record.deliveries[0];
    if (first === undefined || !inSandbox(first, sandbox)) continue;
    for (const delivery of pendingOf(record)) {
      pending++;
      oldestPendingAt = Math.min(oldestPendingAt ?? delivery.createdAt, delivery.createdAt);
    }
    for (const delivery of record.deliveries) {
      if (!delivery.failed) continue;
      failed.push({
        id: delivery.id,
        plantId: delivery.event.data.id,
        ...(delivery.event.sandbox !== undefined && { sandbox: delivery.event.sandbox }),
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
