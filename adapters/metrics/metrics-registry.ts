import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The prom-client registry a store's and a server's metrics are kept in. */
export type MetricsRegistry = Registry;

/**
 * A store's registry, holding the gauges of features still to come at 0 until they are
 * built, so dashboards and alerts can name them now. Node's own metrics are the process's,
 * not the store's: a server adds them (withNodeMetrics); an embedding program has its own.
 */
export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  // Set by the change feed (streaming changes to clients) once it exists: its open streams.
  new Gauge({ name: 'plant_store_feed_streams', help: 'Change feed streams open now (0: the change feed is not built yet).', registers: [registry] });
  // Set by sandboxes (partitions of the storage) once they exist: how many there are.
  new Gauge({ name: 'plant_store_sandboxes', help: 'Sandboxes in the storage (0: sandboxes are not built yet).', registers: [registry] });
  return registry;
}

const withNode = new WeakSet<Registry>();

/** Adds prom-client's default Node metrics (event-loop lag, heap, GC, CPU) to `registry`, once. */
export function withNodeMetrics(registry: MetricsRegistry): MetricsRegistry {
  if (!withNode.has(registry)) {
    collectDefaultMetrics({ register: registry });
    withNode.add(registry);
  }
  return registry;
}
