import { expect } from 'chai';
import { nextDeliveries, retried, settled, verdictOf, withDeliveries, type PendingDelivery } from '../../core/index.js';

const delivery = (id: string, type: 'plant.created' | 'plant.deleted', attempts = 0): PendingDelivery => ({
  id,
  endpoint: 'https://hooks.example.org/a',
  event: type === 'plant.created' ? { type, data: { id: 1, name: 'Fern' } } : { type, data: { id: 1 } },
  createdAt: 0,
  attempts,
  dueAt: 0,
});

describe('core: what an attempt comes to (the contract\'s delivery rules)', () => {
  const schedule = [5_000, 300_000];
  it('a 2xx is delivered; a 2xx with a transport error is not', () => {
    expect(verdictOf(delivery('a', 'plant.created'), { status: 204 }, schedule, 0)).to.deep.equal({ outcome: { id: 'a', status: 204, result: 'delivered' }, endpointGone: false });
    expect(verdictOf(delivery('a', 'plant.created'), { status: 200, error: 'reset' }, schedule, 0).outcome.result).to.equal('retry');
  });
  it('410 fails the delivery and marks the endpoint gone', () => {
    expect(verdictOf(delivery('a', 'plant.created'), { status: 410 }, schedule, 0)).to.deep.equal({
      outcome: { id: 'a', status: 410, error: 'endpoint answered 410 Gone', result: 'failed' },
      endpointGone: true,
    });
  });
  it('anything else is retried after the schedule\'s next delay, then failed once it is used up', () => {
    expect(verdictOf(delivery('a', 'plant.created', 0), { status: 500 }, schedule, 1_000).outcome).to.include({ result: 'retry', dueAt: 6_000 });
    expect(verdictOf(delivery('a', 'plant.created', 1), { error: 'no answer within 10000 ms' }, schedule, 1_000).outcome).to.include({ result: 'retry', dueAt: 301_000 });
    expect(verdictOf(delivery('a', 'plant.created', 2), { status: 307, error: 'redirect not followed' }, schedule, 1_000).outcome).to.include({ result: 'failed', status: 307 });
  });
});

describe('core: which delivery of a plant goes next', () => {
  it('a younger delivery waits behind a failed one until it is retried', () => {
    const record = withDeliveries(undefined, [delivery('c', 'plant.created'), delivery('d', 'plant.deleted')])!;
    const failedCreation = settled(record, [{ id: 'c', result: 'failed', status: 503 }])!;
    expect(nextDeliveries(failedCreation, 10).map((d) => d.id)).to.deep.equal([]);
    expect(failedCreation.dueAt, 'nothing due: no worker claims the record meanwhile').to.equal(undefined);
    const again = retried(failedCreation, 20);
    expect(again.count).to.equal(1);
    expect(nextDeliveries(again.record, 20).map((d) => d.id)).to.deep.equal(['c']);
  });
});
