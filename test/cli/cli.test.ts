import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startCli, type CliServer } from '../support/cli-process.js';

describe('the server command', () => {
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  it('starts with no configuration on memory storage, prints its URL and a generated token once', async () => {
    server = await startCli();
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.storage).to.equal('memory');
    const token = server.generatedToken!;
    expect(token).to.match(/^[A-Za-z0-9_-]{40,}$/);
    expect(server.output().split(token)).to.have.length(2);
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Monstera' }),
    });
    expect(created.status).to.equal(200);
    const listed = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
    expect(await listed.json()).to.deep.equal([{ id: 1, name: 'Monstera' }]);
    expect((await fetch(`${server.url}/plants`)).status).to.equal(401);
  });

  it('uses tokens from PLANT_STORE_TOKENS and PLANT_STORE_TOKENS_FILE, prints none, honours the base path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
    try {
      const file = join(dir, 'tokens');
      writeFileSync(file, '# operators\nfile-token-0123456789abcdef\n\n');
      server = await startCli({
        PLANT_STORE_TOKENS: 'env-token-0123456789abcdef, second-token-0123456789',
        PLANT_STORE_TOKENS_FILE: file,
        PLANT_STORE_BASE_PATH: '/v1',
      });
      expect(server.generatedToken).to.equal(undefined);
      expect(server.url).to.match(/\/v1$/);
      expect(server.output()).not.to.include('0123456789');
      for (const token of ['env-token-0123456789abcdef', 'second-token-0123456789', 'file-token-0123456789abcdef']) {
        const response = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status, token).to.equal(200);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 0 on SIGTERM', async () => {
    server = await startCli();
    expect(await server.stop('SIGTERM')).to.equal(0);
  });

  const badConfigurations: [string, Record<string, string>, RegExp][] = [
    ['a port that is not a number', { PORT: 'eighty' }, /PORT/],
    ['a port out of range', { PORT: '70000' }, /PORT/],
    ['a base path without its leading slash', { PLANT_STORE_BASE_PATH: 'v1' }, /PLANT_STORE_BASE_PATH/],
    ['a short token', { PLANT_STORE_TOKENS: 'short' }, /token #1 is shorter/],
    ['a token with a space', { PLANT_STORE_TOKENS: 'has a space in the middle of it' }, /token #1 has characters/],
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
