import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { exportSPKI } from 'jose';
import { createPlantStore, startServer } from '../../composition/index.js';
import { expectError, expectOk, invalidTokenChallenge } from '../support/http-expect.js';
import { IdentityProvider, newSigningKey } from '../support/identity-provider.js';
import type { Log } from '../../core/index.js';
import { InjectionTokens } from '../../composition/store/injection-tokens.js';
import { tokenVerifierFor } from '../../composition/server/token-verification.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

const staticToken = 'static-token-0123456789abcdef';
const plant = { id: 1, name: 'Fern' };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const scopeChallenge = (scope: string) => `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`;

describe('JWT access tokens from an identity provider', () => {
  let idp: IdentityProvider;
  let server: HttpServer;
  const presented: string[] = [];
  const sign = async (...args: Parameters<IdentityProvider['sign']>) => {
    const token = await idp.sign(...args);
    presented.push(token);
    return token;
  };
  /**
   * The identity provider configured as an operator would (so the served document says JWT),
   * its verifier swapped for one with settings only embedded users have (no JWKS cool-down).
   */
  const startWith = async (tokens: string[], extra: Record<string, unknown>, env: Record<string, string> = {}) =>
    startHttpServer(undefined, {
      tokens,
      secrets: presented,
      env: { PLANT_STORE_JWT_JWKS_URL: idp.jwksUrl, PLANT_STORE_JWT_ISSUER: idp.issuer, PLANT_STORE_JWT_AUDIENCE: idp.audience, ...env },
      register: async (container) => {
        const verifier = await tokenVerifierFor(tokens, idp.settings(extra), container.resolve<Log>(InjectionTokens.Log));
        container.register(InjectionTokens.TokenVerifier, { useValue: verifier });
      },
    });
  const start = async (extra: Record<string, unknown> = {}) => {
    server = await startWith([staticToken], { jwksCooldownMs: 0, ...extra });
  };
  beforeEach(async () => {
    presented.length = 0;
    idp = await IdentityProvider.start();
  });
  afterEach(async () => {
    await server?.close();
    await idp.stop();
  });
  afterEach(function () {
    // Whatever the test did, no token it signed reached a log line.
    const log = server?.log() ?? '';
    for (const token of presented) {
      expect(log.includes(token), 'a JWT in the log').to.equal(false);
      const signature = token.split('.')[2]!;
      if (signature.length > 0) expect(log.includes(signature), 'a JWT signature in the log').to.equal(false);
    }
    expect(log).not.to.include(staticToken);
  });

  it('a token with both scopes lists, gets, creates and deletes; the log names its subject', async () => {
    await start();
    const token = await sign('alice@example.org');
    expectOk(await server.http.post('/plants', { token, json: plant }), 200);
    expectOk(await server.http.get('/plants', { token }), 200);
    expectOk(await server.http.get('/plants/1', { token }), 200);
    expectOk(await server.http.delete('/plants/1', { token }), 204);
    const holders = server.log().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request' && String(line['route']).startsWith('/plants')).map((line) => line['tokenHolder']);
    expect(holders).to.deep.equal(['alice@example.org', 'alice@example.org', 'alice@example.org', 'alice@example.org']);
  });

  it('scopes may come as an scp list, or from a configured claim', async () => {
    await start();
    const token = await sign('bob', { claims: { scope: undefined, scp: ['plants:read', 'plants:write'] } });
    expectOk(await server.http.post('/plants', { token, json: plant }), 200);
    await server.close();
    await start({ scopeClaim: 'permissions' });
    const custom = await sign('carol', { claims: { scope: undefined, permissions: ['plants:read'] } });
    expectOk(await server.http.get('/plants', { token: custom }), 200);
    expectError(await server.http.post('/plants', { token: custom, json: plant }), 403, 40301);
  });

  it('with a sandbox claim: each organisation sees its own plants; a token without the claim, or with no sandbox name in it, is 403 40302', async () => {
    server = await startWith([staticToken], { jwksCooldownMs: 0, sandboxClaim: 'org_id' }, { PLANT_STORE_JWT_SANDBOX_CLAIM: 'org_id' });
    const acme = await sign('alice', { claims: { org_id: 'acme' } });
    const globex = await sign('bob', { claims: { org_id: 'globex' } });
    expectOk(await server.http.post('/plants', { token: acme, json: plant }), 200);
    expectOk(await server.http.post('/plants', { token: globex, json: { id: 1, name: 'Globex fern' } }), 200);
    expect((await server.http.get('/plants/1', { token: acme })).body).to.deep.equal(plant);
    expect((await server.http.get('/plants/1', { token: globex })).body).to.deep.equal({ id: 1, name: 'Globex fern' });
    expect((await server.http.get('/plants', { token: staticToken })).body, 'the static token is in the default sandbox').to.deep.equal([]);
    for (const claims of [{}, { org_id: 'Not A Name' }, { org_id: 42 }]) {
      const token = await sign('mallory', { claims });
      const answer = await server.http.get('/plants', { token });
      expectError(answer, 403, 40302);
      expect(answer.headers.get('www-authenticate')).to.equal('Bearer realm="plant-store", error="insufficient_scope"');
    }
  });

  it('a read-only token gets 200 on GET and 403 40301 insufficient_scope on POST and DELETE, before the body is looked at', async () => {
    await start();
    await server.store.create(plant);
    const token = await sign('reader', { claims: { scope: 'plants:read openid' } });
    expectOk(await server.http.get('/plants', { token }), 200);
    expectOk(await server.http.get('/plants/1', { token }), 200);
    for (const response of [
      await server.http.post('/plants', { token, json: { id: 2, name: 'Ivy' } }),
      await server.http.post('/plants', { token, raw: 'not json', contentType: 'text/plain' }),
      await server.http.delete('/plants/1', { token }),
    ]) {
      expectError(response, 403, 40301, 'plants:write');
      expect(response.headers.get('www-authenticate'), response.request).to.equal(scopeChallenge('plants:write'));
    }
    expect((await server.store.list()).plants).to.deep.equal([plant]);
  });

  it('a token with neither scope is 403 on every plant route', async () => {
    await start();
    const token = await sign('nobody', { claims: { scope: 'openid profile' } });
    for (const [response, scope] of [
      [await server.http.get('/plants', { token }), 'plants:read'],
      [await server.http.get('/plants/1', { token }), 'plants:read'],
      [await server.http.post('/plants', { token, json: plant }), 'plants:write'],
      [await server.http.delete('/plants/1', { token }), 'plants:write'],
    ] as const) {
      expectError(response, 403, 40301, scope);
      expect(response.headers.get('www-authenticate')).to.equal(scopeChallenge(scope));
    }
  });

  it('expired, not yet valid, wrong issuer, wrong audience, other key, alg none, HS256 with the public key, tampered: each 401 40102', async () => {
    await start();
    const now = Math.floor(Date.now() / 1000);
    const key = idp.newestKey;
    const impostor = await newSigningKey('RS256', key.kid);
    const good = await sign('mallory');
    const [header, payload] = good.split('.') as [string, string, string];
    const hmacHeader = b64({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' });
    const hmacPayload = payload;
    const publicPem = await exportSPKI(key.publicKey);
    const hmac = createHmac('sha256', publicPem).update(`${hmacHeader}.${hmacPayload}`).digest('base64url');
    const tamperedPayload = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'admin' });
    const refused: [string, string][] = [
      ['expired', await sign('m', { claims: { exp: now - 120, iat: now - 600 } })],
      ['not yet valid', await sign('m', { claims: { nbf: now + 120 } })],
      ['wrong issuer', await sign('m', { claims: { iss: 'https://evil.example/' } })],
      ['wrong audience', await sign('m', { claims: { aud: 'https://other-api.example' } })],
      ['no subject', await sign('m', { claims: { sub: undefined } })],
      ['a subject that would break a log line', await sign('m\nforged log line')],
      ['no expiry', await sign('m', { claims: { exp: undefined } })],
      ['other key, same kid', await sign('m', { key: impostor })],
      ['unpublished key', await sign('m', { key: await newSigningKey() })],
      ['alg none', `${b64({ alg: 'none', typ: 'at+jwt' })}.${payload}.`],
      ['HS256 signed with the public key', `${hmacHeader}.${hmacPayload}.${hmac}`],
      ['tampered payload', `${header}.${tamperedPayload}.${good.split('.')[2]}`],
    ];
    for (const [what, token] of refused) {
      presented.push(token);
      for (const response of [await server.http.get('/plants', { token }), await server.http.post('/plants', { token, json: plant })]) {
        expectError(response, 401, 40102);
        expect(response.headers.get('www-authenticate'), what).to.equal(invalidTokenChallenge);
      }
    }
    expectOk(await server.http.get('/plants', { token: good }), 200);
    expect((await server.store.list()).plants).to.deep.equal([]);
  });

  it('static tokens keep working beside JWTs, with their own scopes', async () => {
    await start();
    expectOk(await server.http.post('/plants', { token: staticToken, json: plant }), 200);
    expectOk(await server.http.get('/plants', { token: await sign('dave') }), 200);
  });

  it('key rotation: a token signed by a key the JWKS gained later is accepted without a restart', async () => {
    await start();
    expectOk(await server.http.get('/plants', { token: await sign('erin') }), 200);
    const next = await idp.publish(await newSigningKey('ES256'));
    expectOk(await server.http.get('/plants', { token: await sign('erin', { key: next }) }), 200);
    expect(idp.fetches).to.equal(2);
  });

  it('unknown keys refetch the JWKS at most once per cool-down', async () => {
    await start({ jwksCooldownMs: 60_000 });
    expectOk(await server.http.get('/plants', { token: await sign('frank') }), 200);
    for (let i = 0; i < 5; i++) {
      expectError(await server.http.get('/plants', { token: await sign('frank', { key: await newSigningKey() }) }), 401, 40102);
    }
    expect(idp.fetches).to.equal(1);
  });

  it('JWKS down: tokens signed by a cached key keep working, a token with an unknown key is 503 50302, /readyz is unaffected', async () => {
    await start();
    const first = await sign('grace');
    expectOk(await server.http.get('/plants', { token: first }), 200);
    await idp.stop();
    // A token never seen before, signed by the cached key: checked afresh, and accepted.
    expectOk(await server.http.post('/plants', { token: await sign('grace'), json: plant }), 200);
    expectOk(await server.http.get('/plants', { token: first }), 200);
    const unknownKey = await sign('grace', { key: await newSigningKey() });
    for (const response of [await server.http.get('/plants', { token: unknownKey }), await server.http.delete('/plants/1', { token: unknownKey })]) {
      expectError(response, 503, 50302);
    }
    expectOk(await server.http.get(server.http.root('/readyz'), { token: null }), 200);
    expect(server.log()).to.include('the JWKS of the identity provider cannot be fetched');
  });

  it('a JWKS never reached answers 503 50302, not 401, and a static token still works', async () => {
    await idp.stop();
    await start();
    expectError(await server.http.get('/plants', { token: await sign('heidi') }), 503, 50302);
    expectOk(await server.http.get('/plants', { token: staticToken }), 200);
  });

  it('concurrent first requests, and concurrent requests with a new key, share one JWKS fetch and all succeed', async () => {
    await start();
    const first = await Promise.all(Array.from({ length: 5 }, (_, i) => sign(`client-${i}`)).map(async (token) => server.http.get('/plants', { token: await token })));
    for (const response of first) expectOk(response, 200);
    expect(idp.fetches).to.equal(1);
    const next = await idp.publish(await newSigningKey('ES256'));
    const rotated = await Promise.all(Array.from({ length: 5 }, (_, i) => sign(`client-${i}`, { key: next })).map(async (token) => server.http.get('/plants', { token: await token })));
    for (const response of rotated) expectOk(response, 200);
    expect(idp.fetches).to.equal(2);
  });

  it('a failing JWKS is asked again only after the cool-down, and answers 503 50302 meanwhile', async () => {
    idp.failing = true;
    await start({ jwksCooldownMs: 60_000 });
    for (let i = 0; i < 3; i++) expectError(await server.http.get('/plants', { token: await sign('kim') }), 503, 50302);
    expect(idp.fetches).to.equal(1);
  });

  it("rate limits are per principal: one subject's many JWTs share a bucket", async () => {
    server = await startWith([], {}, { PLANT_STORE_RATE_LIMIT: '0.5', PLANT_STORE_RATE_BURST: '2' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await server.http.get('/plants', { token: await sign('ivan') })).status);
    expect(statuses).to.deep.equal([200, 200, 429]);
    expectOk(await server.http.get('/plants', { token: await sign('judy') }), 200);
  });

  it('startServer refuses an HMAC or none algorithm, a bad JWKS URL or clock tolerance', async () => {
    const store = await createPlantStore();
    try {
      const refused: [Record<string, unknown>, RegExp][] = [
        [{ algorithms: ['HS256'] }, /HS256 is not an asymmetric signature algorithm/],
        [{ algorithms: ['none'] }, /none is not an asymmetric/],
        [{ algorithms: [] }, /algorithm list is empty/],
        [{ jwksUrl: 'file:///etc/keys.json' }, /must be http\(s\)/],
        [{ clockToleranceSeconds: -1 }, /clock tolerance/],
      ];
      for (const [override, message] of refused) {
        const failure = await startServer({ store, port: 0, jwt: { ...idp.settings(), ...override } as never }).then(
          async (running) => {
            await running.close(0);
            return undefined;
          },
          (error: Error) => error,
        );
        expect(failure?.message, JSON.stringify(override)).to.match(message);
      }
    } finally {
      await store.close();
    }
  });

  it('the OpenAPI document describes the bearer scheme as JWT and the scopes', async () => {
    await start();
    const served = await server.http.get(server.http.root('/openapi.json'), { token: null });
    const openapi = served.body as { components: { securitySchemes: { bearerAuth: Record<string, string> } } };
    expect(openapi.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(openapi.components.securitySchemes.bearerAuth['description']).to.include('plants:read').and.include('plants:write');
  });
});
