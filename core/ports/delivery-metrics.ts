/**
 * What an attempt came to, as an operator counts deliveries: sent (`delivered`), to be tried
 * again (`retried`), given up after the last attempt or for an endpoint no longer configured
 * (`failed`), or ended because the endpoint answered 410 Gone, now or before (`gone`).
 */
export type AttemptOutcome = 'delivered' | 'retried' | 'failed' | 'gone';

/**
 * Where the delivery round reports each attempt as it ends, for metrics: the core counts
 * where the outcome is decided and knows nothing of how it is exported.
 */
export interface DeliveryMetrics {
  /** `lagMs`: from the change to now (for `delivered`, how late the receiver got it). */
  attemptEnded(outcome: AttemptOutcome, lagMs: number): void;
}
