import { expect } from 'chai';
import { StaticTokenVerifier } from '../../adapters/auth/static-token-verifier.js';

describe('static bearer tokens', () => {
  const verifier = new StaticTokenVerifier(['first-token-0123456789', 'second-token-0123456789']);

  it('names the holder of each configured token without revealing it', () => {
    expect(verifier.verify('first-token-0123456789')).to.equal('token-1');
    expect(verifier.verify('second-token-0123456789')).to.equal('token-2');
  });

  it('rejects unknown tokens, prefixes, extensions and case changes', () => {
    for (const guess of ['', 'first-token', 'first-token-01234567890', 'FIRST-TOKEN-0123456789', 'x']) {
      expect(verifier.verify(guess), guess).to.equal(undefined);
    }
  });

  it('refuses to start with no token at all', () => {
    expect(() => new StaticTokenVerifier([])).to.throw(/at least one token/);
  });
});
