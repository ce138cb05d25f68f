/** The outcome of asking a bucket for one request. */
export interface BucketAnswer {
  readonly allowed: boolean;
  /** Whole requests left right now. */
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until one request is allowed again (0 when allowed). */
  readonly retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * One token bucket per key (a token holder, a client address): `burst` requests at once,
 * refilled at `perSecond`. Full buckets carry no information, so they are dropped when the
 * map grows, which bounds memory however many keys show up.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string): BucketAnswer {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxKeys) this.dropFullBuckets(now);
      bucket = { tokens: this.burst, updatedMs: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * this.perSecond);
      bucket.updatedMs = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.burst - bucket.tokens) / this.perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)),
    };
  }

  /** How many keys have a bucket (full ones may be dropped at any time). */
  get size(): number {
    return this.buckets.size;
  }

  /** Whether `key` has run dry, without spending anything. */
  isEmpty(key: string): boolean {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return false;
    const tokens = Math.min(this.burst, bucket.tokens + ((this.now() - bucket.updatedMs) / 1000) * this.perSecond);
    return tokens < 1;
  }

  private dropFullBuckets(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedMs) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    // Still full of active keys: forget the oldest rather than grow without bound.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}
