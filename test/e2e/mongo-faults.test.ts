import { expect } from 'chai';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import type { FerretDb } from '../support/ferretdb.js';
import { withDatabase } from '../support/mongo-uri.js';
import { HttpClient } from '../support/http-client.js';
import { requireDedicatedFerretDb } from '../support/test-database.js';

const token = 'fault-test-token-0123456789abcdef';
const storageTimeoutMs = 2000;

describe('server on MongoDB when the database goes away', function () {
  this.timeout(60_000);
  let database: FerretDb;
  let server: CliServer | undefined;
  before(async function () {
    database = await requireDedicatedFerretDb(this);
  });
  after(async () => database?.dispose());
  afterEach(async () => server?.stop('SIGKILL'));

  it('answers 503 50301 within the storage timeout, /readyz 503, stays up, and recovers when the database is back', async () => {
    server = await startCli({
      PLANT_STORE_TOKENS: token,
      MONGODB_URI: withDatabase(database.uri, 'fault_test'),
      PLANT_STORE_STORAGE_TIMEOUT_MS: String(storageTimeoutMs),
    });
    expect(server.storage).to.match(/^mongodb /);
    const api = await HttpClient.connect(server.url, token);
    expect((await api.create(1)).status).to.equal(200);
    expect((await api.get('/readyz')).status).to.equal(200);

    await database.stop();
    for (const path of ['/plants', '/plants/1', '/readyz']) {
      const answer = await api.get(path);
      expect(answer.status, path).to.equal(503);
      expect(answer.body, path).to.deep.equal({ error: 50301, message: 'storage is unavailable' });
      expect(answer.elapsedMs, path).to.be.below(storageTimeoutMs + 1000);
    }
    const create = await api.create(2);
    expect({ status: create.status, body: create.body }).to.deep.equal({ status: 503, body: { error: 50301, message: 'storage is unavailable' } });
    expect((await api.get('/healthz')).status).to.equal(200);
    expect(server.child.exitCode).to.equal(null);

    await database.start();
    const listed = await eventually(
      async () => {
        const answer = await api.get('/plants');
        return answer.status === 200 && answer;
      },
      { what: 'GET /plants to answer 200 after the restart', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(listed.status).to.equal(200);
    expect((listed.body as { id: number }[]).map((plant) => plant.id)).to.include(1);
    expect((await api.create(3)).status).to.equal(200);
    expect((await api.get('/readyz')).status).to.equal(200);
    expect(server.child.exitCode).to.equal(null);
    // The client saw only 50301; the operator's log has the cause of each, and no crash.
    const failures = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; error?: number; err?: { type?: string; message?: string } })
      .filter((entry) => entry.error === 50301);
    expect(failures, 'logged 503s').to.have.length.of.at.least(4);
    for (const entry of failures) {
      expect(entry.level).to.equal(50);
      expect(entry.err?.message, 'the cause').to.be.a('string').and.not.equal('storage is unavailable');
    }
    expect(server.output()).not.to.match(/unhandled|uncaught/i);
  });

  it('with the default timeout, a stopped database still answers within 5 s', async () => {
    await database.start().catch(() => {});
    server = await startCli({ PLANT_STORE_TOKENS: token, MONGODB_URI: withDatabase(database.uri, 'fault_default') });
    const api = await HttpClient.connect(server.url, token);
    await database.stop();
    try {
      const answer = await api.get('/plants');
      expect(answer.status).to.equal(503);
      expect(answer.elapsedMs).to.be.below(5000 + 1000);
    } finally {
      await database.start();
    }
  });
});
