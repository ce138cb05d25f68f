import { FirstVerdictVerifier } from '../../adapters/auth/first-verdict-verifier.js';
import type { JwtSettings } from '../../adapters/auth/jwt-settings.js';
import type { StaticToken } from '../../adapters/auth/static-token-rules.js';
import { StaticTokenVerifier } from '../../adapters/auth/static-token-verifier.js';
import type { HttpLog } from '../../adapters/http/app/http-log.js';
import type { TokenVerifier } from '../../core/index.js';

/**
 * The token verifier a server's options ask for: static tokens, an identity provider's
 * JWTs, or both (static first: it answers synchronously). Rejects on unusable settings.
 * The JWT adapter (and jose) is loaded only when an identity provider is configured.
 */
export async function tokenVerifierFor(
  tokens: readonly (string | StaticToken)[] | undefined,
  jwt: JwtSettings | undefined,
  log: HttpLog,
): Promise<TokenVerifier> {
  const verifiers: TokenVerifier[] = [];
  if (tokens !== undefined && tokens.length > 0) verifiers.push(new StaticTokenVerifier(tokens));
  if (jwt !== undefined) {
    const { JwtTokenVerifier } = await import('../../adapters/auth/jwt-token-verifier.js');
    verifiers.push(new JwtTokenVerifier(jwt, (error) => log.error({ err: error }, 'the JWKS of the identity provider cannot be fetched')));
  }
  if (verifiers.length === 0) throw new Error('at least one token, or a JWT identity provider, is required');
  return verifiers.length === 1 ? verifiers[0]! : new FirstVerdictVerifier(verifiers);
}
