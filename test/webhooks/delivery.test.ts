import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore, type PlantStore, type StorageOption, type WebhookOptions } from '../../composition/index.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

/** Collects the worker's log lines instead of printing them. */
function recordingLog() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

describe('webhooks: delivery to a real receiver (memory storage)', function () {
  this.timeout(20_000);
  let receiver: WebhookReceiver;
  let store: PlantStore | undefined;
  let log: ReturnType<typeof recordingLog>;
  const open = async (options: Partial<WebhookOptions> = {}, storage?: StorageOption) => {
    store = await createPlantStore({
      ...(storage && { storage }),
      webhooks: { urls: [receiver.url], secret: TEST_WEBHOOK_SECRET, retryScheduleMs: [200, 500], timeoutMs: 1000, allowPrivate: true, log, ...options },
    });
    return store;
  };
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    log = recordingLog();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await receiver.close();
  });

  it('delivers every created plant, signed, with the NewPlant body and the documented headers', async () => {
    const s = await open();
    await s.create({ id: 1, name: 'Fern' });
    await s.create({ id: 2, name: 'Monstera', tag: 'tropical' });
    await s.delete(1); // plant.deleted is not subscribed by default
    await waitFor(() => (receiver.received.length >= 2 ? true : undefined));
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
    expect((await s.deliveryState()).pending).to.equal(0);
    const delivered = log.lines.filter((line) => line.message === 'webhook delivered');
    expect(delivered[0]!.fields).to.include.keys('webhookId', 'endpoint', 'status', 'durationMs', 'attempt');
    expect(delivered[0]!.fields['endpoint']).to.equal(`127.0.0.1:${receiver.port}`);
  });

  it('a deletion is delivered after its creation, to an endpoint subscribed to both', async () => {
    receiver.answerWith({ status: 500 }); // the creation waits for a retry; the deletion must wait behind it
    const s = await open({ events: ['plant.created', 'plant.deleted'] });
    await s.create({ id: 7, name: 'Fern' });
    await s.delete(7);
    await waitFor(() => (receiver.received.length >= 3 ? true : undefined));
    expect(receiver.received.map((hook) => hook.type)).to.deep.equal(['plant.created', 'plant.created', 'plant.deleted']);
    expect(receiver.received[2]!.body).to.deep.equal({ id: 7 });
  });

  it('500, 500, then 200: the third attempt carries the same webhook-id', async () => {
    receiver.answerWith({ status: 500 }, { status: 500 });
    const s = await open();
    await s.create({ id: 3, name: 'Fern' });
    await waitFor(() => (receiver.received.length >= 3 ? true : undefined));
    await waitFor(() => (log.lines.some((line) => line.message === 'webhook delivered') ? true : undefined));
    expect(new Set(receiver.received.map((hook) => hook.id)).size).to.equal(1);
    expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
    expect(log.lines.filter((line) => line.message.startsWith('webhook attempt failed')).map((line) => line.fields['attempt'])).to.deep.equal([1, 2]);
    expect((await s.deliveryState()).pending).to.equal(0);
  });

  it('after the last attempt a delivery is failed, kept visible with its last status, and can be retried', async () => {
    receiver.answerWith({ status: 503 }, { status: 503 }, { status: 503 });
    const s = await open();
    await s.create({ id: 4, name: 'Fern' });
    const failed = await pollState(s, (st) => st.failed.length === 1);
    expect(failed.failed[0]).to.include({ plantId: 4, endpoint: receiver.url, type: 'plant.created', attempts: 3, lastStatus: 503 });
    expect(failed.pending).to.equal(0);
    expect(receiver.received).to.have.length(3);
    expect(await s.retryFailedDeliveries()).to.equal(1);
    await waitFor(() => (receiver.received.length === 4 ? true : undefined));
    const after = await pollState(s, (st) => st.failed.length === 0 && st.pending === 0);
    expect(after.failed).to.deep.equal([]);
    expect(new Set(receiver.received.map((hook) => hook.id)).size).to.equal(1);
  });

  it('410 Gone stops deliveries to that endpoint, logged at error', async () => {
    receiver.answerWith({ status: 410 });
    const s = await open();
    await s.create({ id: 5, name: 'Fern' });
    await pollState(s, (st) => st.failed.length === 1);
    await s.create({ id: 6, name: 'Ivy' });
    const state = await pollState(s, (st) => st.failed.length === 2);
    expect(receiver.received).to.have.length(1);
    expect(state.failed.map((f) => f.lastError)).to.include('endpoint disabled: it answered 410 Gone');
    expect(log.lines.some((line) => line.level === 'error' && /410 Gone/.test(line.message))).to.equal(true);
  });

  it('410 Gone outlives a restart (disk storage) and ends when failed deliveries are retried', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-webhook-gone-'));
    try {
      receiver.answerWith({ status: 410 });
      let s = await open({}, { dataDir });
      await s.create({ id: 5, name: 'Fern' });
      await pollState(s, (st) => st.failed.length === 1);
      await s.close();
      s = await open({}, { dataDir });
      await s.create({ id: 6, name: 'Ivy' });
      const state = await pollState(s, (st) => st.failed.length === 2);
      expect(receiver.received, 'nothing sent to the gone endpoint after the restart').to.have.length(1);
      expect(state.failed.find((f) => f.plantId === 6)!.lastError).to.equal('endpoint disabled: it answered 410 Gone');
      // The receiver is back: retrying the failed deliveries sends to it again.
      expect(await s.retryFailedDeliveries()).to.equal(2);
      await waitFor(() => (new Set(receiver.createdIds()).size === 2 && receiver.received.length === 3 ? true : undefined), () => JSON.stringify(receiver.createdIds()));
      expect((await pollState(s, (st) => st.pending === 0 && st.failed.length === 0)).failed).to.deep.equal([]);
    } finally {
      await store?.close();
      store = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a failed creation holds back its plant\'s deletion until retried: a deletion never arrives first', async () => {
    receiver.answerWith({ status: 503 }, { status: 503 }, { status: 503 });
    const s = await open({ events: ['plant.created', 'plant.deleted'] });
    await s.create({ id: 10, name: 'Fern' });
    await pollState(s, (st) => st.failed.length === 1);
    await s.delete(10);
    await s.create({ id: 11, name: 'Ivy' }); // another plant is not held back
    await waitFor(() => (receiver.createdIds().includes(11) ? true : undefined));
    const held = await s.deliveryState();
    expect(held.pending, 'the deletion waits behind the failed creation').to.equal(1);
    expect(receiver.received.filter((hook) => hook.type === 'plant.deleted')).to.have.length(0);
    expect(await s.retryFailedDeliveries()).to.equal(1);
    await waitFor(() => (receiver.received.some((hook) => hook.type === 'plant.deleted') ? true : undefined));
    const forTen = receiver.received.filter((hook) => (hook.body as { id: number }).id === 10).map((hook) => hook.type);
    expect(forTen).to.deep.equal(['plant.created', 'plant.created', 'plant.created', 'plant.created', 'plant.deleted']);
  });

  it('a receiver slower than the timeout is retried', async () => {
    receiver.answerWith({ delayMs: 1500 });
    const s = await open({ timeoutMs: 300 });
    await s.create({ id: 8, name: 'Fern' });
    await waitFor(() => (log.lines.some((line) => line.message === 'webhook delivered') ? true : undefined));
    expect(log.lines.find((line) => line.level === 'warn')!.fields['error']).to.equal('no answer within 300 ms');
    expect(receiver.received).to.have.length(2);
    expect(receiver.received[0]!.id).to.equal(receiver.received[1]!.id);
  });

  it('a redirect is not followed: the attempt fails and is retried at the same endpoint', async () => {
    const elsewhere = await WebhookReceiver.start();
    try {
      receiver.answerWith({ status: 307, headers: { location: elsewhere.url } });
      const s = await open();
      await s.create({ id: 9, name: 'Fern' });
      await waitFor(() => (log.lines.some((line) => line.message === 'webhook delivered') ? true : undefined));
      expect(elsewhere.received).to.have.length(0);
      expect(receiver.received).to.have.length(2);
      expect(log.lines.find((line) => line.level === 'warn')!.fields).to.include({ status: 307 });
    } finally {
      await elsewhere.close();
    }
  });
});

async function pollState(store: PlantStore, done: (state: Awaited<ReturnType<PlantStore['deliveryState']>>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await store.deliveryState();
    if (done(state)) return state;
    if (Date.now() > deadline) throw new Error(`delivery state never matched: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
