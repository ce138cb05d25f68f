import type { Aggregator } from 'prom-client';

/**
 * How the workers of a group (`--workers`) combine a gauge read from the shared storage:
 * each worker reads the same storage, so their readings are one count, not parts of a
 * total; they differ only in age (each is renewed after a scrape, see CachedReading), and
 * the largest is taken, so a reading still 0 (a worker that was not scraped yet, or started
 * again) or an older smaller one hides no backlog. A process's own gauges are summed.
 */
export const SHARED_STORAGE: Aggregator = 'max';

/**
 * A value read from somewhere slow (storage), for scrapes: a scrape gets the latest reading
 * at once, and a reading older than `maxAgeMs` is renewed just after the scrape is answered,
 * never before. A read may be synchronous work (LMDB reads every outbox record in the
 * calling thread: 70 ms for 10,000 pending deliveries), which a scrape must not wait behind.
 * One read at a time; a failed one keeps the previous value (storage down).
 */
export class CachedReading<T> {
  private value: T;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading = false;

  constructor(
    private readonly read: () => Promise<T>,
    /** The value until the first reading, which the first scrape starts. */
    initial: T,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.value = initial;
  }

  /** The latest reading; a new one starts in the next turn of the event loop when it is stale. */
  current(): T {
    if (!this.reading && this.now() - this.readAt > this.maxAgeMs) {
      this.reading = true;
      // A timer, not setImmediate: a scrape itself waits for an immediate (prom-client's
      // event-loop lag metric), and would then wait for this reading too. By the next
      // turn's timers the scrape is answered.
      setTimeout(() => void this.readAgain(), 0);
    }
    return this.value;
  }

  private async readAgain(): Promise<void> {
    try {
      this.value = await this.read();
    } catch {
      // Storage is down: the previous value stands (the failure is counted by the storage
      // metrics already), and is not asked for again before maxAgeMs.
    } finally {
      this.readAt = this.now();
      this.reading = false;
    }
  }
}
