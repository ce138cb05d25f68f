import { expect } from 'chai';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { HttpClient } from '../support/http-client.js';
import { IdentityProvider } from '../support/identity-provider.js';
import { tempDir } from '../support/temp-dir.js';

describe('the server command', () => {
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  it('starts with no configuration but a data directory on disk storage; not at a terminal, its generated token goes to a 0600 file and stdout is only JSON', async () => {
    server = await startCli();
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.storage).to.match(/^disk \/.*plant-store-cli-/);
    const token = server.generatedToken!;
    expect(token).to.match(/^[A-Za-z0-9_-]{40,}$/);
    expect(statSync(server.tokenFile!).mode & 0o777).to.equal(0o600);
    expect(server.output()).not.to.include(token);
    for (const line of server.stdout().trim().split('\n')) expect(() => JSON.parse(line), line).not.to.throw();
    const http = await HttpClient.connect(server.url, token);
    expect((await http.create(1, 'Monstera')).status).to.equal(200);
    expect((await http.get('/plants')).body).to.deep.equal([{ id: 1, name: 'Monstera' }]);
    expect((await http.get('/plants', { token: null })).status).to.equal(401);
  });

  it('uses tokens from PLANT_STORE_TOKENS and PLANT_STORE_TOKENS_FILE, prints none, honours the base path', async () => {
    using dir = tempDir('plant-store-cli-');
    const file = join(dir.path, 'tokens');
    writeFileSync(file, '# operators\nfile-token-0123456789abcdef\n\n# dashboards\nreader-token-0123456789abcdef plants:read\n');
    server = await startCli({
      PLANT_STORE_TOKENS: 'env-token-0123456789abcdef, second-token-0123456789',
      PLANT_STORE_TOKENS_FILE: file,
      PLANT_STORE_BASE_PATH: '/v1',
    });
    expect(server.generatedToken).to.equal(undefined);
    expect(server.url).to.match(/\/v1$/);
    expect(server.output()).not.to.include('0123456789');
    const tokens = ['env-token-0123456789abcdef', 'second-token-0123456789', 'file-token-0123456789abcdef'];
    const reader = 'reader-token-0123456789abcdef';
    const http = await HttpClient.connect(server.url, [...tokens, reader], '/v1');
    for (const token of tokens) expect((await http.get('/plants', { token })).status, token).to.equal(200);
    // The read-only line reads, and may not write; the lines without scopes may do both.
    expect((await http.get('/plants', { token: reader })).status).to.equal(200);
    const refused = await http.create(1, 'Fern', { token: reader });
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.equal(40301);
    expect((await http.create(1, 'Fern', { token: 'file-token-0123456789abcdef' })).status).to.equal(200);
  });

  it('exits 0 on SIGTERM, removing the file of its generated token', async () => {
    server = await startCli();
    expect(existsSync(server.tokenFile!)).to.equal(true);
    expect(await server.stop('SIGTERM')).to.equal(0);
    expect(existsSync(server.tokenFile!)).to.equal(false);
    expect(server.output()).not.to.include(server.generatedToken!);
  });

  it('with an identity provider and no static token: generates none, accepts its JWTs, logs the subject and never the JWT', async () => {
    const idp = await IdentityProvider.start();
    try {
      server = await startCli({ PLANT_STORE_JWT_JWKS_URL: idp.jwksUrl, PLANT_STORE_JWT_ISSUER: idp.issuer, PLANT_STORE_JWT_AUDIENCE: idp.audience });
      expect(server.generatedToken).to.equal(undefined);
      const token = await idp.sign('ops@example.org', { claims: { scope: 'plants:read' } });
      const http = await HttpClient.connect(server.url, token);
      expect((await http.get('/plants')).status).to.equal(200);
      const refused = await http.delete('/plants/1');
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('www-authenticate')).to.equal('Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"');
      await server.stop('SIGTERM');
      expect(server.output()).to.include('ops@example.org');
      expect(server.output()).not.to.include(token.split('.')[2]!);
    } finally {
      await idp.stop();
    }
  });

  const badConfigurations: [string, Record<string, string>, RegExp][] = [
    ['a port that is not a number', { PORT: 'eighty' }, /PORT/],
    ['a port out of range', { PORT: '70000' }, /PORT/],
    ['a base path without its leading slash', { PLANT_STORE_BASE_PATH: 'v1' }, /PLANT_STORE_BASE_PATH/],
    ['a short token', { PLANT_STORE_TOKENS: 'short' }, /token #1 is shorter/],
    ['a token with a character a bearer token cannot carry', { PLANT_STORE_TOKENS: 'has;a;semicolon;in;the;middle' }, /token #1 has characters/],
    ['a token line naming an unknown scope', { PLANT_STORE_TOKENS: 'first-token-0123456789, second-token-0123456789 plants:admin' }, /token #2 names an unknown scope "plants:admin"/],
    ['a JWKS URL without issuer and audience', { PLANT_STORE_JWT_JWKS_URL: 'https://idp.example/jwks.json' }, /PLANT_STORE_JWT_ISSUER.*PLANT_STORE_JWT_AUDIENCE/],
    ['an issuer and audience without a JWKS URL', { PLANT_STORE_JWT_ISSUER: 'https://idp.example/', PLANT_STORE_JWT_AUDIENCE: 'plants' }, /missing --jwt-jwks-url \/ PLANT_STORE_JWT_JWKS_URL$/m],
    ['a missing tokens file', { PLANT_STORE_TOKENS_FILE: '/nonexistent/plant-store-tokens' }, /PLANT_STORE_TOKENS_FILE cannot be read/],
  ];
  for (const [what, env, message] of badConfigurations) {
    it(`refuses ${what}: one clear line on stderr, exit status 2`, async () => {
      const result = await runCli(env);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.match(message);
      expect(result.stderr.trim().split('\n')).to.have.length(1);
      expect(result.stderr).not.to.match(/\bat .*\.js:\d+/);
    });
  }
});

describe('the server command: help and logs', () => {
  it('--help lists every flag with its variable and exits 0', async () => {
    const result = await runCli({}, ['--help']);
    expect(result.code).to.equal(0);
    for (const flag of ['--port', '--host', '--base-path', '--tokens-file', '--mongodb-uri', '--log-level', '--rate-limit', '--body-limit']) {
      expect(result.stdout).to.include(flag);
    }
    expect(result.stdout).to.include('PLANT_STORE_TOKENS');
  });

  it('an unknown flag is one line and exit status 2', async () => {
    const result = await runCli({}, ['--colour', 'green']);
    expect(result.code).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.have.length(1);
    expect(result.stderr).to.include('--colour');
  });

  it('flags win over variables', async () => {
    const result = await runCli({ PORT: '1' }, ['--port', 'not-a-port']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('"not-a-port"');
  });

  it('logs JSON request lines with request ids on stdout, and never the configured token', async () => {
    const token = 'logged-never-0123456789abcdef';
    const server = await startCli({ PLANT_STORE_TOKENS: token });
    try {
      const http = await HttpClient.connect(server.url, token);
      const response = await http.get('/plants');
      const requestId = response.headers.get('x-request-id')!;
      await http.get('/plants', { token: `${token}-wrong` });
      // The lines of the two requests above; the client's fetch of /openapi.json has its own.
      const requests = () =>
        server
          .output()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line['msg'] === 'request' && line['route'] === '/plants');
      await eventually(() => requests().length === 2, { context: () => server.output() });
      expect(requests().map((line) => line['status'])).to.deep.equal([200, 401]);
      expect(requests()[0]).to.include({ requestId, route: '/plants', method: 'GET' });
      expect(server.output()).not.to.include(token);
    } finally {
      await server.stop();
    }
  });
});
