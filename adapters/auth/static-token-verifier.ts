import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenVerifier } from '../../core/index.js';

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export const MIN_TOKEN_LENGTH = 16;
// RFC 6750 b64token: what may follow "Bearer " in the header.
const tokenSyntax = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A configured token that could never be presented, or is too easy to guess. */
export class UnusableTokenError extends Error {
  override readonly name = 'UnusableTokenError';
}

/**
 * Bearer tokens fixed by configuration. Only SHA-256 digests are kept, and every digest
 * is compared with timingSafeEqual: equal-length inputs, no early exit, so the time taken
 * says nothing about how much of a guess was right or which token it resembled.
 */
export class StaticTokenVerifier implements TokenVerifier {
  private readonly digests: readonly Buffer[];

  /** Throws UnusableTokenError naming the token's position (never the token) when one is unusable. */
  constructor(tokens: readonly string[]) {
    if (tokens.length === 0) throw new UnusableTokenError('at least one token is required');
    tokens.forEach(checkToken);
    this.digests = tokens.map(digest);
  }

  verify(token: string): string | undefined {
    const presented = digest(token);
    let holder: string | undefined;
    for (let i = 0; i < this.digests.length; i++) {
      if (timingSafeEqual(presented, this.digests[i]!)) holder = `token-${i + 1}`;
    }
    return holder;
  }
}

function checkToken(token: string, index: number): void {
  if (typeof token !== 'string' || !tokenSyntax.test(token)) {
    throw new UnusableTokenError(`token #${index + 1} has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new UnusableTokenError(`token #${index + 1} is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random token`);
  }
}
