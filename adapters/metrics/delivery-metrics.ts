import { Gauge, type Registry } from 'prom-client';
import type { AttemptOutcome, DeliveryMetrics, DeliveryState } from '../../core/index.js';
import { LAG_SECONDS } from './buckets.js';
import { CachedReading, type CachedReadingTimes } from './cached-reading.js';
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
 * Pending deliveries are counted by the storage, reading every outbox record: at most every
 * 5 s, and a scrape waits 20 ms at most for it (then shows the previous count).
 */
export const PENDING_READING: CachedReadingTimes = { maxAgeMs: 5_000, waitMs: 20 };

/**
 * The webhook metrics: attempts by outcome and the delivery lag, counted by the delivery
 * round as each attempt ends (the core's DeliveryMetrics port); the pending count and the
 * age of the oldest pending delivery, read from storage when scraped (cached, see
 * PENDING_READING). Without webhooks they stay at 0.
 */
export class WebhookMetrics implements DeliveryMetrics {
  private readonly attempts: Record<AttemptOutcome, CounterSeries>;
  private readonly lag: HistogramSeries;

  constructor(registry: Registry, pending: PendingSource | undefined, times: CachedReadingTimes = PENDING_READING) {
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
    const reading = pending && new CachedReading(() => pending.state(), { pending: 0 }, times);
    new Gauge({
      name: 'plant_store_webhook_pending',
      help: 'Webhook deliveries waiting to be sent or retried (read from storage at most every 5 s).',
      registers: [registry],
      async collect() {
        if (reading !== undefined) this.set((await reading.current()).pending);
      },
    });
    new Gauge({
      name: 'plant_store_webhook_oldest_pending_seconds',
      help: 'Age of the change behind the oldest pending webhook delivery; 0 when none is pending.',
      registers: [registry],
      async collect() {
        if (reading === undefined) return;
        const { oldestPendingAt } = await reading.current();
        this.set(oldestPendingAt === undefined ? 0 : Math.max(0, pending!.now() - oldestPendingAt) / 1000);
      },
    });
  }

  attemptEnded(outcome: AttemptOutcome, lagMs: number): void {
    this.attempts[outcome].inc();
    if (outcome === 'delivered') this.lag.observe(lagMs / 1000);
  }
}
