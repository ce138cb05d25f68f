import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { MemoryPlantRepository, type DeliveryOutbox, type PlantRepository } from '../../composition/index.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { ManualDelivery } from '../support/manual-delivery.js';
import { withDatabase } from '../support/mongo-uri.js';
import { dropDatabase, requireDatabase } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';

type Storage = PlantRepository & { readonly outbox: DeliveryOutbox };

/** A fresh storage of each kind, and how to dispose of it. */
const storages: [string, (context: Mocha.Context) => Promise<{ repository: Storage; cleanUp: () => Promise<void> }>][] = [
  ['memory', async () => ({ repository: new MemoryPlantRepository(), cleanUp: async () => {} })],
  [
    'disk',
    async () => {
      const dataDir = tempDir('plant-store-outbox-');
      const repository = DiskPlantRepository.open(dataDir.path);
      const cleanUp = async () => {
        await repository.close();
        dataDir.remove();
      };
      return { repository, cleanUp };
    },
  ],
  [
    'mongodb',
    async (context) => {
      const database = await requireDatabase(context);
      const name = `plant_store_outbox_${randomBytes(4).toString('hex')}`;
      const repository = await MongoPlantRepository.connect(withDatabase(database.uri, name));
      const cleanUp = async () => {
        await repository.close();
        await dropDatabase(database.uri, name);
      };
      return { repository, cleanUp };
    },
  ],
];

/** Resolves when `release()` is called: an answer the test lets go. */
function held(): { until: Promise<void>; release: () => void } {
  let release = () => {};
  const until = new Promise<void>((resolve) => (release = resolve));
  return { until, release };
}

for (const [name, open] of storages) {
  describe(`webhook outbox on ${name} storage: the order of a plant's changes`, function () {
    this.timeout(30_000);
    let receiver: WebhookReceiver;
    let delivery: ManualDelivery;
    let cleanUp = async () => {};
    beforeEach(async function () {
      receiver = await WebhookReceiver.start();
      const opened = await open(this);
      cleanUp = opened.cleanUp;
      delivery = new ManualDelivery({ repository: opened.repository, endpoints: [receiver.url], events: ['plant.created', 'plant.deleted'], retrySchedule: [300, 300, 300, 300] });
    });
    afterEach(async () => {
      delivery?.close();
      await receiver.close();
      await cleanUp();
    });

    it('create, delete and re-create of one id are delivered in that order; the deleted plant is gone for readers meanwhile', async () => {
      const d = delivery;
      // The first attempt is held, then refused: the deletion is recorded while it is under
      // way and must wait behind it. (Changing a document while a worker writes it is what
      // FerretDB 1.x does not make atomic; see "On FerretDB" in docs/storage.md. Here the writes do not overlap.)
      const answer = held();
      receiver.answerWith({ status: 503, until: answer.until });
      await d.create({ id: 1, name: 'Fern', tag: 'green' });
      const firstRound = d.round();
      await eventually(() => receiver.requestsArrived >= 1);
      await d.create({ id: 2, name: 'Ivy' });
      await d.delete(1);
      await d.get(1).then(
        () => expect.fail('a deleted plant must not be found'),
        (error: { code: number }) => expect(error.code).to.equal(40401),
      );
      expect((await d.list()).plants.map((plant) => plant.id)).to.deep.equal([2]);
      expect((await d.list({ tags: ['green'] })).plants).to.deep.equal([]);
      await d.create({ id: 1, name: 'Fern again' });
      await d.create({ id: 2, name: 'taken' }).catch(() => {}); // refused: records nothing
      answer.release();
      expect(await firstRound).to.equal(1);
      expect(await d.round(), 'plant 2 goes; plant 1 waits for its retry').to.equal(1);
      await d.after(300);
      await d.drain();
      const forOne = receiver.received.filter((hook) => (hook.body as { id: number }).id === 1);
      expect(forOne.map((hook) => [hook.type, hook.body])).to.deep.equal([
        ['plant.created', { id: 1, name: 'Fern', tag: 'green' }],
        ['plant.created', { id: 1, name: 'Fern', tag: 'green' }],
        ['plant.deleted', { id: 1 }],
        ['plant.created', { id: 1, name: 'Fern again' }],
      ]);
      expect(receiver.received.filter((hook) => (hook.body as { id: number }).id === 2).map((hook) => hook.body)).to.deep.equal([{ id: 2, name: 'Ivy' }]);
      expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
      expect((await d.list()).plants).to.deep.equal([{ id: 1, name: 'Fern again' }, { id: 2, name: 'Ivy' }]);
      expect(await d.state()).to.deep.equal({ pending: 0, failed: [] });
    });
  });
}

describe('webhook outbox on mongodb storage shared by two servers', function () {
  this.timeout(30_000);
  it("an id freed by the other server's deletion, whose delivery is still pending, can be created again here", async function () {
    const database = await requireDatabase(this);
    const name = `plant_store_outbox_shared_${randomBytes(4).toString('hex')}`;
    const uri = withDatabase(database.uri, name);
    const receiver = await WebhookReceiver.start();
    const [withHooks, without] = [await MongoPlantRepository.connect(uri), await MongoPlantRepository.connect(uri)];
    // The second server records no deliveries itself.
    const here = new ManualDelivery({ repository: withHooks, endpoints: [receiver.url], events: ['plant.deleted'], retrySchedule: [60_000] });
    const answer = held();
    try {
      await here.create({ id: 5, name: 'Fern' });
      await here.delete(5);
      // The deletion's delivery is held unanswered: its tombstone stays, and no outcome is
      // written to the document while the other server revives it.
      receiver.answerWith({ status: 503, until: answer.until });
      const round = here.round();
      await eventually(() => receiver.requestsArrived >= 1);
      expect(await without.add({ id: 5, name: 'Fern again' })).to.equal(true);
      expect(await here.get(5)).to.deep.equal({ id: 5, name: 'Fern again' });
      answer.release();
      expect(await round).to.equal(1);
    } finally {
      answer.release();
      here.close();
      await Promise.all([withHooks.close(), without.close()]);
      await receiver.close();
      await dropDatabase(database.uri, name);
    }
  });
});
