import { expect } from 'chai';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { runCli, startCli } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { killQuietly } from '../support/watched-process.js';
import { childrenOf, Connection, GROUP_TOKEN, startGroup } from './group-process.js';

describe('the --workers setting: what a group refuses, and auto', function () {
  this.timeout(60_000);

  for (const [how, env, args] of [
    ['--workers 2', { PLANT_STORE_STORAGE: 'memory' }, ['--workers', '2']],
    ['PLANT_STORE_WORKERS=2', { PLANT_STORE_STORAGE: 'memory', PLANT_STORE_WORKERS: '2' }, []],
  ] as const) {
    it(`${how} on memory storage: exit 2 and one line naming --workers and memory`, async () => {
      const started = performance.now();
      const result = await runCli({ PLANT_STORE_TOKENS: GROUP_TOKEN, ...env }, [...args]);
      const lines = result.stderr.trim().split('\n');
      console.log(`      ${JSON.stringify(result.stderr.trim())} in ${Math.round(performance.now() - started)} ms`);
      expect(result.code, result.stderr).to.equal(2);
      expect(lines, result.stderr).to.have.length(1);
      expect(lines[0]).to.match(/^plant-store: /);
      expect(lines[0]).to.include('--workers');
      expect(lines[0]).to.include('memory');
      expect(result.stdout, 'nothing started').to.equal('');
    });
  }

  it('a second server on the directory a group holds, of 1 worker or of 2: refused with the line naming the primary, and the group goes on serving', async () => {
    using dataDir = tempDir('plant-store-workers-in-use-');
    const group = await startGroup(dataDir.path, 2);
    const connection = new Connection(group.url);
    try {
      const lockFile = join(dataDir.path, 'plant-store.lock');
      expect(readFileSync(lockFile, 'utf8').trim(), "the lock file names the primary").to.equal(String(group.primaryPid));
      expect((await connection.create(1)).status).to.equal(200);
      for (const workers of ['1', '2']) {
        const result = await runCli({ PLANT_STORE_DATA_DIR: dataDir.path, PLANT_STORE_TOKENS: GROUP_TOKEN }, ['--workers', workers]);
        const lines = result.stderr.trim().split('\n');
        console.log(`      --workers ${workers}: exit ${result.code}, ${JSON.stringify(result.stderr.trim())}`);
        expect(result.code, result.stderr).to.equal(1);
        expect(lines, result.stderr).to.have.length(1);
        expect(lines[0]).to.include(`data directory ${dataDir.path} is in use by process ${group.primaryPid}`);
        expect(result.stdout, 'nothing started').to.not.include('listening');
        // The refused server left the group's lock alone.
        expect(readFileSync(lockFile, 'utf8').trim(), `the lock file after the refused --workers ${workers}`).to.equal(String(group.primaryPid));
      }
      expect(group.workerPids(), 'the group still has its workers').to.have.length(2);
      // New connections, handed to either worker.
      for (let id = 2; id <= 9; id++) {
        const fresh = new Connection(group.url);
        expect((await fresh.create(id)).status, `create ${id} after the refusals`).to.equal(200);
        fresh.close();
      }
    } finally {
      connection.close();
      await group.killAll();
    }
  });
  for (const value of ['0', '65', 'two', '1.5']) {
    it(`--workers ${value}: exit 2 and one line naming --workers`, async () => {
      const result = await runCli({ PLANT_STORE_TOKENS: GROUP_TOKEN }, ['--workers', value]);
      const lines = result.stderr.trim().split('\n');
      expect(result.code, result.stderr).to.equal(2);
      expect(lines, result.stderr).to.have.length(1);
      expect(lines[0]).to.include('--workers');
      expect(result.stdout, 'nothing started').to.equal('');
    });
  }

  it('PLANT_STORE_WORKERS=auto: one worker per available core, named on the start-up line', async () => {
    using dataDir = tempDir('plant-store-workers-auto-');
    const cores = availableParallelism();
    const server = await startCli({ PLANT_STORE_DATA_DIR: dataDir.path, PLANT_STORE_TOKENS: GROUP_TOKEN, PLANT_STORE_WORKERS: 'auto' });
    try {
      // One core: `auto` is 1, a single process with no workers.
      const expected = cores > 1 ? cores : 0;
      const children = await eventually(() => (childrenOf(server.child.pid!).length === expected ? childrenOf(server.child.pid!) : undefined), {
        what: `${expected} workers`,
        context: () => `children: ${childrenOf(server.child.pid!).join(',')}`,
        timeoutMs: 5000,
      });
      console.log(`      ${cores} cores: ${children.length} workers; ${server.storage}`);
      expect(server.storage).to.equal(cores > 1 ? `disk ${dataDir.path}, ${cores} workers` : `disk ${dataDir.path}`);
    } finally {
      for (const pid of childrenOf(server.child.pid!)) killQuietly(pid, 'SIGKILL');
      await server.stop('SIGKILL');
    }
  });

  it('no token configured: the primary makes one token for the group, announces it once (a file only its owner reads), every worker accepts it, and it is gone after SIGTERM', async () => {
    using dataDir = tempDir('plant-store-workers-token-');
    // An empty variable counts as unset: no token is configured.
    const group = await startGroup(dataDir.path, 2, { PLANT_STORE_TOKENS: '' });
    try {
      // Announced just after the start-up line.
      await eventually(() => group.lines().some((line) => typeof line['tokenFile'] === 'string'), { what: 'the token announced' });
      const announced = group.lines().filter((line) => typeof line['tokenFile'] === 'string');
      expect(announced, 'announced once, by the primary').to.have.length(1);
      expect(announced[0]!.worker).to.equal(undefined);
      const file = announced[0]!['tokenFile'] as string;
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      const token = readFileSync(file, 'utf8').trim();
      for (let id = 1; id <= 8; id++) {
        const fresh = new Connection(group.url, token);
        expect((await fresh.create(id)).status, `create ${id} on a new connection`).to.equal(200);
        expect((await fresh.send('GET', '/plants/1', undefined, GROUP_TOKEN)).status, 'the usual test token is not configured').to.equal(401);
        fresh.close();
      }
      const servedBy = new Set(group.requestLines().filter((line) => line['status'] === 200).map((line) => line.worker));
      expect([...servedBy].sort(), 'both workers accepted the token').to.deep.equal([1, 2]);
      expect(await group.server.stop('SIGTERM'), 'exit code').to.equal(0);
      expect(existsSync(file), 'the token file is removed on shutdown').to.equal(false);
    } finally {
      await group.killAll();
    }
  });
});
