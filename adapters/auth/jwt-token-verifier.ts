import { jwtVerify, type JWTPayload } from 'jose';
import { isScope, type Principal, type Scope, type TokenVerdict, type TokenVerifier } from '../../core/index.js';
import { JwksCache, JwksUnavailable } from './jwks-cache.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Signature algorithms with a public verification key; `none` and HMAC can never be listed. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwtAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** An identity provider whose RFC 9068 access tokens the server accepts. */
export interface JwtSettings {
  /** Where the provider publishes its signing keys, e.g. `https://idp.example/.well-known/jwks.json`. */
  readonly jwksUrl: string;
  /** The `iss` the tokens must carry, exactly. */
  readonly issuer: string;
  /** An `aud` the tokens must carry: this API's identifier at the provider. */
  readonly audience: string;
  /** Claim holding the scopes; default `scope` (space-separated), also reading an `scp` list. */
  readonly scopeClaim?: string;
  /** Default: every asymmetric algorithm. */
  readonly algorithms?: readonly JwtAlgorithm[];
  /** Allowed clock difference for `exp` and `nbf`; default 30 s. */
  readonly clockToleranceSeconds?: number;
  /** Shortest time between two JWKS fetches; default 30 s. */
  readonly jwksCooldownMs?: number;
  /** Longest wait for the JWKS; default 5 s. */
  readonly jwksTimeoutMs?: number;
}

const DEFAULT_SCOPE_CLAIM = 'scope';
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
    this.scopeClaim = settings.scopeClaim ?? DEFAULT_SCOPE_CLAIM;
    this.keys = new JwksCache({
      url: settings.jwksUrl,
      cooldownMs: settings.jwksCooldownMs ?? 30_000,
      maxAgeMs: 10 * 60_000,
      timeoutMs: settings.jwksTimeoutMs ?? 5000,
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
        clockTolerance: this.settings.clockToleranceSeconds ?? 30,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      return error instanceof JwksUnavailable ? 'unavailable' : 'unknown';
    }
    // The subject goes into log lines: a plain, bounded name or no entry.
    if (typeof payload.sub !== 'string' || !loggableSubject.test(payload.sub)) return 'unknown';
    const principal: Principal = { subject: payload.sub, scopes: this.scopesOf(payload) };
    this.verified.set(token, principal, payload.exp! * 1000);
    return principal;
  }

  private scopesOf(payload: JWTPayload): Scope[] {
    const claimed = [...words(payload[this.scopeClaim])];
    if (this.scopeClaim === DEFAULT_SCOPE_CLAIM) claimed.push(...words(payload['scp']));
    return [...new Set(claimed.filter(isScope))];
  }
}

/** Scopes as a space-separated string (RFC 8693 `scope`) or a list of strings (`scp`). */
function words(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((word) => word !== '');
  if (Array.isArray(value)) return value.filter((word): word is string => typeof word === 'string');
  return [];
}

/** Why these settings cannot work; undefined when they can. */
export function jwtSettingsProblem(settings: JwtSettings): string | undefined {
  let url: URL;
  try {
    url = new URL(settings.jwksUrl);
  } catch {
    return 'the JWKS URL is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the JWKS URL must be http(s)';
  if (settings.issuer.trim() === '') return 'the issuer is empty';
  if (settings.audience.trim() === '') return 'the audience is empty';
  if (settings.scopeClaim !== undefined && !/^[A-Za-z0-9_:.-]{1,64}$/.test(settings.scopeClaim)) return 'the scope claim must be a plain claim name';
  const unsafe = settings.algorithms?.find((algorithm) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm));
  if (unsafe !== undefined) return `the algorithm ${unsafe} is not an asymmetric signature algorithm`;
  if (settings.algorithms?.length === 0) return 'the algorithm list is empty';
  return undefined;
}
