import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../composition/config/config-error.js';
import { configFrom } from '../../composition/config/parse-config.js';
import { serverTokens } from '../../composition/server/server-tokens.js';
import { tempDir } from '../support/temp-dir.js';

const readConfig = (argv: string[], env: Record<string, string>) => configFrom(argv, env);

const jwks = 'https://idp.example/.well-known/jwks.json';
const issuer = 'https://idp.example/';
const audience = 'https://plants.example/api';

function refusal(argv: string[], env: Record<string, string>): string {
  try {
    readConfig(argv, env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify({ argv, env })}`);
}

describe('access configuration (in-process)', () => {
  it('token entries may name scopes; an entry without scopes has none listed (both)', () => {
    const config = readConfig([], { PLANT_STORE_TOKENS: 'first-token-0123456789, second-token-0123456789 plants:read' });
    expect(config.access.tokens).to.deep.equal([{ token: 'first-token-0123456789' }, { token: 'second-token-0123456789', scopes: ['plants:read'] }]);
  });

  it('a tokens file line may name scopes after the token; comments and blank lines are skipped', () => {
    using dir = tempDir('plant-store-tokens-');
    const file = join(dir.path, 'tokens');
    writeFileSync(file, '# operators\nadmin-token-0123456789\n\n# dashboards\nreader-token-0123456789   plants:read\nboth-token-0123456789 plants:read plants:write\n');
    expect(serverTokens(readConfig(['--tokens-file', file], {}).access).tokens).to.deep.equal([
      { token: 'admin-token-0123456789' },
      { token: 'reader-token-0123456789', scopes: ['plants:read'] },
      { token: 'both-token-0123456789', scopes: ['plants:read', 'plants:write'] },
    ]);
  });

  it('token problems name the position, never the token', () => {
    const cases: [string, RegExp][] = [
      ['short', /^PLANT_STORE_TOKENS: token #1 is shorter than 16 characters/],
      ['good-token-0123456789, bad;token;0123456789', /^PLANT_STORE_TOKENS: token #2 has characters/],
      ['good-token-0123456789 plants:admin', /^PLANT_STORE_TOKENS: token #1 names an unknown scope "plants:admin"/],
    ];
    for (const [tokens, message] of cases) {
      const text = refusal([], { PLANT_STORE_TOKENS: tokens });
      expect(text).to.match(message);
      expect(text).not.to.include('0123456789');
    }
  });

  it('an empty entry in the token list, or a list of blanks, is named as such; an empty variable is unset (a token is generated)', () => {
    const cases: [string, RegExp][] = [
      ['first-token-0123456789,,second-token-0123456789', /^PLANT_STORE_TOKENS: token #2 is empty \(a comma too many, or a variable meant to fill it is unset\)$/],
      ['first-token-0123456789,', /^PLANT_STORE_TOKENS: token #2 is empty/],
      [', first-token-0123456789', /^PLANT_STORE_TOKENS: token #1 is empty/],
      ['   ', /^PLANT_STORE_TOKENS: holds only blanks; give at least one token, or leave it empty to have one generated$/],
      [' , ', /^PLANT_STORE_TOKENS: holds only blanks/],
    ];
    for (const [tokens, message] of cases) {
      const text = refusal([], { PLANT_STORE_TOKENS: tokens });
      expect(text, JSON.stringify(tokens)).to.match(message);
      expect(text).not.to.include('0123456789');
    }
    expect(serverTokens(readConfig([], { PLANT_STORE_TOKENS: '' }).access).generated).to.equal(true);
  });

  it('JWT settings: the three together from variables or flags, the scope claim optional', () => {
    const fromEnv = readConfig([], { PLANT_STORE_JWT_JWKS_URL: jwks, PLANT_STORE_JWT_ISSUER: issuer, PLANT_STORE_JWT_AUDIENCE: audience });
    expect(fromEnv.access.jwt).to.deep.equal({ jwksUrl: jwks, issuer, audience });
    const fromFlags = readConfig(['--jwt-jwks-url', jwks, '--jwt-issuer', issuer, '--jwt-audience', audience, '--jwt-scope-claim', 'scp'], {});
    expect(fromFlags.access.jwt).to.deep.equal({ jwksUrl: jwks, issuer, audience, scopeClaim: 'scp' });
    expect(readConfig([], {}).access.jwt).to.equal(undefined);
    expect(serverTokens(fromEnv.access)).to.deep.equal({ tokens: [], generated: false });
    expect(serverTokens(readConfig([], {}).access).generated).to.equal(true);
  });

  it('JWT settings: any of the three alone, a bad URL or a bad claim name is refused', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PLANT_STORE_JWT_JWKS_URL: jwks }, /missing --jwt-issuer \/ PLANT_STORE_JWT_ISSUER, --jwt-audience \/ PLANT_STORE_JWT_AUDIENCE/],
      [{ PLANT_STORE_JWT_ISSUER: issuer }, /missing --jwt-jwks-url \/ PLANT_STORE_JWT_JWKS_URL, --jwt-audience/],
      [{ PLANT_STORE_JWT_JWKS_URL: jwks, PLANT_STORE_JWT_ISSUER: issuer }, /missing --jwt-audience \/ PLANT_STORE_JWT_AUDIENCE$/],
      [{ PLANT_STORE_JWT_SCOPE_CLAIM: 'scp' }, /need .* together; missing/],
      [{ PLANT_STORE_JWT_JWKS_URL: 'not a url', PLANT_STORE_JWT_ISSUER: issuer, PLANT_STORE_JWT_AUDIENCE: audience }, /the JWKS URL is not a URL/],
      [{ PLANT_STORE_JWT_JWKS_URL: 'ftp://idp.example/jwks', PLANT_STORE_JWT_ISSUER: issuer, PLANT_STORE_JWT_AUDIENCE: audience }, /must be http\(s\)/],
      [{ PLANT_STORE_JWT_JWKS_URL: jwks, PLANT_STORE_JWT_ISSUER: issuer, PLANT_STORE_JWT_AUDIENCE: audience, PLANT_STORE_JWT_SCOPE_CLAIM: 'a b' }, /plain claim name/],
    ];
    for (const [env, message] of cases) expect(refusal([], env), JSON.stringify(env)).to.match(message);
  });
});
