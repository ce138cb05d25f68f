import { expect } from 'chai';
import { errors, type FlattenedJWSInput } from 'jose';
import { JwksCache, JwksUnavailable } from '../../adapters/auth/jwks-cache.js';
import { eventually } from '../support/eventually.js';
import { IdentityProvider, newSigningKey, type SigningKey } from '../support/identity-provider.js';

const noToken = {} as FlattenedJWSInput;

describe('JWKS cache (injected clock, real JWKS endpoint on loopback)', () => {
  let idp: IdentityProvider;
  let clock: number;
  let cache: JwksCache;
  const failures: unknown[] = [];
  const keyFor = (key: SigningKey) => cache.getKey({ alg: key.alg, kid: key.kid }, noToken);
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'key',
      (error: unknown) => (error instanceof JwksUnavailable ? 'unavailable' : error instanceof errors.JWKSNoMatchingKey ? 'no such key' : String(error)),
    );
  beforeEach(async () => {
    idp = await IdentityProvider.start();
    clock = 1_000_000;
    failures.length = 0;
    cache = new JwksCache({ url: idp.jwksUrl, cooldownMs: 30_000, maxAgeMs: 600_000, timeoutMs: 2000, onFetchFailure: (e) => failures.push(e), now: () => clock });
  });
  afterEach(() => idp.stop());

  it('concurrent first lookups share one fetch', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => outcome(keyFor(idp.newestKey))));
    expect(results).to.deep.equal(['key', 'key', 'key', 'key', 'key']);
    expect(idp.fetches).to.equal(1);
  });

  it('an unknown key refetches once the cool-down has passed, concurrent lookups sharing the fetch; within it, no fetch', async () => {
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
    const next = await idp.publish(await newSigningKey('ES256'));
    clock += 10_000;
    expect(await outcome(keyFor(next))).to.equal('no such key');
    expect(idp.fetches).to.equal(1);
    clock += 20_000;
    expect(await Promise.all(Array.from({ length: 5 }, () => outcome(keyFor(next))))).to.deep.equal(['key', 'key', 'key', 'key', 'key']);
    expect(idp.fetches).to.equal(2);
  });

  it('a failing provider: unavailable, asked again only after the cool-down; keys already held keep serving', async () => {
    idp.failing = true;
    expect(await outcome(keyFor(idp.newestKey))).to.equal('unavailable');
    expect(await outcome(keyFor(idp.newestKey))).to.equal('unavailable');
    expect(idp.fetches).to.equal(1);
    clock += 30_000;
    idp.failing = false;
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
    expect(idp.fetches).to.equal(2);
    idp.failing = true;
    clock += 30_000;
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
    expect(await outcome(keyFor(await newSigningKey()))).to.equal('unavailable');
    expect(failures).to.have.length(2);
  });

  it('old keys are refreshed in the background; a failed refresh keeps them', async () => {
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
    idp.failing = true;
    clock += 600_001;
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
    await eventually(() => failures.length > 0, { what: 'the background refresh to fail' });
    expect(idp.fetches).to.equal(2);
    expect(await outcome(keyFor(idp.newestKey))).to.equal('key');
  });
});
