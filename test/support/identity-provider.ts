import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface SignOptions {
  /** Default: the newest published key. */
  readonly key?: SigningKey;
  /** Claims to set or, with undefined, to leave out. */
  readonly claims?: Record<string, unknown>;
}

/** A signing key of the given algorithm, not yet published. */
export async function newSigningKey(alg: 'RS256' | 'ES256' = 'RS256', kid: string = randomUUID()): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * A stand-in identity provider on a loopback port: publishes a JWKS over real HTTP and
 * signs RFC 9068 access tokens with its keys. `stop()` makes the JWKS unreachable.
 */
export class IdentityProvider {
  readonly issuer = 'https://idp.plant-store.test/';
  readonly audience = 'https://api.plant-store.test';
  /** How many times the JWKS was fetched. */
  fetches = 0;
  /** While true, the JWKS endpoint answers 503 (the provider is up but failing). */
  failing = false;
  private readonly published: SigningKey[] = [];

  private constructor(
    private readonly server: Server,
    readonly jwksUrl: string,
  ) {}

  static async start(): Promise<IdentityProvider> {
    let provider: IdentityProvider | undefined;
    const server = createServer((_request, response) => {
      provider!.fetches++;
      if (provider!.failing) {
        response.writeHead(503).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: provider!.published.map((key) => key.publicJwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    provider = new IdentityProvider(server, `http://127.0.0.1:${port}/.well-known/jwks.json`);
    await provider.publish(await newSigningKey());
    return provider;
  }

  /** The settings a server needs to accept this provider's tokens. */
  settings(extra: Record<string, unknown> = {}) {
    return { jwksUrl: this.jwksUrl, issuer: this.issuer, audience: this.audience, ...extra };
  }

  async publish(key: SigningKey): Promise<SigningKey> {
    this.published.push(key);
    return key;
  }

  get newestKey(): SigningKey {
    return this.published[this.published.length - 1]!;
  }

  /** An access token for `sub`, valid for 5 minutes, with both scopes unless claims say otherwise. */
  async sign(sub: string, options: SignOptions = {}): Promise<string> {
    const key = options.key ?? this.newestKey;
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: this.issuer,
      aud: this.audience,
      sub,
      iat: now,
      exp: now + 300,
      client_id: 'test-client',
      jti: randomUUID(),
      scope: 'plants:read plants:write',
      ...options.claims,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
