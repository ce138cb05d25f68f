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

/** A plant's key in the outbox: its id in the default sandbox, `<sandbox>/<id>` in another. */
type PlantKey = number | string;

const plantKey = (plantId: number, sandbox: string | undefined): PlantKey => (sandbox === undefined ? plantId : `${sandbox}/${plantId}`);

/**
 * The outbox of the memory storage: one record per plant with deliveries, written in the
 * same synchronous step as the plant (see MemoryPlantRepository). It lives and dies with
 * the process: pending deliveries are lost when it exits.
 */
export class MemoryDeliveryOutbox implements DeliveryOutbox {
  private readonly records = new Map<PlantKey, OutboxRecord>();
  /**
   * The plants with a delivery that may go (a due time): claims look only here, so failed
   * deliveries kept for operators, however many, cost a claim nothing.
   */
  private readonly scheduled = new Set<PlantKey>();
  /** Endpoints that answered 410 Gone. */
  private readonly gone = new Set<string>();

  /** Appends a change's deliveries; synchronous, so it is one step with the change. */
  record(plantId: number, sandbox: string | undefined, deliveries: readonly PendingDelivery[]): void {
    // Most changes have none: the key (a string in a named sandbox) is made only for those that do.
    if (deliveries.length === 0) return;
    const key = plantKey(plantId, sandbox);
    this.put(key, withDeliveries(this.records.get(key), deliveries));
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    const claims: OutboxClaim[] = [];
    for (const key of this.scheduled) {
      if (claims.length >= limit) break;
      const record = this.records.get(key)!;
      if (!isClaimable(record, now)) continue;
      const lease = randomUUID();
      this.put(key, claimed(record, lease, now + leaseMs));
      // The plant and its sandbox are its events'.
      const { data, sandbox } = record.deliveries[0]!.event;
      claims.push({ plantId: data.id, ...(sandbox !== undefined && { sandbox }), lease, leaseUntil: now + leaseMs, deliveries: nextDeliveries(record, now) });
    }
    return claims;
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    const key = plantKey(claim.plantId, claim.sandbox);
    const record = this.records.get(key);
    if (record === undefined || record.lease !== claim.lease) return false;
    this.put(key, settled(record, outcomes));
    return true;
  }

  async state(sandbox?: string): Promise<DeliveryState> {
    return stateOf(this.records.values(), sandbox);
  }

  async retryFailed(now: number): Promise<number> {
    this.gone.clear();
    let total = 0;
    for (const [key, record] of this.records) {
      const { record: next, count } = retried(record, now);
      if (count > 0) this.put(key, next);
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

  /** Drops up to `limit` records of the sandbox's plants (pending deliveries included); answers how many. */
  dropSandbox(sandbox: string, limit: number): number {
    const prefix = `${sandbox}/`;
    let dropped = 0;
    for (const key of this.records.keys()) {
      if (dropped >= limit) break;
      if (typeof key !== 'string' || !key.startsWith(prefix)) continue;
      this.put(key, undefined);
      dropped++;
    }
    return dropped;
  }

  /** Keeps `scheduled` in step with the records; undefined removes the plant's record. */
  private put(key: PlantKey, record: OutboxRecord | undefined): void {
    if (record === undefined) this.records.delete(key);
    else this.records.set(key, record);
    if (record?.dueAt === undefined) this.scheduled.delete(key);
    else this.scheduled.add(key);
  }
}
