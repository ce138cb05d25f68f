import { expect } from 'chai';
import { UnusableTokenError } from '../../adapters/auth/static-token-rules.js';
import { StaticTokenVerifier } from '../../adapters/auth/static-token-verifier.js';
import { ALL_SCOPES } from '../../core/index.js';

describe('static bearer tokens', () => {
  const verifier = new StaticTokenVerifier(['first-token-0123456789', { token: 'second-token-0123456789', scopes: ['plants:read'] }]);

  it('names the holder of each configured token without revealing it, with its scopes', () => {
    expect(verifier.verify('first-token-0123456789')).to.deep.equal({ subject: 'token-1', scopes: ALL_SCOPES });
    expect(verifier.verify('second-token-0123456789')).to.deep.equal({ subject: 'token-2', scopes: ['plants:read'] });
  });

  it('a token given without scopes, as a string or an entry, has both', () => {
    const both = new StaticTokenVerifier([{ token: 'entry-token-0123456789' }]);
    expect(both.verify('entry-token-0123456789')).to.deep.equal({ subject: 'token-1', scopes: ['plants:read', 'plants:write'] });
  });

  it('rejects unknown tokens, prefixes, extensions and case changes', () => {
    for (const guess of ['', 'first-token', 'first-token-01234567890', 'FIRST-TOKEN-0123456789', 'x']) {
      expect(verifier.verify(guess), guess).to.equal('unknown');
    }
  });

  it('refuses to start with no token at all', () => {
    expect(() => new StaticTokenVerifier([])).to.throw(/at least one token/);
  });

  it('says plainly that a token is missing or empty, rather than calling it malformed (a variable meant to hold it is unset or blank)', () => {
    const refused: [unknown[], RegExp][] = [
      [[undefined], /^token #1 is missing \(undefined\) — is the variable that should hold it set\?$/],
      [['good-token-0123456789', null], /^token #2 is missing \(null\) — is the variable that should hold it set\?$/],
      [[{ token: undefined }], /^token #1 is missing \(undefined\)/],
      [[''], /^token #1 is empty — is the variable that should hold it set\?$/],
      [[{ token: '', scopes: ['plants:read'] }], /^token #1 is empty/],
      [[' \t'], /^token #1 is blank \(only whitespace\)/],
      [[42], /^token #1 is a number, not a string$/],
    ];
    for (const [tokens, message] of refused) {
      expect(() => new StaticTokenVerifier(tokens as never), String(message)).to.throw(UnusableTokenError, message);
    }
  });

  it('refuses a short or malformed token, or an unknown scope, naming its position and never the token', () => {
    const refused: [(string | { token: string; scopes: string[] })[], RegExp][] = [
      [['good-token-0123456789', 'x'], /^token #2 is shorter than 16 characters/],
      [['has a space-0123456789'], /^token #1 has characters a bearer token cannot carry/],
      [['bad;token;0123456789'], /^token #1 has characters/],
      [[{ token: 'good-token-0123456789', scopes: ['plants:admin'] }], /^token #1 names an unknown scope "plants:admin"/],
    ];
    for (const [tokens, message] of refused) {
      expect(() => new StaticTokenVerifier(tokens as never), String(message)).to.throw(message);
      try {
        new StaticTokenVerifier(tokens as never);
      } catch (error) {
        expect((error as Error).message).not.to.include('0123456789');
      }
    }
  });

  it('with many tokens (one per sandbox) each still finds its own holder, and a near miss none', () => {
    for (const count of [1, 8, 9, 60]) {
      const tokens = Array.from({ length: count }, (_, i) => ({ token: `sandbox-token-${String(i).padStart(4, '0')}-abcdef`, sandbox: `team-${i}` }));
      const verifier = new StaticTokenVerifier(tokens);
      tokens.forEach(({ token }, i) => expect(verifier.verify(token), `${count} tokens, #${i + 1}`).to.deep.equal({ subject: `token-${i + 1}`, scopes: ALL_SCOPES, sandbox: `team-${i}` }));
      expect(verifier.verify('sandbox-token-0000-abcdeg')).to.equal('unknown');
      expect(verifier.verify('')).to.equal('unknown');
    }
  });

  it("with many tokens, two whose digests share the map's 48-bit key are both found (a collision found by search, kept here)", () => {
    // SHA-256 of each starts 0948662a5624: the map holds both under one key.
    const colliding = ['collide-0010837768', 'collide-0019989886'];
    const others = Array.from({ length: 10 }, (_, i) => `other-token-${String(i).padStart(4, '0')}-abcdef`);
    const verifier = new StaticTokenVerifier([...others, ...colliding].map((token, i) => ({ token, sandbox: `team-${i}` })));
    expect(verifier.verify(colliding[0]!)).to.deep.include({ subject: 'token-11', sandbox: 'team-10' });
    expect(verifier.verify(colliding[1]!)).to.deep.include({ subject: 'token-12', sandbox: 'team-11' });
    expect(verifier.verify('collide-0010837769')).to.equal('unknown');
  });
});
