import type { Principal } from '../../core/index.js';

/**
 * Principals of tokens already verified, until each token expires: a signature check costs
 * far more than a request should, and a client sends the same token many times. Bounded;
 * the oldest entry goes first. Only successes are kept, so forged tokens cannot fill it.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { readonly principal: Principal; readonly expiresAtMs: number }>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): Principal | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > this.now()) return entry.principal;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, principal: Principal, expiresAtMs: number): void {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, expiresAtMs });
  }
}
