import { createLocalJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters, type LocalJWKSet } from 'jose';

/** The keys a token needs cannot be fetched: the verifier answers 'unavailable', not 'unknown'. */
export class JwksUnavailable extends Error {
  override readonly name = 'JwksUnavailable';
}

export interface JwksCacheOptions {
  readonly url: string;
  /** Shortest time between two fetches, so unknown `kid`s cannot make us hammer the provider. */
  readonly cooldownMs: number;
  /** Keys older than this are refetched in the background; the old ones serve meanwhile. */
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
  /** Told of each failed fetch (for the log; the error names the URL, never a token). */
  readonly onFetchFailure: (error: unknown) => void;
  readonly now?: () => number;
}

/**
 * The identity provider's signing keys, kept between fetches. Refetched when a token names
 * a key we do not hold (key rotation) at most once per cool-down, and when old. A failed
 * fetch keeps the keys we have, so tokens signed by them keep working while the provider
 * is unreachable; only a token needing a key we never got is then 'unavailable'.
 */
export class JwksCache {
  private keys: LocalJWKSet | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private lastFetchFailed = false;
  private pending: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: JwksCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Key resolver for jose's jwtVerify. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (this.keys === undefined) await this.refreshIfAllowed();
    else if (this.now() - this.fetchedAt > this.options.maxAgeMs && this.cooledDown()) void this.refresh();
    try {
      return await this.held()(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await this.refreshIfAllowed();
      // A key we do not hold while the provider cannot be reached: the token may be good.
      if (this.lastFetchFailed) throw new JwksUnavailable('the JWKS cannot be fetched and holds no key for this token');
      return this.held()(header, token);
    }
  };

  private held(): LocalJWKSet {
    if (this.keys === undefined) throw new JwksUnavailable('the JWKS has not been fetched yet');
    return this.keys;
  }

  private cooledDown(): boolean {
    return this.now() - this.attemptedAt >= this.options.cooldownMs;
  }

  /** Joins a fetch under way, else starts one when the cool-down allows. */
  private refreshIfAllowed(): Promise<void> | undefined {
    if (this.pending !== undefined) return this.pending;
    return this.cooledDown() ? this.refresh() : undefined;
  }

  /** One fetch at a time; concurrent callers share it. Never rejects. */
  private refresh(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = this.now();
    try {
      const response = await fetch(this.options.url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!response.ok) throw new Error(`JWKS ${this.options.url} answered ${response.status}`);
      const keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
      this.keys = keys;
      this.fetchedAt = this.now();
      this.lastFetchFailed = false;
    } catch (error) {
      this.lastFetchFailed = true;
      this.options.onFetchFailure(error);
    }
  }
}
