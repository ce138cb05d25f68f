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

  it('starts with no configuration but a data directory on disk storage, prints its URL and a generated token once', async () => {
    server = await startCli();
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.storage).to.match(/^disk \/.*plant-store-cli-/);
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
      const response = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
      const requestId = response.headers.get('x-request-id')!;
      await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}-wrong` } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const lines = server
        .output()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const requests = lines.filter((line) => line['msg'] === 'request');
      expect(requests.map((line) => line['status'])).to.deep.equal([200, 401]);
      expect(requests[0]).to.include({ requestId, route: '/plants', method: 'GET' });
      expect(server.output()).not.to.include(token);
    } finally {
      await server.stop();
    }
  });
});
