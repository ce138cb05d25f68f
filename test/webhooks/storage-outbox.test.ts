import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore, type PlantStore, type StorageOption } from '../../composition/index.js';
import { withDatabase } from '../support/mongo-uri.js';
import { dropDatabase, requireDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The same outbox behaviour from every storage: recorded with the change, kept in order, nothing for refused changes. */
function outboxContract(name: string, storage: (context: Mocha.Context) => Promise<{ option: StorageOption; cleanUp: () => Promise<void> }>) {
  describe(`webhook outbox on ${name} storage`, function () {
    this.timeout(30_000);
    let receiver: WebhookReceiver;
    let store: PlantStore | undefined;
    let cleanUp = async () => {};
    beforeEach(async function () {
      receiver = await WebhookReceiver.start();
      const opened = await storage(this);
      cleanUp = opened.cleanUp;
      store = await createPlantStore({
        storage: opened.option,
        webhooks: { urls: [receiver.url], secret: TEST_WEBHOOK_SECRET, events: ['plant.created', 'plant.deleted'], retryScheduleMs: [300, 300, 300, 300], allowPrivate: true, log: quiet },
      });
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
      await receiver.close();
      await cleanUp();
    });

    it('create, delete and re-create of one id are delivered in that order; the deleted plant is gone for readers meanwhile', async () => {
      const s = store!;
      // The first attempt is held, then refused: the deletion is recorded while it is under
      // way and must wait behind it. (Changing a document while a worker writes it is what
      // FerretDB 1.x does not make atomic; see the README. Here the writes do not overlap.)
      receiver.answerWith({ status: 503, delayMs: 500 });
      await s.create({ id: 1, name: 'Fern', tag: 'green' });
      await waitFor(() => (receiver.requestsArrived >= 1 ? true : undefined));
      await s.create({ id: 2, name: 'Ivy' });
      await s.delete(1);
      await s.get(1).then(
        () => expect.fail('a deleted plant must not be found'),
        (error: { code: number }) => expect(error.code).to.equal(40401),
      );
      expect((await s.list()).plants.map((plant) => plant.id)).to.deep.equal([2]);
      expect((await s.list({ tags: ['green'] })).plants).to.deep.equal([]);
      await s.create({ id: 1, name: 'Fern again' });
      await s.create({ id: 2, name: 'taken' }).catch(() => {}); // refused: records nothing
      await waitFor(() => (receiver.received.filter((hook) => hook.verified).length >= 5 ? true : undefined), () => JSON.stringify(receiver.received.map((h) => [h.type, h.body])), 15_000);
      const forOne = receiver.received.filter((hook) => (hook.body as { id: number }).id === 1);
      const firstTry = forOne[0]!;
      const delivered = forOne.slice(1);
      expect(firstTry.type).to.equal('plant.created');
      expect(delivered.map((hook) => [hook.type, hook.body])).to.deep.equal([
        ['plant.created', { id: 1, name: 'Fern', tag: 'green' }],
        ['plant.deleted', { id: 1 }],
        ['plant.created', { id: 1, name: 'Fern again' }],
      ]);
      expect(receiver.received.filter((hook) => (hook.body as { id: number }).id === 2).map((hook) => hook.body)).to.deep.equal([{ id: 2, name: 'Ivy' }]);
      expect((await s.list()).plants).to.deep.equal([{ id: 1, name: 'Fern again' }, { id: 2, name: 'Ivy' }]);
      // The last outcome is written just after the receiver answered.
      for (let i = 0; i < 100 && (await s.deliveryState()).pending > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await s.deliveryState()).to.deep.equal({ pending: 0, failed: [] });
    });
  });
}

outboxContract('memory', async () => ({ option: undefined as unknown as StorageOption, cleanUp: async () => {} }));

outboxContract('disk', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-outbox-'));
  return { option: { dataDir }, cleanUp: async () => rmSync(dataDir, { recursive: true, force: true }) };
});

outboxContract('mongodb', async (context) => {
  const database = await requireDatabase(context);
  const name = `plant_store_outbox_${randomBytes(4).toString('hex')}`;
  return { option: { mongodbUri: withDatabase(database.uri, name) }, cleanUp: () => dropDatabase(database.uri, name) };
});

describe('webhook outbox on mongodb storage shared by two servers', function () {
  this.timeout(30_000);
  it("an id freed by the other server's deletion, whose delivery is still pending, can be created again here", async function () {
    const database = await requireDatabase(this);
    const name = `plant_store_outbox_shared_${randomBytes(4).toString('hex')}`;
    const option = { mongodbUri: withDatabase(database.uri, name) };
    const receiver = await WebhookReceiver.start();
    // The deletion's delivery is held unanswered for the whole test: its tombstone stays, and
    // no outcome is written to the document while the other store revives it.
    receiver.answerWith({ status: 503, delayMs: 3000 });
    const withHooks = await createPlantStore({
      storage: option,
      webhooks: { urls: [receiver.url], secret: TEST_WEBHOOK_SECRET, events: ['plant.deleted'], retryScheduleMs: [60_000], allowPrivate: true, log: quiet },
    });
    // The second server started before the tombstone existed, and records no deliveries itself.
    const without = await createPlantStore({ storage: option });
    try {
      await withHooks.create({ id: 5, name: 'Fern' });
      await withHooks.delete(5);
      await waitFor(() => (receiver.requestsArrived >= 1 ? true : undefined));
      expect(await without.create({ id: 5, name: 'Fern again' })).to.deep.equal({ id: 5, name: 'Fern again' });
      expect(await withHooks.get(5)).to.deep.equal({ id: 5, name: 'Fern again' });
    } finally {
      await without.close();
      await withHooks.close();
      await receiver.close();
      await dropDatabase(database.uri, name);
    }
  });
});
