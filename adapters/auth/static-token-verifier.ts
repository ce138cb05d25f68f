import { hash, timingSafeEqual } from 'node:crypto';
import { ALL_SCOPES, DEFAULT_SANDBOX, type Principal, type TokenVerdict, type TokenVerifier } from '../../core/index.js';
import { sandboxProblem, scopesProblem, tokenProblem, UnusableTokenError, type StaticToken } from './static-token-rules.js';

// The one-shot hash: half the CPU of createHash().update().digest() on every request.
const digest = (token: string): Buffer => hash('sha256', token, 'buffer');

// A digest's first 6 bytes as a number: the map's key. About 200 ns a request less than the
// digest in base64 (a 44-character string made, then hashed, on every request), and as
// cheap as comparing one token's digest, so even one token is found through the map.
const prefixOf = (digest: Buffer): number => digest.readUIntLE(0, 6);

/**
 * Bearer tokens fixed by configuration. Only SHA-256 digests are kept, and digests are
 * compared with timingSafeEqual: equal-length inputs, no early exit, so the time taken
 * says nothing about how much of a guess was right or which token it resembled (a map of
 * digests picks the one to compare; see verify). Answers synchronously:
 * this is the hot path of every request.
 */
export class StaticTokenVerifier implements TokenVerifier {
  private readonly digests: readonly Buffer[];
  private readonly principals: readonly Principal[];
  /** Digest prefix → the positions of the tokens whose digests start so (one, but for a 48-bit collision). */
  private readonly byPrefix = new Map<number, number[]>();

  /** Throws UnusableTokenError naming the position of the first unusable token (never the token). */
  constructor(tokens: readonly (string | StaticToken)[]) {
    if (tokens.length === 0) throw new UnusableTokenError('at least one token is required');
    // Anything but an entry object stands for the token itself, so an undefined one is named as missing.
    const entries = tokens.map((entry) => (typeof entry === 'object' && entry !== null ? entry : { token: entry }));
    entries.forEach(({ token, scopes, sandbox }, index) => {
      const problem = tokenProblem(token) ?? (scopes === undefined ? undefined : scopesProblem(scopes)) ?? sandboxProblem(sandbox);
      if (problem !== undefined) throw new UnusableTokenError(`token #${index + 1} ${problem}`);
    });
    this.digests = entries.map(({ token }) => digest(token));
    this.digests.forEach((d, index) => {
      const prefix = prefixOf(d);
      const positions = this.byPrefix.get(prefix);
      if (positions === undefined) this.byPrefix.set(prefix, [index]);
      else positions.push(index);
    });
    this.principals = entries.map(({ scopes, sandbox }, index) => ({
      subject: `token-${index + 1}`,
      scopes: scopes === undefined ? ALL_SCOPES : [...new Set(scopes)],
      // The default sandbox is left out, so its principals are what they were.
      ...(sandbox !== undefined && sandbox !== DEFAULT_SANDBOX && { sandbox }),
    }));
  }

  verify(token: string): TokenVerdict {
    const presented = digest(token);
    // The map finds the candidates (one per sandbox, say, among many tokens), whose digests
    // are then compared in constant time. The lookup's time depends on the guess's SHA-256 only,
    // which says nothing about any token (matching a digest's first bytes is a preimage search).
    const positions = this.byPrefix.get(prefixOf(presented));
    if (positions === undefined) return 'unknown';
    let holder: Principal | undefined;
    for (const index of positions) if (timingSafeEqual(presented, this.digests[index]!)) holder = this.principals[index];
    return holder ?? 'unknown';
  }
}
