// What an identity provider's settings are and when they can work; free of jose, so
// configuration can check them without loading the verifier.

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
  /** Claim holding the scopes; default in JWT_DEFAULTS (`scope`, space-separated, also reading an `scp` list). */
  readonly scopeClaim?: string;
  /**
   * Claim naming the holder's sandbox (e.g. `org_id` or `sub`); a token without it, or whose
   * value is no sandbox name, is refused with 403 40302. Absent: every JWT is in the default sandbox.
   */
  readonly sandboxClaim?: string;
  /** Default: every asymmetric algorithm. */
  readonly algorithms?: readonly JwtAlgorithm[];
  /** Allowed clock difference for `exp` and `nbf`; default in JWT_DEFAULTS (30 s). */
  readonly clockToleranceSeconds?: number;
  /** Shortest time between two JWKS fetches; default in JWT_DEFAULTS (30 s). */
  readonly jwksCooldownMs?: number;
  /** Longest wait for the JWKS; default in JWT_DEFAULTS (5 s). */
  readonly jwksTimeoutMs?: number;
}

/** The defaults of the optional JwtSettings, each written here only. */
export const JWT_DEFAULTS = {
  scopeClaim: 'scope',
  clockToleranceSeconds: 30,
  jwksCooldownMs: 30_000,
  jwksTimeoutMs: 5000,
} as const satisfies Partial<JwtSettings>;

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
  if (settings.sandboxClaim !== undefined && !/^[A-Za-z0-9_:.-]{1,64}$/.test(settings.sandboxClaim)) return 'the sandbox claim must be a plain claim name';
  const unsafe = settings.algorithms?.find((algorithm) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm));
  if (unsafe !== undefined) return `the algorithm ${unsafe} is not an asymmetric signature algorithm`;
  if (settings.algorithms?.length === 0) return 'the algorithm list is empty';
  const tolerance = settings.clockToleranceSeconds;
  if (tolerance !== undefined && !(tolerance >= 0 && tolerance <= 300)) return 'the clock tolerance must be 0 to 300 seconds';
  for (const [name, value] of [['JWKS cool-down', settings.jwksCooldownMs], ['JWKS timeout', settings.jwksTimeoutMs]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) return `the ${name} must be a number of milliseconds, 0 or more`;
  }
  return undefined;
}
