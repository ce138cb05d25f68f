/** How often a CachedReading reads again, and how long a reader waits for it. */
export interface CachedReadingTimes {
  /** A reading older than this is read again when asked for. */
  readonly maxAgeMs: number;
  /** How long a reader waits for a new reading before it takes the previous one. */
  readonly waitMs: number;
}

/**
 * A value read from somewhere slow (storage), read again at most once per `maxAgeMs` and
 * only when asked for: a scrape costs the storage nothing most of the time, and never waits
 * long for it. One reading at a time; a failed one keeps the previous value (storage down).
 */
export class CachedReading<T> {
  private value: T;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    initial: T,
    private readonly times: CachedReadingTimes,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.value = initial;
  }

  /** The latest value: read anew first when it is older than maxAgeMs and the read answers within waitMs. */
  async current(): Promise<T> {
    if (this.now() - this.readAt > this.times.maxAgeMs) {
      this.reading ??= this.readAgain();
      let timer: NodeJS.Timeout | undefined;
      const patience = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.times.waitMs)));
      await Promise.race([this.reading, patience]);
      clearTimeout(timer);
    }
    return this.value;
  }

  private async readAgain(): Promise<void> {
    try {
      this.value = await this.read();
    } catch {
      // Storage is down: the previous value stands, and the failure is counted by the
      // storage metrics already. Not asked again before maxAgeMs either way.
    } finally {
      this.readAt = this.now();
      this.reading = undefined;
    }
  }
}
