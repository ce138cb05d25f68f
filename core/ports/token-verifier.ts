import type { Principal } from '../access.js';

/**
 * What a token check concludes: who holds it, that it is not one of ours ('unknown':
 * malformed, forged, expired, wrong audience …), or that it cannot be checked right now
 * ('unavailable': the keys it needs cannot be fetched).
 */
export type TokenVerdict = Principal | 'unknown' | 'unavailable';

/**
 * Decides whether a bearer token is one of ours. May answer at once (a static list, a
 * cache hit) or through a promise (keys to fetch): the caller handles both, so the common
 * case costs no promise.
 */
export interface TokenVerifier {
  verify(token: string): TokenVerdict | Promise<TokenVerdict>;
}
