import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, runCli } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { HttpClient } from '../support/http-client.js';
import { projectRoot } from '../support/project-root.js';
import { eventually } from '../support/eventually.js';

const token = 'terminal-token-0123456789abcdef';
// Colours and cursor codes of a terminal, removed before reading its text.
// eslint-disable-next-line no-control-regex
const ansi = /\x1b\[[0-9;?]*[A-Za-z]/g;

describe('the server command at a terminal, and when it cannot start', () => {
  it('--version prints the package version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli({}, ['--version']);
    expect(result.code).to.equal(0);
    expect(result.stdout.trim()).to.equal(version);
  });

  it('at a terminal (a pseudo-terminal): one request makes one line with method, path, status, code, duration and holder', async () => {
    // script(1) runs the server with a pseudo-terminal as its standard output.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], PORT: '0', PLANT_STORE_TOKENS: token, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => (text += String(chunk).replace(ansi, '').replace(/\r/g, '')));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(text)?.[1], { context: () => text });
      // The client's fetch of /openapi.json makes a line of its own, before the one read here.
      const response = await (await HttpClient.connect(url, token)).get('/plants/7');
      expect(response.status).to.equal(404);
      const line = await eventually(() => text.split('\n').find((l) => l.includes('/plants/7')), { context: () => text });
      expect(line).to.match(/INFO.*: GET \/plants\/7 404 40401 \d+\.\d ms token-1$/);
      expect(text.split('\n').filter((l) => l.includes('/plants/7'))).to.have.length(1);
      // Nothing about the request follows its line (no field dump).
      const after = text.slice(text.indexOf(line) + line.length).trim();
      expect(after).to.equal('');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('MongoDB at a closed port: exit 1 within the storage timeout, one line naming host:port and the cause', async () => {
    const port = await freePort();
    const started = performance.now();
    const result = await runCli({ MONGODB_URI: `mongodb://127.0.0.1:${port}/plants`, PLANT_STORE_STORAGE_TIMEOUT_MS: '1000' });
    const elapsed = performance.now() - started;
    expect(result.code).to.equal(1);
    expect(result.stderr.trim()).to.equal(`plant-store: failed to start: cannot reach MongoDB at 127.0.0.1:${port}: connection refused`);
    // The process's own start-up takes part of this; the storage timeout is 1 s.
    expect(elapsed).to.be.below(4000);
  });
});
