import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { CachedReading, SHARED_STORAGE } from './cached-reading.js';

/** The prom-client registry a store's and a server's metrics are kept in. */
export type MetricsRegistry = Registry;

/**
 * A store's registry, with the gauge of open change streams (0 until a server streams
 * them), so dashboards and alerts can name it for an embedded store too. Node's own metrics are the process's,
 * not the store's: a server adds them (withNodeMetrics); an embedding program has its own.
 */
export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  new Gauge({ name: 'plant_store_feed_streams', help: 'Change feed streams (GET /plants/changes) open now.', registers: [registry] });
  return registry;
}

/** How often the self-service sandboxes are counted for a scrape at most (a count reads every grant). */
const SANDBOX_COUNT_MAX_AGE_MS = 5000;

/**
 * `plant_store_sandboxes`: the self-service sandboxes in the storage, counted from its
 * registry after a scrape (the latest count is what a scrape shows); 0 while sign-up is off.
 */
export function countSandboxes(registry: MetricsRegistry, count: (() => Promise<number>) | undefined): void {
  const reading = count && new CachedReading(count, 0, SANDBOX_COUNT_MAX_AGE_MS);
  new Gauge({
    name: 'plant_store_sandboxes',
    help: 'Self-service sandboxes in the storage (0 while sign-up is off), counted at most every 5 s.',
    registers: [registry],
    aggregator: SHARED_STORAGE,
    collect() {
      this.set(reading?.current() ?? 0);
    },
  });
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
