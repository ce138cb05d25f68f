import { jwtVerify, type JWTPayload } from 'jose';
import { DEFAULT_SANDBOX, isScope, sandboxNameProblem, type Principal, type Scope, type TokenVerdict, type TokenVerifier } from '../../core/index.js';
import { JwksCache, JwksUnavailable } from './jwks-cache.js';
import { ASYMMETRIC_ALGORITHMS, JWT_DEFAULTS, jwtSettingsProblem, type JwtSettings } from './jwt-settings.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

// Distinct JWTs verified and remembered at once; beyond, the oldest is checked again next time.
const CACHE_CAPACITY = 10_000;
// Three base64url parts: anything else is not a JWS compact token, so not worth parsing.
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const loggableSubject = /^[^\x00-\x1f\x7f]{1,255}$/;

/**
 * Verifies access tokens signed by an identity provider: signature against its JWKS,
 * issuer, audience, expiry and not-before. A token verified once is remembered until it
 * expires, so a client's repeated requests cost a map lookup, not a signature check.
 */
export class JwtTokenVerifier implements TokenVerifier {
  private readonly keys: JwksCache;
  private readonly verified = new VerifiedTokenCache(CACHE_CAPACITY);
  private readonly algorithms: string[];
  private readonly scopeClaim: string;

  constructor(
    private readonly settings: JwtSettings,
    onJwksFailure: (error: unknown) => void = () => {},
  ) {
    const problem = jwtSettingsProblem(settings);
    if (problem !== undefined) throw new Error(problem);
    this.algorithms = [...(settings.algorithms ?? ASYMMETRIC_ALGORITHMS)];
    this.scopeClaim = settings.scopeClaim ?? JWT_DEFAULTS.scopeClaim;
    this.keys = new JwksCache({
      url: settings.jwksUrl,
      cooldownMs: settings.jwksCooldownMs ?? JWT_DEFAULTS.jwksCooldownMs,
      maxAgeMs: 10 * 60_000,
      timeoutMs: settings.jwksTimeoutMs ?? JWT_DEFAULTS.jwksTimeoutMs,
      onFetchFailure: onJwksFailure,
    });
  }

  verify(token: string): TokenVerdict | Promise<TokenVerdict> {
    const known = this.verified.get(token);
    if (known !== undefined) return known;
    if (!compactJws.test(token)) return 'unknown';
    return this.verifySignature(token);
  }

  private async verifySignature(token: string): Promise<TokenVerdict> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys.getKey, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: this.algorithms,
        clockTolerance: this.settings.clockToleranceSeconds ?? JWT_DEFAULTS.clockToleranceSeconds,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      return error instanceof JwksUnavailable ? 'unavailable' : 'unknown';
    }
    // The subject goes into log lines: a plain, bounded name or no entry.
    if (typeof payload.sub !== 'string' || !loggableSubject.test(payload.sub)) return 'unknown';
    const principal: Principal = { subject: payload.sub, scopes: this.scopesOf(payload), ...this.sandboxOf(payload) };
    this.verified.set(token, principal, payload.exp! * 1000);
    return principal;
  }

  /** Nothing without a sandbox claim configured (the default sandbox); else the claim's sandbox, or null when it names none. */
  private sandboxOf(payload: JWTPayload): Pick<Principal, 'sandbox'> {
    const claim = this.settings.sandboxClaim;
    if (claim === undefined) return {};
    const value = payload[claim];
    if (typeof value !== 'string' || sandboxNameProblem(value) !== undefined) return { sandbox: null };
    return value === DEFAULT_SANDBOX ? {} : { sandbox: value };
  }

  private scopesOf(payload: JWTPayload): Scope[] {
    const claimed = [...words(payload[this.scopeClaim])];
    if (this.scopeClaim === JWT_DEFAULTS.scopeClaim) claimed.push(...words(payload['scp']));
    return [...new Set(claimed.filter(isScope))];
  }
}

/** Scopes as a space-separated string (RFC 8693 `scope`) or a list of strings (`scp`). */
function words(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((word) => word !== '');
  if (Array.isArray(value)) return value.filter((word): word is string => typeof word === 'string');
  return [];
}
