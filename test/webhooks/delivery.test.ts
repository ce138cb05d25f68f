import { expect } from 'chai';
import { createPlantStore, MemoryPlantRepository, type PlantStore } from '../../composition/index.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { ManualDelivery, type ManualDeliveryOptions } from '../support/manual-delivery.js';
import { recordingLog } from '../support/recording-log.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';

const DAY_MS = 86_400_000;

describe('webhooks: a store delivering to a real receiver, as wired by createPlantStore', function () {
  this.timeout(20_000);
  let receiver: WebhookReceiver;
  let store: PlantStore | undefined;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await receiver.close();
  });

  it('delivers every created plant, signed, with the NewPlant body and the documented headers', async () => {
    const log = recordingLog();
    const s = (store = await createPlantStore({ log, webhooks: { urls: [receiver.url], secret: TEST_WEBHOOK_SECRET, allowPrivate: true } }));
    await s.create({ id: 1, name: 'Fern' });
    await s.create({ id: 2, name: 'Monstera', tag: 'tropical' });
    await s.delete(1); // plant.deleted is not subscribed by default
    await eventually(() => receiver.received.length >= 2);
    expect(receiver.received.map((hook) => hook.body).sort((a: any, b: any) => a.id - b.id)).to.deep.equal([
      { id: 1, name: 'Fern' },
      { id: 2, name: 'Monstera', tag: 'tropical' },
    ]);
    for (const hook of receiver.received) {
      expect(hook.verified, 'signature verified by standardwebhooks').to.equal(true);
      expect(hook.type).to.equal('plant.created');
      expect(hook.headers['content-type']).to.equal('application/json');
      expect(hook.headers['user-agent']).to.match(/^plant-store\/\d+\.\d+\.\d+/);
      expect(hook.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/=]+$/);
      expect(Number(hook.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 30);
    }
    expect(new Set(receiver.received.map((hook) => hook.id)).size).to.equal(2);
    await eventually(() => log.lines.filter((line) => line.message === 'webhook delivered').length === 2);
    expect((await s.deliveryState()).pending).to.equal(0);
    const delivered = log.lines.find((line) => line.message === 'webhook delivered')!;
    expect(delivered.fields).to.include.keys('webhookId', 'event', 'plantId', 'endpoint', 'status', 'durationMs', 'attempt');
    expect(delivered.fields['endpoint']).to.equal(`127.0.0.1:${receiver.port}`);
  });
});

// The rules, round by round: the test moves the clock and runs each round of the core's
// delivery engine itself, so a retry is due exactly when its delay has passed, and no test
// waits for one.
describe('webhooks: the delivery rules, on a clock the test moves (a real receiver, the real sender)', function () {
  this.timeout(20_000);
  let receiver: WebhookReceiver;
  let delivery: ManualDelivery | undefined;
  const open = (options: Partial<ManualDeliveryOptions> = {}) =>
    (delivery = new ManualDelivery({ repository: new MemoryPlantRepository(), endpoints: [receiver.url], retrySchedule: [200, 500], ...options }));
  const ids = () => new Set(receiver.received.map((hook) => hook.id));
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    delivery?.close();
    delivery = undefined;
    await receiver.close();
  });

  it('500, 500, then 200: each retry comes once its delay has passed, not before, with the same webhook-id', async () => {
    receiver.answerWith({ status: 500 }, { status: 500 });
    const d = open();
    await d.create({ id: 3, name: 'Fern' });
    expect(await d.round()).to.equal(1);
    expect(await d.after(199), 'not due before the first delay').to.equal(0);
    expect(await d.after(1)).to.equal(1);
    expect(await d.after(499), 'not due before the second delay').to.equal(0);
    expect(await d.after(1)).to.equal(1);
    expect(receiver.received).to.have.length(3);
    expect(ids().size).to.equal(1);
    expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
    expect(d.logged('webhook attempt failed; will retry').map((line) => [line.fields['attempt'], line.fields['status'], line.fields['retryInMs']])).to.deep.equal([
      [1, 500, 200],
      [2, 500, 500],
    ]);
    expect(d.logged('webhook delivered').map((line) => line.fields['attempt'])).to.deep.equal([3]);
    expect(await d.state()).to.deep.equal({ pending: 0, failed: [] });
  });

  it('after the last attempt a delivery is failed, logged at error, kept visible with its last status, and can be retried', async () => {
    receiver.answerWith({ status: 503 }, { status: 503 }, { status: 503 });
    const d = open();
    await d.create({ id: 4, name: 'Fern' });
    await d.round();
    await d.after(200);
    await d.after(500);
    const failed = await d.state();
    expect(failed.pending).to.equal(0);
    expect(failed.failed).to.have.length(1);
    expect(failed.failed[0]).to.include({ plantId: 4, endpoint: receiver.url, type: 'plant.created', attempts: 3, lastStatus: 503 });
    expect(d.logged('webhook delivery failed after 3 attempts').map((line) => line.level)).to.deep.equal(['error']);
    expect(await d.after(DAY_MS), 'never tried again by itself').to.equal(0);
    expect(await d.retryFailed()).to.equal(1);
    expect(await d.round()).to.equal(1);
    expect(receiver.received).to.have.length(4);
    expect(ids().size).to.equal(1);
    expect(await d.state()).to.deep.equal({ pending: 0, failed: [] });
  });

  it('410 Gone stops deliveries to that endpoint, logged at error: later deliveries fail unsent', async () => {
    receiver.answerWith({ status: 410 });
    const d = open();
    await d.create({ id: 5, name: 'Fern' });
    await d.round();
    await d.create({ id: 6, name: 'Ivy' });
    await d.round();
    expect(receiver.received).to.have.length(1);
    const state = await d.state();
    expect(state.failed.map((f) => [f.plantId, f.lastStatus, f.lastError])).to.have.deep.members([
      [5, 410, 'endpoint answered 410 Gone'],
      [6, undefined, 'endpoint disabled: it answered 410 Gone'],
    ]);
    expect(d.logged(/410 Gone/).map((line) => line.level)).to.deep.equal(['error']);
  });

  it('410 Gone outlives a restart (disk storage); retrying failed deliveries sends to the endpoint again', async () => {
    using dataDir = tempDir('plant-store-webhook-gone-');
    let repository = DiskPlantRepository.open(dataDir.path);
    try {
      receiver.answerWith({ status: 410 });
      let d = open({ repository });
      await d.create({ id: 5, name: 'Fern' });
      await d.round();
      d.close();
      await repository.close();
      repository = DiskPlantRepository.open(dataDir.path);
      d = open({ repository, clock: d.clock });
      await d.create({ id: 6, name: 'Ivy' });
      await d.round();
      expect(receiver.received, 'nothing sent to the gone endpoint after the restart').to.have.length(1);
      expect((await d.state()).failed.find((f) => f.plantId === 6)!.lastError).to.equal('endpoint disabled: it answered 410 Gone');
      expect(await d.retryFailed()).to.equal(2);
      expect(await d.round()).to.equal(2);
      expect(receiver.createdIds().sort()).to.deep.equal([5, 5, 6]);
      expect(await d.state()).to.deep.equal({ pending: 0, failed: [] });
    } finally {
      await repository.close();
    }
  });

  it('a redirect is not followed: the attempt fails and is retried at the same endpoint', async () => {
    const elsewhere = await WebhookReceiver.start();
    try {
      receiver.answerWith({ status: 307, headers: { location: elsewhere.url } });
      const d = open();
      await d.create({ id: 9, name: 'Fern' });
      await d.round();
      expect(d.logged('webhook attempt failed; will retry')[0]!.fields).to.include({ status: 307, error: `redirect to ${elsewhere.url} not followed` });
      await d.after(200);
      expect(elsewhere.received).to.have.length(0);
      expect(receiver.received).to.have.length(2);
      expect(d.logged('webhook delivered')).to.have.length(1);
    } finally {
      await elsewhere.close();
    }
  });

  it('a receiver slower than the timeout is retried', async () => {
    receiver.answerWith({ delayMs: 2_000 });
    const d = open({ timeoutMs: 200 });
    await d.create({ id: 8, name: 'Fern' });
    await d.round();
    expect(d.logged('webhook attempt failed; will retry')[0]!.fields['error']).to.equal('no answer within 200 ms');
    await d.after(200);
    expect(d.logged('webhook delivered')).to.have.length(1);
    expect(receiver.received).to.have.length(2);
    expect(receiver.received[0]!.id).to.equal(receiver.received[1]!.id);
  });

  it('a deletion is delivered after its creation, to an endpoint subscribed to both', async () => {
    receiver.answerWith({ status: 500 });
    const d = open({ events: ['plant.created', 'plant.deleted'] });
    await d.create({ id: 7, name: 'Fern' });
    await d.delete(7);
    expect(await d.round()).to.equal(1);
    expect(await d.round(), 'the deletion waits behind the creation').to.equal(0);
    await d.after(200);
    await d.drain();
    expect(receiver.received.map((hook) => hook.type)).to.deep.equal(['plant.created', 'plant.created', 'plant.deleted']);
    expect(receiver.received[2]!.body).to.deep.equal({ id: 7 });
  });

  it("a failed creation holds back its plant's deletion until retried: a deletion never arrives first", async () => {
    receiver.answerWith({ status: 503 }, { status: 503 }, { status: 503 });
    const d = open({ events: ['plant.created', 'plant.deleted'] });
    await d.create({ id: 10, name: 'Fern' });
    await d.round();
    await d.after(200);
    await d.after(500);
    await d.delete(10);
    await d.create({ id: 11, name: 'Ivy' }); // another plant is not held back
    await d.drain();
    expect(receiver.createdIds()).to.include(11);
    expect((await d.state()).pending, 'the deletion waits behind the failed creation').to.equal(1);
    expect(await d.after(DAY_MS)).to.equal(0);
    expect(receiver.received.filter((hook) => hook.type === 'plant.deleted')).to.have.length(0);
    expect(await d.retryFailed()).to.equal(1);
    await d.drain();
    const forTen = receiver.received.filter((hook) => (hook.body as { id: number }).id === 10).map((hook) => hook.type);
    expect(forTen).to.deep.equal(['plant.created', 'plant.created', 'plant.created', 'plant.created', 'plant.deleted']);
    expect(await d.state()).to.deep.equal({ pending: 0, failed: [] });
  });
});
