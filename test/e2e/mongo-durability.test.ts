import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startCli, type CliServer } from '../support/cli-process.js';
import { withDatabase } from '../support/mongo-uri.js';
import { HttpClient } from '../support/http-client.js';
import { createUntilKilled } from '../support/kill-mid-stream.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';

const token = 'durability-token-0123456789abcdef';

describe('server on MongoDB: durability and several processes', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  const servers: CliServer[] = [];
  const databases: string[] = [];
  const start = async (databaseName: string) => {
    const server = await startCli({ PLANT_STORE_TOKENS: token, MONGODB_URI: withDatabase(database.uri, databaseName) });
    servers.push(server);
    return server;
  };
  const uniqueDatabase = (what: string) => {
    const name = `plant_store_${what}_${randomBytes(4).toString('hex')}`;
    databases.push(name);
    return name;
  };
  before(async function () {
    database = await requireDatabase(this);
  });
  afterEach(async () => {
    try {
      await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    } finally {
      // On the user's own MONGODB_URI these would otherwise pile up, run after run.
      await Promise.all(databases.splice(0).map((name) => dropDatabase(database.uri, name)));
    }
  });

  it('every create acknowledged with 200 is listed after the server is SIGKILLed mid-stream and restarted', async () => {
    const name = uniqueDatabase('durability');
    const first = await start(name);
    const api = await HttpClient.connect(first.url, token);
    const { acknowledged, lastId } = await createUntilKilled(api, first, 150);

    const second = await start(name);
    const listed = new Set(await (await HttpClient.connect(second.url, token)).allIds());
    const lost = acknowledged.filter((id) => !listed.has(id));
    expect(lost).to.deep.equal([]);
    for (const id of listed) expect(id).to.be.within(1, lastId);
  });

  it('two servers on one database: each sees and deletes what the other created; a same-id race gives one 200', async () => {
    const name = uniqueDatabase('two_servers');
    const [a, b] = await Promise.all([start(name), start(name)]);
    const viaA = await HttpClient.connect(a!.url, token);
    const viaB = await HttpClient.connect(b!.url, token);

    expect((await viaA.create(10, 'made by A')).status).to.equal(200);
    expect((await viaB.get('/plants/10')).body).to.deep.equal({ id: 10, name: 'made by A' });
    expect(await viaB.allIds()).to.deep.equal([10]);
    expect((await viaB.delete('/plants/10')).status).to.equal(204);
    expect((await viaA.get('/plants/10')).status).to.equal(404);

    const racers = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? viaA : viaB).create(77, `racer ${i}`));
    const answers = await Promise.all(racers);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(99);
    for (const answer of answers.filter((answer) => answer.status === 409)) expect(answer.body.error).to.equal(40901);
    expect(await viaA.allIds()).to.deep.equal([77]);
  });
});
