import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startCli, type CliServer } from '../support/cli-process.js';
import { withDatabase } from '../support/mongo-uri.js';
import { HttpClient } from '../support/http-client.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

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
    await eventually(() => new Set(receiver!.createdIds()).size === CREATES, { context: () => `${new Set(receiver!.createdIds()).size} of ${CREATES}`, timeoutMs: 150_000 });
    const ids = receiver.createdIds();
    const duplicates = ids.length - new Set(ids).size;
    console.log(`      ${CREATES} events, ${ids.length} requests received, ${duplicates} duplicates (same webhook-id)`);
    expect(duplicates, 'repeats of a webhook-id').to.be.at.most(MAX_DUPLICATES);
    expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
  });

  it('a receiver down while both servers create, delete and re-create, then up: every acknowledged change delivered in order, no acknowledged plant lost', async () => {
    const PLANTS = 120;
    const AGAIN = 30;
    // The receiver's port, with nothing listening on it yet: every attempt is refused.
    const port = (await WebhookReceiver.start().then(async (probe) => [probe.port, await probe.close()]))[0] as number;
    const env = {
      MONGODB_URI: withDatabase(database.uri, `${name}_down`),
      PLANT_STORE_TOKENS: token,
      PLANT_STORE_RATE_LIMIT: 'off',
      PLANT_STORE_STORAGE_TIMEOUT_MS: '30000',
      PLANT_STORE_WEBHOOK_URLS: `http://127.0.0.1:${port}/hook`,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_EVENTS: 'plant.created,plant.deleted',
      // The first retry comes after every write below: on FerretDB an API write racing a
      // worker's outcome write of the same plant can be undone (its updates are not atomic,
      // see "On FerretDB" in docs/storage.md); on MongoDB they cannot race that way.
      PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '30s,1s,2s,4s,8s,8s',
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    const pair = await Promise.all([startCli(env), startCli(env)]);
    servers.push(...pair);
    const apis = await Promise.all(pair.map((server) => HttpClient.connect(server.url, token)));
    const expectStatus = async (call: Promise<{ status: number }>, status: number, what: string) => expect((await call).status, what).to.equal(status);
    const down = Date.now();
    const writesEnd = () => `writes took ${((Date.now() - down) / 1000).toFixed(1)} s`;
    let next = 1;
    const writer = async () => {
      for (let id = next++; id <= PLANTS; id = next++) await expectStatus(apis[id % 2]!.create(id), 200, `create ${id}`);
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    // On FerretDB a worker's outcome write racing the delete of the same plant can undo the
    // delete (see above): wait until each creation's first (refused) attempt is settled and
    // no claim is held, so the deletes below race no outcome write; the next attempts come
    // 30 s later. On MongoDB this wait changes nothing.
    const client = new MongoClient(env.MONGODB_URI);
    try {
      const plants = client.db().collection('plants');
      await eventually(async () => (await plants.countDocuments({ $or: [{ lease: { $exists: true } }, { 'outbox.attempts': 0 }] })) === 0, {
        what: 'every first attempt settled, no claim held',
        timeoutMs: 20_000,
      });
    } finally {
      await client.close();
    }
    // Deleted through the other server, then created again through the first.
    for (let id = 1; id <= AGAIN; id++) {
      await expectStatus(apis[(id + 1) % 2]!.delete(`/plants/${id}`), 204, `delete ${id}`);
      await expectStatus(apis[id % 2]!.create(id, `plant ${id} again`), 200, `create ${id} again`);
    }
    expect(Date.now() - down, `${writesEnd()}, past the first retry`).to.be.below(25_000);
    // The first test's receiver goes first: after() closes only the last one.
    await receiver?.close();
    receiver = await WebhookReceiver.start(TEST_WEBHOOK_SECRET, port);
    const outage = Date.now() - down;
    const events = () => new Set(receiver!.received.map((hook) => hook.id)).size;
    await eventually(() => events() === PLANTS + 2 * AGAIN, {
      context: async () => `${events()} of ${PLANTS + 2 * AGAIN} events; deliveries: ${(await apis[0]!.get('/webhooks/deliveries')).text}`,
      timeoutMs: 60_000,
    });
    const duplicates = receiver.received.length - events();
    console.log(`      receiver down ${(outage / 1000).toFixed(1)} s; ${PLANTS + 2 * AGAIN} events, ${receiver.received.length} requests received, ${duplicates} duplicates (same webhook-id)`);
    expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
    for (let id = 1; id <= AGAIN; id++) {
      const firsts = receiver.received
        .filter((hook) => (hook.body as { id: number }).id === id)
        .filter((hook, i, all) => all.findIndex((other) => other.id === hook.id) === i)
        .map((hook) => [hook.type, (hook.body as { name?: string }).name ?? null]);
      expect(firsts, `deliveries of plant ${id}, first arrivals`).to.deep.equal([
        ['plant.created', `plant ${id}`],
        ['plant.deleted', null],
        ['plant.created', `plant ${id} again`],
      ]);
    }
    for (const api of apis) {
      const listed = (await api.get('/plants?limit=1000')).body as { id: number; name: string }[];
      expect(listed.map((plant) => plant.id), 'every acknowledged plant, once').to.deep.equal(Array.from({ length: PLANTS }, (_, i) => i + 1));
      expect(listed.filter((plant) => plant.name.endsWith('again')).length).to.equal(AGAIN);
      // The last outcomes are written just after the receiver answered.
      await eventually(
        async () => {
          const state = (await api.get('/webhooks/deliveries')).body as { pending: number; failed: unknown[] };
          return state.pending === 0 && state.failed.length === 0;
        },
        { timeoutMs: 10_000 },
      );
    }
  });
});
