import { expect } from 'chai';
import { DeliverDue, Subscriptions, type DeliveryOutbox, type PendingDelivery, type SentAttempt, type WebhookTransport } from '../../core/index.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { ManualClock } from '../support/manual-clock.js';
import { recordingLog } from '../support/recording-log.js';
import { eventually } from '../support/eventually.js';

const A = 'https://a.example/hook';
const OLD = 'https://old.example/hook';

/** A transport that records what it was given and answers what `answer` says (200 by default). */
class RecordingTransport implements WebhookTransport {
  readonly sent: PendingDelivery[] = [];
  constructor(private readonly answer: (delivery: PendingDelivery) => Promise<SentAttempt> = async () => ({ status: 200, durationMs: 1 })) {}
  send(delivery: PendingDelivery): Promise<SentAttempt> {
    this.sent.push(delivery);
    return this.answer(delivery);
  }
}

// What the round itself does beyond the delivery rules (those are tested against a real
// receiver in test/webhooks/delivery.test.ts): on the memory storage, with a recording transport.
describe('core: one round of delivery (DeliverDue)', () => {
  let clock: ManualClock;
  let repository: MemoryPlantRepository;
  let log: ReturnType<typeof recordingLog>;
  beforeEach(() => {
    clock = new ManualClock(1_800_000_000_000);
    repository = new MemoryPlantRepository();
    log = recordingLog();
  });
  const create = async (ids: number[], endpoints = [A]) => {
    const subscriptions = new Subscriptions(endpoints, ['plant.created'], () => clock.now());
    for (const id of ids) await repository.add({ id, name: `plant ${id}` }, subscriptions.deliveriesFor({ type: 'plant.created', data: { id, name: `plant ${id}` } }));
  };
  const round = (transport: WebhookTransport, outbox: DeliveryOutbox = repository.outbox, settleConcurrency = 16) =>
    new DeliverDue({ outbox, transport, clock, log, endpoints: [A], retrySchedule: [1_000], leaseMs: 60_000, batchSize: 128, settleConcurrency });

  it('a delivery to an endpoint no longer configured fails at once, unsent, logged at error', async () => {
    await create([1], [A, OLD]);
    const transport = new RecordingTransport();
    expect(await round(transport).execute()).to.equal(1);
    expect(transport.sent.map((delivery) => delivery.endpoint)).to.deep.equal([A]);
    const { failed } = await repository.outbox.state();
    expect(failed.map((f) => [f.endpoint, f.lastError])).to.deep.equal([[OLD, 'endpoint no longer configured']]);
    expect(log.lines.filter((line) => line.level === 'error').map((line) => line.message)).to.deep.equal(['webhook delivery failed: its endpoint is no longer configured']);
  });

  it("each plant's outcome is written as soon as its own attempt ends, not after the slowest of the round", async () => {
    await create([1, 2]);
    let release = () => {};
    const slow = new Promise<SentAttempt>((resolve) => (release = () => resolve({ status: 200, durationMs: 1 })));
    const transport = new RecordingTransport(async (delivery) => (delivery.event.data.id === 2 ? slow : { status: 200, durationMs: 1 }));
    const running = round(transport).execute();
    await eventually(async () => (await repository.outbox.state()).pending === 1, { what: 'only the slow delivery left pending' });
    release();
    expect(await running).to.equal(2);
    expect((await repository.outbox.state()).pending).to.equal(0);
  });

  it('at most `settleConcurrency` outcome writes are under way at once', async () => {
    await create([1, 2, 3, 4, 5]);
    let writing = 0;
    let most = 0;
    const outbox = Object.create(repository.outbox) as DeliveryOutbox;
    outbox.settle = async (claim, outcomes) => {
      most = Math.max(most, ++writing);
      await new Promise((resolve) => setTimeout(resolve, 5));
      writing--;
      return repository.outbox.settle(claim, outcomes);
    };
    expect(await round(new RecordingTransport(), outbox, 2).execute()).to.equal(5);
    expect(most).to.equal(2);
    expect((await repository.outbox.state()).pending).to.equal(0);
  });

  it('an outcome or a 410 mark that cannot be written is logged at warn; the rest of the round goes on', async () => {
    await create([1, 2]);
    const outbox = Object.create(repository.outbox) as DeliveryOutbox;
    outbox.settle = async (claim, outcomes) => (claim.plantId === 1 ? Promise.reject(new Error('disk full')) : repository.outbox.settle(claim, outcomes));
    outbox.markGone = () => Promise.reject(new Error('disk full'));
    const transport = new RecordingTransport(async (delivery) => ({ status: delivery.event.data.id === 2 ? 410 : 200, durationMs: 1 }));
    expect(await round(transport, outbox).execute()).to.equal(2);
    expect(log.lines.filter((line) => line.level === 'warn').map((line) => line.message).sort()).to.deep.equal([
      'a webhook outcome could not be written; the delivery will be repeated when its claim lapses',
      'could not record that a webhook endpoint answered 410 Gone; its next deliveries will be tried',
    ]);
    const state = await repository.outbox.state();
    expect(state.failed.map((f) => [f.plantId, f.lastStatus])).to.deep.equal([[2, 410]]);
    expect(state.pending, "plant 1's delivery, sent but not recorded: sent again once its claim lapses").to.equal(1);
  });
});
