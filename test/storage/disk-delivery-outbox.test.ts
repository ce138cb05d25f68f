import { expect } from 'chai';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { Subscriptions, type OutboxClaim } from '../../core/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { outboxContract } from './outbox-contract.js';

outboxContract(
  'disk',
  async () => {
    const directory = tempDir('plant-store-outbox-');
    let repository = DiskPlantRepository.open(directory.path);
    return {
      first: { repository, outbox: repository.outbox },
      reopen: async () => {
        await repository.close();
        repository = DiskPlantRepository.open(directory.path);
        return { repository, outbox: repository.outbox };
      },
      close: async () => {
        await repository.close();
        directory.remove();
      },
    };
  },
  // The directory's lock keeps a second process out.
  { severalProcesses: false, durable: true, sandboxes: true },
);

// What only the disk outbox does: claims are kept in memory, and read an in-memory index of
// due times rather than every record, which must still follow the records as they are
// written (and committed) meanwhile.
describe('disk outbox: what a claim finds', () => {
  const T0 = 1_700_000_000_000;
  let directory: TempDir;
  let repository: DiskPlantRepository;
  let now = T0;
  const subscriptions = new Subscriptions(['https://hooks.example.org/a'], ['plant.created', 'plant.deleted'], () => now);
  const create = (id: number) => {
    const plant = { id, name: `Plant ${id}` };
    return repository.add(plant, subscriptions.deliveriesFor({ type: 'plant.created', data: plant }));
  };
  const claimedIds = (claims: OutboxClaim[]) => claims.map((claim) => claim.plantId);
  const delivered = (claim: OutboxClaim) => repository.outbox.settle(claim, claim.deliveries.map((delivery) => ({ id: delivery.id, result: 'delivered', status: 200 })));

  beforeEach(() => {
    now = T0;
    directory = tempDir('plant-store-outbox-');
    repository = DiskPlantRepository.open(directory.path);
  });
  afterEach(async () => {
    await repository.close();
    directory.remove();
  });

  it('after a restart every pending delivery is claimable at once: claims live in memory and end with the process', async () => {
    await create(1);
    await create(2);
    expect(claimedIds(await repository.outbox.claim(now, 60_000, 10))).to.deep.equal([1, 2]);
    await repository.close();
    repository = DiskPlantRepository.open(directory.path);
    expect(claimedIds(await repository.outbox.claim(now, 60_000, 10))).to.deep.equal([1, 2]);
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
    const settling = delivered(claim!);
    // The outcome is under way, not yet committed: the plant must not be sent again.
    expect(await repository.outbox.claim(now + 100, 1000, 10)).to.deep.equal([]);
    expect(await settling).to.equal(true);
    expect(await repository.outbox.claim(now + 100, 1000, 10)).to.deep.equal([]);
  });
});
