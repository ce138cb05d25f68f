import type { Registry } from 'prom-client';
import { CALL_SECONDS } from './buckets.js';
import { TalliedCounter, type CounterSeries } from './tallied-counter.js';
import { TalliedHistogram, type HistogramSeries } from './tallied-histogram.js';

/** Times the calls of one storage operation. */
export class OperationTimer {
  constructor(
    private readonly durations: HistogramSeries,
    private readonly failures: CounterSeries,
  ) {}

  /** Calls `method` on `target`: its duration is observed, and a rejection (or throw) counted as a failure. */
  time<A extends unknown[], R>(method: (...args: A) => Promise<R>, target: object, args: A): Promise<R> {
    const started = performance.now();
    let pending: Promise<R>;
    try {
      pending = method.apply(target, args);
    } catch (error) {
      this.ended(started, true);
      throw error;
    }
    return pending.then(
      (value) => {
        this.ended(started, false);
        return value;
      },
      (error: unknown) => {
        this.ended(started, true);
        throw error;
      },
    );
  }

  private ended(started: number, failed: boolean): void {
    this.durations.observe((performance.now() - started) / 1000);
    if (failed) this.failures.inc();
  }
}

/** `plant_store_storage_call_duration_seconds` and `plant_store_storage_failures_total`, by operation. */
export class StorageCallMetrics {
  private readonly durations: TalliedHistogram<'operation'>;
  private readonly failures: TalliedCounter<'operation'>;

  constructor(registry: Registry) {
    this.durations = new TalliedHistogram({
      name: 'plant_store_storage_call_duration_seconds',
      help: 'Time a storage call took, failed ones included, by operation (a method of the plant repository or the delivery outbox).',
      labelNames: ['operation'],
      buckets: CALL_SECONDS,
      registers: [registry],
    });
    this.failures = new TalliedCounter({
      name: 'plant_store_storage_failures_total',
      help: 'Storage calls that failed (storage unavailable, timed out), by operation.',
      labelNames: ['operation'],
      registers: [registry],
    });
  }

  /** The timer of one operation (a fixed name: never an id or a value from a request). */
  operation(operation: string): OperationTimer {
    return new OperationTimer(this.durations.series({ operation }), this.failures.series({ operation }));
  }
}
