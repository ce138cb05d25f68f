import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The prom-client registry a store's and a server's metrics are kept in. */
export type MetricsRegistry = Registry;

/**
 * A registry holding prom-client's default Node metrics (event-loop lag, heap, GC, CPU) and
 * the gauges of features still to come, at 0 until they are built, so dashboards and alerts
 * can name them now.
 */
export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Set by the change feed (streaming changes to clients) once it exists: its open streams.
  new Gauge({ name: 'plant_store_feed_streams', help: 'Change feed streams open now (0: the change feed is not built yet).', registers: [registry] });
  // Set by sandboxes (partitions of the storage) once they exist: how many there are.
  new Gauge({ name: 'plant_store_sandboxes', help: 'Sandboxes in the storage (0: sandboxes are not built yet).', registers: [registry] });
  return registry;
}
