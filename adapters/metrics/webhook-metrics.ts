import { Gauge, type Registry } from 'prom-client';
import type { AttemptOutcome, DeliveryMetrics, DeliveryState } from '../../core/index.js';
import { LAG_SECONDS } from './buckets.js';
import { CachedReading, SHARED_STORAGE } from './cached-reading.js';
import { TalliedCounter, type CounterSeries } from './tallied-counter.js';
import { TalliedHistogram, type HistogramSeries } from './tallied-histogram.js';

const OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retried', 'failed', 'gone'];

/** Where the pending gauges read from: the outbox's state and the store's clock. */
export interface PendingSource {
  state(): Promise<Pick<DeliveryState, 'pending' | 'oldestPendingAt'>>;
  /** ms since the epoch, on the clock deliveries are stamped with. */
  now(): number;
}

/**
 * How old a reading of the pending deliveries may be before a scrape has it renewed: the
 * storage reads every outbox record for it (see CachedReading).
 */
export const PENDING_READING_MAX_AGE_MS = 5_000;

/**
 * The webhook metrics: attempts by outcome and the delivery lag, counted by the delivery
 * round as each attempt ends (the core's DeliveryMetrics port); the pending count and the
 * age of the oldest pending delivery, read from storage after a scrape (see CachedReading),
 * so a scrape shows the reading before it. Without webhooks they stay at 0.
 */
export class WebhookMetrics implements DeliveryMetrics {
  private readonly attempts: Record<AttemptOutcome, CounterSeries>;
  private readonly lag: HistogramSeries;

  constructor(registry: Registry, pending: PendingSource | undefined) {
    const counter = new TalliedCounter({
      name: 'plant_store_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered (2xx), retried (will be tried again), failed (no attempt left), gone (the endpoint answered 410).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.attempts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, counter.series({ outcome })])) as Record<AttemptOutcome, CounterSeries>;
    this.lag = new TalliedHistogram({
      name: 'plant_store_webhook_delivery_lag_seconds',
      help: 'From a change to its webhook delivered (2xx), retries included.',
      buckets: LAG_SECONDS,
      registers: [registry],
    }).series({});
    const reading = pending && new CachedReading(() => pending.state(), { pending: 0 }, PENDING_READING_MAX_AGE_MS);
    new Gauge({
      name: 'plant_store_webhook_pending',
      help: 'Webhook deliveries waiting to be sent or retried (read from storage after a scrape, at most every 5 s).',
      registers: [registry],
      // The storage's, not a process's: workers of a group read the same count (see SHARED_STORAGE).
      aggregator: SHARED_STORAGE,
      collect() {
        if (reading !== undefined) this.set(reading.current().pending);
      },
    });
    new Gauge({
      name: 'plant_store_webhook_oldest_pending_seconds',
      help: 'Age of the change behind the oldest pending webhook delivery; 0 when none is pending.',
      registers: [registry],
      aggregator: SHARED_STORAGE,
      collect() {
        if (reading === undefined) return;
        const { oldestPendingAt } = reading.current();
        this.set(oldestPendingAt === undefined ? 0 : Math.max(0, pending!.now() - oldestPendingAt) / 1000);
      },
    });
  }

  attemptEnded(outcome: AttemptOutcome, lagMs: number): void {
    this.attempts[outcome].inc();
    if (outcome === 'delivered') this.lag.observe(lagMs / 1000);
  }
}
