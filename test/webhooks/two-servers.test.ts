import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startCli, type CliServer } from '../support/cli-process.js';
import { withDatabase } from '../support/mongo-uri.js';
import { HttpClient } from '../support/http-client.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const token = 'two-servers-token-0123456789abcdef';
const CREATES = 1000;
// At least once allows repeats, but a claim is one lease insert that a unique index lets
// only one server win: a repeat needs a server dying or an outcome write outliving its lease.
const MAX_DUPLICATES = CREATES / 100;

describe('webhooks: two servers on one MongoDB database', function () {
  this.timeout(240_000);
  let database: TestDatabase;
  let receiver: WebhookReceiver | undefined;
  const servers: CliServer[] = [];
  const name = `plant_store_webhook_pair_${randomBytes(4).toString('hex')}`;
  before(async function () {
    database = await requireDatabase(this);
  });
  after(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    await receiver?.close();
    if (database) await dropDatabase(database.uri, name);
  });

  it(`${CREATES} creates spread over both: every event delivered at least once, duplicates counted (at most ${MAX_DUPLICATES})`, async () => {
    receiver = await WebhookReceiver.start();
    const env = {
      MONGODB_URI: withDatabase(database.uri, name),
      PLANT_STORE_TOKENS: token,
      PLANT_STORE_RATE_LIMIT: 'off',
      // A slow test database must delay a create, not refuse it with 503.
      PLANT_STORE_STORAGE_TIMEOUT_MS: '30000',
      PLANT_STORE_WEBHOOK_URLS: receiver.url,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '0.5s,1s,2s',
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    servers.push(...(await Promise.all([startCli(env), startCli(env)])));
    const apis = await Promise.all(servers.map((server) => HttpClient.connect(server.url, token)));
    let next = 1;
    const t0 = Date.now();
    const writer = async () => {
      for (let id = next++; id <= CREATES; id = next++) {
        const status = (await apis[id % 2]!.create(id)).status;
        if (status !== 200) throw new Error(`create ${id}: ${status} after ${Date.now() - t0} ms\n${servers[id % 2]!.output().split('\n').filter((l) => l.includes('"level":50') || l.includes('"level":40')).slice(-3).join('\n')}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    await waitFor(() => (new Set(receiver!.createdIds()).size === CREATES ? true : undefined), () => `${new Set(receiver!.createdIds()).size} of ${CREATES}`, 150_000);
    const ids = receiver.createdIds();
    const duplicates = ids.length - new Set(ids).size;
    console.log(`      ${CREATES} events, ${ids.length} requests received, ${duplicates} duplicates (same webhook-id)`);
    expect(duplicates, 'repeats of a webhook-id').to.be.at.most(MAX_DUPLICATES);
    expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
  });
});
