import type { PendingDelivery } from '../outbox/pending-delivery.js';

/** What one attempt came to: the receiver's status, or an error that kept one from coming. */
export interface AttemptAnswer {
  readonly status?: number;
  readonly error?: string;
}

/** An answer and how long the attempt took, for the log. */
export interface SentAttempt extends AttemptAnswer {
  readonly durationMs: number;
}

/**
 * Makes one attempt to send a delivery to its endpoint. Every failure (refused, timed out,
 * redirected) is an answer with `error`, never a rejection: what it means is the core's rule.
 */
export interface WebhookTransport {
  send(delivery: PendingDelivery): Promise<SentAttempt>;
}
