import type { PlantEvent } from '../plant-events.js';

/**
 * One event on its way to one endpoint. Written in the same atomic write as the change it
 * describes and kept until the endpoint took it (2xx) or the last attempt failed.
 */
export interface PendingDelivery {
  /** The `webhook-id`: unique per event and endpoint, the same on every attempt. */
  readonly id: string;
  readonly endpoint: string;
  readonly event: PlantEvent;
  /** When the change was made (ms since the epoch). */
  readonly createdAt: number;
  /** Attempts made so far. */
  readonly attempts: number;
  /** Earliest time of the next attempt (ms since the epoch). */
  readonly dueAt: number;
  /** Set once the last attempt failed (or the endpoint is gone); kept to be seen and retried. */
  readonly failed?: boolean;
  readonly lastStatus?: number;
  readonly lastError?: string;
  /** The W3C trace id of the request that made the change, repeated on every attempt's log line. */
  readonly traceId?: string;
}

/**
 * A plant's outbox: its deliveries in the order the changes were made, so a deletion never
 * overtakes the creation before it. Storages keep one per plant that has deliveries.
 */
export interface OutboxRecord {
  readonly deliveries: readonly PendingDelivery[];
  /** Earliest next attempt among the deliveries that may go now; absent when none is pending. */
  readonly dueAt?: number;
  /** The claim holding the record, and until when; a claim past its time is void (its holder died). */
  readonly lease?: string;
  readonly leaseUntil?: number;
}

/** What one attempt of a claimed delivery came to. */
export interface DeliveryOutcome {
  readonly id: string;
  readonly result: 'delivered' | 'retry' | 'failed';
  /** For `retry`: the time of the next attempt. */
  readonly dueAt?: number;
  readonly status?: number;
  readonly error?: string;
}

/** Deliveries of one plant taken by one worker until `leaseUntil`: at most one per endpoint, each its endpoint's oldest. */
export interface OutboxClaim {
  readonly plantId: number;
  /** The plant's sandbox; absent for the default one. */
  readonly sandbox?: string;
  readonly lease: string;
  readonly leaseUntil: number;
  readonly deliveries: readonly PendingDelivery[];
}

export interface FailedDelivery {
  readonly id: string;
  readonly plantId: number;
  /** The plant's sandbox; absent for the default one. */
  readonly sandbox?: string;
  readonly endpoint: string;
  readonly type: PlantEvent['type'];
  readonly createdAt: number;
  readonly attempts: number;
  readonly lastStatus?: number;
  readonly lastError?: string;
}

/** What waits and what failed, for operators. */
export interface DeliveryState {
  readonly pending: number;
  /** When the oldest pending delivery's change was made; absent when nothing is pending. */
  readonly oldestPendingAt?: number;
  readonly failed: readonly FailedDelivery[];
}
