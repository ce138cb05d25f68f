import { expect } from 'chai';
import { HttpClient } from '../support/http-client.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { mongoStorageFactory, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { isFerretDb } from '../storage/mongo-server-kind.js';
import { sandboxIsolationSuite } from './sandbox-isolation.test.js';
import { selfServiceSuite } from './self-service-sandboxes.test.js';

// The sandbox suites on MongoDB storage. The quota's race at its edge needs MongoDB's atomic
// conditional update, which FerretDB lacks (see docs/storage.md, On FerretDB): on FerretDB
// that one test is skipped, the same creates go in sequence below, and the race is proven on
// stand-ins with MongoDB's atomicity (test/storage/mongo-sandbox-quota.test.ts).
const RACES_THE_QUOTA = /^the quota holds under \d+ parallel creates at its edge/;

describe('sandboxes over HTTP on MongoDB storage', () => {
  let database: TestDatabase;
  let ferretDb = false;
  before(async function () {
    database = await requireDatabase(this);
    ferretDb = await isFerretDb(database.uri);
  });
  beforeEach(function () {
    if (ferretDb && RACES_THE_QUOTA.test(this.currentTest?.title ?? '')) this.skip();
  });
  const storage = mongoStorageFactory(() => database.uri);

  sandboxIsolationSuite('mongo', storage);
  selfServiceSuite('mongo', storage);

  describe('the quota on mongo storage, creates in sequence', function () {
    this.timeout(30_000);
    let server: HttpServer | undefined;
    afterEach(async () => server?.close());

    it('at its edge: exactly the quota stored, then 403 40303; a freed place is taken again', async () => {
      server = await startHttpServer(storage, { env: { PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_MAX_PLANTS: '20' } });
      const signedUp = await server.http.post('/sandboxes', { token: null });
      const { token } = signedUp.body as { token: string };
      const client = new HttpClient({ url: server.url, basePath: '', openapi: server.openapi, token, tokens: [...server.tokens, token] });
      for (let id = 1; id <= 20; id++) expect((await client.create(id)).status, `create ${id}`).to.equal(200);
      for (let id = 21; id <= 25; id++) {
        const refused = await client.create(id);
        expect([refused.status, refused.body]).to.deep.equal([403, { error: 40303, message: 'the sandbox holds its maximum of 20 plants' }]);
      }
      expect((await client.create(1)).status, 'a taken id, full: 409').to.equal(409);
      expect((await client.delete('/plants/20')).status).to.equal(204);
      expect((await client.create(21)).status).to.equal(200);
      expect((await client.create(22)).status).to.equal(403);
      expect(await client.allIds()).to.have.length(20);
    });
  });
});
