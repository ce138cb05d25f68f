import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliServer } from '../support/cli-process.js';
import { HttpClient } from '../support/http-client.js';
import { createUntilKilled } from '../support/kill-mid-stream.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const token = 'disk-durability-token-0123456789ab';

describe('server on disk storage: durability, one process per directory, races', function () {
  this.timeout(60_000);
  let dataDir: TempDir;
  const servers: CliServer[] = [];
  const start = async (env: Record<string, string | undefined> = {}, cwd?: string) => {
    // Rate limiting off: these tests send hundreds of requests at once on one token.
    const server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_RATE_LIMIT: 'off', PLANT_STORE_DATA_DIR: dataDir.path, ...env }, [], cwd);
    servers.push(server);
    return server;
  };
  beforeEach(() => {
    dataDir = tempDir('plant-store-e2e-');
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    dataDir.remove();
  });

  it('serves from ./plant-store-data in the working directory by default, creating it', async () => {
    const server = await start({ PLANT_STORE_DATA_DIR: undefined }, dataDir.path);
    expect(server.storage).to.equal(`disk ${join(dataDir.path, 'plant-store-data')}`);
    expect(existsSync(join(dataDir.path, 'plant-store-data'))).to.equal(true);
  });

  it('every create acknowledged with 200 is listed after the server is SIGKILLed mid-stream and restarted', async () => {
    const first = await start();
    const api = await HttpClient.connect(first.url, token);
    const { acknowledged, lastId } = await createUntilKilled(api, first, 300);

    // The killed server's lock is stale: the restart is not blocked by it.
    const second = await start();
    const listed = new Set(await (await HttpClient.connect(second.url, token)).allIds());
    const lost = acknowledged.filter((id) => !listed.has(id));
    expect(lost).to.deep.equal([]);
    for (const id of listed) expect(id).to.be.within(1, lastId);
  });

  it('a second server on the same directory exits 1 at once, naming the directory and the pid holding it', async () => {
    const first = await start();
    const second = await runCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_DATA_DIR: dataDir.path });
    expect(second.code).to.equal(1);
    expect(second.stderr).to.contain(`data directory ${dataDir.path} is in use by process ${first.child.pid}`);
    expect(second.stdout).not.to.contain('listening');
    // The first is unharmed.
    expect((await (await HttpClient.connect(first.url, token)).create(1)).status).to.equal(200);
  });

  it('200 concurrent creates of one id: exactly one 200, the others 409 40901', async () => {
    const api = await HttpClient.connect((await start()).url, token);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => api.create(77, `racer ${i}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(199);
    for (const answer of answers.filter((answer) => answer.status === 409)) expect(answer.body.error).to.equal(40901);
    expect(await api.allIds()).to.deep.equal([77]);
  });
});
