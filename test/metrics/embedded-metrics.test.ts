import { expect } from 'chai';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createPlantStore, type PlantStore } from '../../composition/index.js';
import { eventually } from '../support/eventually.js';
import { samplesOf, valueOf } from '../support/exposition.js';
import { quietLog } from '../support/quiet-log.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';

describe('an embedded store’s metrics (createPlantStore({ metrics: true }))', function () {
  this.timeout(20_000);
  let store: PlantStore | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await store?.close();
    await receiver?.close();
    store = receiver = undefined;
  });
  const samples = async () => samplesOf(await store!.metrics!.metrics());

  it('has none without the option: store.metrics is undefined', async () => {
    store = await createPlantStore();
    expect(store.metrics).to.equal(undefined);
  });

  it('keeps the storage metrics in a prom-client Registry, without Node’s own, that a host merges into its /metrics', async () => {
    store = await createPlantStore({ metrics: true });
    await store.create({ id: 1, name: 'Fern' });
    await store.get(1);
    expect(store.metrics).to.be.instanceOf(Registry);
    const own = await samples();
    expect(valueOf(own, 'plant_store_storage_call_duration_seconds_count', { operation: 'add' })).to.equal(1);
    expect(valueOf(own, 'plant_store_storage_call_duration_seconds_count', { operation: 'findById' })).to.equal(1);
    expect(own.filter((sample) => /^(nodejs|process)_/.test(sample.name))).to.deep.equal([]);
    // The host's registry, with Node's metrics as most programs have them: the two merge.
    const host = new Registry();
    collectDefaultMetrics({ register: host });
    const merged = samplesOf(await Registry.merge([host, store.metrics!]).metrics());
    expect(valueOf(merged, 'plant_store_storage_call_duration_seconds_count', { operation: 'add' })).to.equal(1);
    expect(merged.some((sample) => sample.name === 'process_cpu_user_seconds_total')).to.equal(true);
  });

  it('counts webhook attempts by outcome (delivered, retried, failed, gone) and the delivery lag of the delivered ones', async () => {
    const r = (receiver = await WebhookReceiver.start());
    const s = (store = await createPlantStore({ metrics: true, log: quietLog(), webhooks: { urls: [r.url], secret: TEST_WEBHOOK_SECRET, allowPrivate: true, retryScheduleMs: [20] } }));
    const failedCount = async () => (await s.deliveryState()).failed.length;
    r.answerWith({ status: 500 }, { status: 500 });
    await s.create({ id: 1, name: 'retried, then failed' });
    await eventually(async () => (await failedCount()) === 1);
    await s.create({ id: 2, name: 'delivered' });
    await eventually(() => r.received.length === 3);
    await eventually(async () => (await s.deliveryState()).pending === 0);
    r.answerWith({ status: 410 });
    await s.create({ id: 3, name: 'gone' });
    await eventually(async () => (await failedCount()) === 2);
    await s.create({ id: 4, name: 'gone before' });
    await eventually(async () => (await failedCount()) === 3);
    expect(r.received.length, 'nothing sent to the gone endpoint').to.equal(4);
    const counted = await samples();
    const attempts = Object.fromEntries(counted.filter((x) => x.name === 'plant_store_webhook_deliveries_total').map((x) => [x.labels['outcome'], x.value]));
    expect(attempts).to.deep.equal({ delivered: 1, retried: 1, failed: 1, gone: 2 });
    expect(valueOf(counted, 'plant_store_webhook_delivery_lag_seconds_count')).to.equal(1);
    expect(valueOf(counted, 'plant_store_webhook_delivery_lag_seconds_sum')).to.be.at.least(0).and.below(10);
    // The pending gauges are checked against a real backlog in pending-scrape.test.ts: here a
    // first scrape would show their initial 0 whatever is pending.
  });
});
