import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { leaseMsFor, Subscriptions, type DeliveryOutbox, type DeliveryState } from '../../core/index.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { systemClock } from '../../adapters/clock/system-clock.js';
import { DeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';
import { WebhookSender } from '../../adapters/webhooks/webhook-sender.js';
import { withDatabase } from '../support/mongo-uri.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { quietLog } from '../support/quiet-log.js';

/** An outbox whose claims find nothing while `held`: a server whose worker happens not to look. */
function holdable(outbox: DeliveryOutbox): DeliveryOutbox & { held: boolean } {
  const gated = Object.create(outbox) as DeliveryOutbox & { held: boolean };
  gated.held = false;
  gated.claim = (now, leaseMs, limit) => (gated.held ? Promise.resolve([]) : outbox.claim(now, leaseMs, limit));
  return gated;
}

describe('webhooks: an endpoint that answered 410 Gone, on two servers sharing MongoDB', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  const name = `plant_store_gone_${randomBytes(4).toString('hex')}`;
  const closers: (() => Promise<unknown> | void)[] = [];
  before(async function () {
    database = await requireDatabase(this);
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    if (database) await dropDatabase(database.uri, name);
  });

  it('a 410 seen by one server stops the other; a retry through one server sends again from the other', async () => {
    const receiver = await WebhookReceiver.start();
    closers.push(() => receiver.close());
    const uri = withDatabase(database.uri, name);
    const subscriptions = new Subscriptions([receiver.url], ['plant.created']);
    const servers = await Promise.all(
      ['A', 'B'].map(async () => {
        const repository = await MongoPlantRepository.connect(uri);
        const outbox = holdable(repository.outbox);
        const sender = new WebhookSender({ secret: TEST_WEBHOOK_SECRET, timeoutMs: 2_000, allowPrivate: true, userAgent: 'plant-store-test' });
        const leaseMs = leaseMsFor(2_000, repository.outbox.callTimeoutMs);
        const worker = new DeliveryWorker({ outbox, sender, endpoints: [receiver.url], retrySchedule: [60_000], leaseMs, settleConcurrency: 16, log: quietLog(), clock: systemClock });
        worker.start();
        closers.push(() => repository.close(), () => worker.stop());
        return { repository, outbox, worker };
      }),
    );
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const create = async (server: typeof a, id: number) => {
      const plant = { id, name: `plant ${id}` };
      expect(await server.repository.add(plant, subscriptions.deliveriesFor({ type: 'plant.created', data: plant }))).to.equal(true);
      server.worker.wake();
    };
    const state = (awaited: string, until: (state: DeliveryState) => boolean) => () =>
      eventually(
        async () => {
          const now = await a.repository.outbox.state();
          return until(now) && now;
        },
        { what: awaited, context: async () => `delivery state: ${JSON.stringify(await a.repository.outbox.state())}`, timeoutMs: 5000 },
      );

    // Both servers run; only A looks for deliveries. The endpoint answers 410 once (then 200).
    receiver.answerWith({ status: 410 });
    b.outbox.held = true;
    await create(a, 1);
    await state('the 410 to fail plant 1', (s) => s.failed.length === 1)();
    // Now only B looks: it must know the endpoint is gone without asking it again.
    a.outbox.held = true;
    b.outbox.held = false;
    await create(b, 2);
    const failed = await state('plant 2 to fail unsent (endpoint gone)', (s) => s.failed.length === 2)();
    expect(receiver.requestsArrived, 'requests to the gone endpoint after the 410 one server got').to.equal(1);
    expect(failed.failed.find((delivery) => delivery.plantId === 2)?.lastError).to.equal('endpoint disabled: it answered 410 Gone');

    // An operator retries through A, and B (the one looking) sends again.
    expect(await a.worker.retryFailed()).to.equal(2);
    await eventually(() => receiver.received.length >= 3, { context: () => `received: ${JSON.stringify(receiver.received.map((hook) => hook.body))}` });
    expect(receiver.createdIds().slice(1).sort(), 'sent again after the retry').to.deep.equal([1, 2]);
    expect(await state('all delivered', (s) => s.pending === 0 && s.failed.length === 0)()).to.deep.equal({ pending: 0, failed: [] });
  });
});
