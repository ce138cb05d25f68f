import type { DeliveryOutcome, DeliveryState, OutboxClaim } from '../outbox/pending-delivery.js';

/**
 * The deliveries a storage recorded with its changes, for the round that sends them
 * (DeliverDue). Each storage keeps them in its own atomic write with the plant (see
 * docs/webhooks.md); this port only hands them out and takes the outcomes back.
 */
export interface DeliveryOutbox {
  /**
   * Claims up to `limit` plants with deliveries due at `now`, each until `now + leaseMs`:
   * no other claim gets them meanwhile; after it, another worker may (its holder died).
   */
  claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]>;
  /**
   * Records the outcomes and releases the claim. A lapsed claim still settles while no other
   * claim has taken the plant; once one has (or the plant was deleted and created anew), it
   * writes nothing and answers false: the new holder sends the deliveries again.
   */
  settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean>;
  /** What waits and what failed: of one sandbox's plants, or of every sandbox's when none is named. */
  state(sandbox?: string): Promise<DeliveryState>;
  /**
   * Forgets every endpoint marked gone, then makes every failed delivery pending again, due
   * at `now`; returns how many deliveries. In that order, so no worker fails a retried
   * delivery on a mark the operator meant to clear.
   */
  retryFailed(now: number): Promise<number>;
  /**
   * The endpoints that answered 410 Gone, as marked by any worker sharing the storage; kept
   * with the data, so a restart or another server knows them too.
   */
  goneEndpoints(): Promise<ReadonlySet<string>>;
  /** Marks the endpoint gone (it answered 410 at `now`) until `retryFailed`. */
  markGone(endpoint: string, now: number): Promise<void>;
}
