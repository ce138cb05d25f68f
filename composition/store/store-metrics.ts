import type { Clock, DeliveryMetrics } from '../../core/index.js';
import type { MetricsRegistry } from '../../adapters/metrics/metrics-registry.js';
import { measuredStorage } from './measured-storage.js';
import type { OpenStorage } from './storage.js';

/** A store's metrics as wired: the registry, the storage with its calls timed, and what the delivery round reports to. */
export interface StoreMetrics {
  readonly registry: MetricsRegistry;
  readonly storage: OpenStorage;
  readonly deliveries: DeliveryMetrics;
  /** Counts the self-service sandboxes for `plant_store_sandboxes`; called once, when they are known. */
  countSandboxes(count: (() => Promise<number>) | undefined): void;
}

/**
 * Metrics for a store on `storage` (see docs/metrics.md). prom-client is loaded here, when a
 * store asks for metrics, and not otherwise.
 */
export async function storeMetricsFor(storage: OpenStorage, clock: Clock, withWebhooks: boolean): Promise<StoreMetrics> {
  const [{ createMetricsRegistry, countSandboxes }, { StorageCallMetrics }, { WebhookMetrics }] = await Promise.all([
    import('../../adapters/metrics/metrics-registry.js'),
    import('../../adapters/metrics/storage-call-metrics.js'),
    import('../../adapters/metrics/webhook-metrics.js'),
  ]);
  const registry = createMetricsRegistry();
  const measured = measuredStorage(storage, new StorageCallMetrics(registry));
  const { outbox } = measured;
  const pending = withWebhooks && outbox !== undefined ? { state: () => outbox.state(), now: () => clock.now() } : undefined;
  const deliveries = new WebhookMetrics(registry, pending);
  return { registry, storage: measured, deliveries, countSandboxes: (count) => countSandboxes(registry, count) };
}
