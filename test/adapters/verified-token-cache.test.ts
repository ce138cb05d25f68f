import { expect } from 'chai';
import { VerifiedTokenCache } from '../../adapters/auth/verified-token-cache.js';
import type { Principal } from '../../core/index.js';

describe('verified-token cache (injected clock)', () => {
  const alice: Principal = { subject: 'alice', scopes: ['plants:read'] };
  const bob: Principal = { subject: 'bob', scopes: ['plants:write'] };

  it('answers a remembered token until it expires, then forgets it', () => {
    let now = 1000;
    const cache = new VerifiedTokenCache(10, () => now);
    cache.set('token-a', alice, 2000);
    expect(cache.get('token-a')).to.equal(alice);
    expect(cache.get('token-b')).to.equal(undefined);
    now = 1999;
    expect(cache.get('token-a')).to.equal(alice);
    now = 2000;
    expect(cache.get('token-a')).to.equal(undefined);
    now = 1500;
    expect(cache.get('token-a'), 'an expired entry is gone for good').to.equal(undefined);
  });

  it('holds at most its capacity, dropping the oldest entry first', () => {
    const cache = new VerifiedTokenCache(2, () => 0);
    cache.set('token-a', alice, 10);
    cache.set('token-b', bob, 10);
    cache.set('token-c', alice, 10);
    expect([cache.get('token-a'), cache.get('token-b'), cache.get('token-c')]).to.deep.equal([undefined, bob, alice]);
  });
});
