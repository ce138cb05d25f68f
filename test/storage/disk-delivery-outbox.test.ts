import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { Subscriptions, type OutboxClaim } from '../../core/index.js';

// Claims read an in-memory index of due times rather than every record: these check that
// what a claim finds still follows the records through retries, failures, re-tries,
// changes recorded while a claim is out, and a restart.
describe('disk outbox: what a claim finds', () => {
  const T0 = 1_700_000_000_000;
  let directory: string;
  let repository: DiskPlantRepository;
  let now = T0;
  const subscriptions = new Subscriptions(['https://hooks.example.org/a'], ['plant.created', 'plant.deleted'], () => now);
  const create = (id: number) => {
    const plant = { id, name: `Plant ${id}` };
    return repository.add(plant, subscriptions.deliveriesFor({ type: 'plant.created', data: plant }));
  };
  const claimedIds = (claims: OutboxClaim[]) => claims.map((claim) => claim.plantId);
  const answer = (claim: OutboxClaim, result: 'delivered' | 'retry' | 'failed', dueAt?: number) =>
    repository.outbox.settle(claim, claim.deliveries.map((delivery) => ({ id: delivery.id, result, ...(dueAt !== undefined && { dueAt }), status: result === 'delivered' ? 200 : 500 })));

  beforeEach(() => {
    now = T0;
    directory = mkdtempSync(join(tmpdir(), 'plant-store-outbox-'));
    repository = DiskPlantRepository.open(directory);
  });
  afterEach(async () => {
    await repository.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('a retry is found when it falls due and not before; a failed delivery only once retried', async () => {
    expect(await repository.outbox.claim(now, 1000, 10)).to.deep.equal([]);
    await create(1);
    await create(2);
    const first = await repository.outbox.claim(now, 1000, 10);
    expect(claimedIds(first)).to.deep.equal([1, 2]);
    expect(await answer(first[0]!, 'retry', T0 + 5000)).to.equal(true);
    expect(await answer(first[1]!, 'failed')).to.equal(true);
    expect(await repository.outbox.claim(T0 + 4999, 1000, 10)).to.deep.equal([]);
    const again = await repository.outbox.claim(T0 + 5000, 1000, 10);
    expect(claimedIds(again)).to.deep.equal([1]);
    expect(again[0]!.deliveries[0]!.id).to.equal(first[0]!.deliveries[0]!.id);
    expect(await answer(again[0]!, 'delivered')).to.equal(true);
    expect(await repository.outbox.claim(T0 + 10_000_000, 1000, 10)).to.deep.equal([]);
    expect(await repository.outbox.retryFailed(T0 + 20_000)).to.equal(1);
    expect(claimedIds(await repository.outbox.claim(T0 + 20_000, 1000, 10))).to.deep.equal([2]);
  });

  it('a claim out holds its plant until it lapses; a change recorded meanwhile is found after the settle', async () => {
    await create(1);
    const [claim] = await repository.outbox.claim(now, 1000, 10);
    expect(await repository.outbox.claim(now + 1000, 1000, 10)).to.deep.equal([]);
    now += 10;
    expect(await repository.remove(1, subscriptions.deliveriesFor({ type: 'plant.deleted', data: { id: 1 } }))).to.equal(true);
    expect(await answer(claim!, 'delivered')).to.equal(true);
    const next = await repository.outbox.claim(now, 1000, 10);
    expect(next.map((c) => c.deliveries.map((delivery) => delivery.event.type))).to.deep.equal([['plant.deleted']]);
    // A claim whose holder went quiet lapses: the plant is found again.
    expect(claimedIds(await repository.outbox.claim(now + 1001, 1000, 10))).to.deep.equal([1]);
  });

  it('a settle by a lapsed claim changes nothing; after a restart every pending delivery is found', async () => {
    await create(1);
    await create(2);
    const [stale] = await repository.outbox.claim(now, 10, 1);
    const [fresh] = await repository.outbox.claim(now + 11, 1000, 1);
    expect(fresh!.plantId).to.equal(1);
    expect(await answer(stale!, 'delivered')).to.equal(false);
    await repository.close();
    repository = DiskPlantRepository.open(directory);
    expect(claimedIds(await repository.outbox.claim(now, 1000, 10))).to.deep.equal([1, 2]);
  });

  it('claims made while creates are being committed miss none of them', async () => {
    // LMDB runs a transaction's callback before its commit: a claim in between once read
    // such a record as absent and dropped it from the index, and its delivery was never
    // sent (about half of 1,000 creates made by 50 callers while claims ran).
    const count = 1000;
    let creating = true;
    const claiming = (async () => {
      let rounds = 0;
      while (creating) {
        // Leases of 1 ms, never settled: each claim leaves the index to find the plant again.
        await repository.outbox.claim(Date.now(), 1, count);
        rounds++;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return rounds;
    })();
    let next = 1;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next <= count) await create(next++);
      }),
    );
    creating = false;
    expect(await claiming).to.be.greaterThan(10);
    const found = claimedIds(await repository.outbox.claim(Date.now() + 60_000, 1000, count + 1));
    expect(found).to.have.length(count);
  });

  it('a settled delivery is not claimed again while its outcome is being written', async () => {
    await create(1);
    const [claim] = await repository.outbox.claim(now, 1000, 10);
    const settling = answer(claim!, 'delivered');
    // The outcome is under way, not yet committed: the plant must not be sent again.
    expect(await repository.outbox.claim(now + 100, 1000, 10)).to.deep.equal([]);
    expect(await settling).to.equal(true);
    expect(await repository.outbox.claim(now + 100, 1000, 10)).to.deep.equal([]);
  });
});
