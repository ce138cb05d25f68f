import type { TokenVerdict, TokenVerifier } from '../../core/index.js';

/**
 * Asks each verifier in turn until one knows the token: static tokens first, since they
 * answer synchronously and are the cheaper check.
 */
export class FirstVerdictVerifier implements TokenVerifier {
  constructor(private readonly verifiers: readonly TokenVerifier[]) {}

  verify(token: string): TokenVerdict | Promise<TokenVerdict> {
    return this.from(0, token);
  }

  private from(index: number, token: string): TokenVerdict | Promise<TokenVerdict> {
    for (let i = index; i < this.verifiers.length; i++) {
      const verdict = this.verifiers[i]!.verify(token);
      if (verdict instanceof Promise) return verdict.then((settled) => (settled === 'unknown' ? this.from(i + 1, token) : settled));
      if (verdict !== 'unknown') return verdict;
    }
    return 'unknown';
  }
}
