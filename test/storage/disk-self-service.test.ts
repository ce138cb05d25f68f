import { expect } from 'chai';
import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { DATABASE_FILE_NAME, DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { ErrorCode, plantCreated, plantDeleted, Subscriptions, type OutboxClaim, type Plant, type SandboxGrant } from '../../core/index.js';
import { expectStoreError } from '../support/expect-error.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

// What only the disk storage does for self-service sandboxes: a per-sandbox count kept on
// disk for the quota, a purge that also drops outbox records (and lets the in-memory due
// index and claims go), and the grants' indexes.
describe('disk storage: self-service sandboxes', () => {
  const T0 = 1_800_000_000_000;
  const HOOK = 'https://hooks.example.org/plants';
  const subscriptions = new Subscriptions([HOOK], ['plant.created', 'plant.deleted'], () => T0);
  const plant = (id: number, tag?: string): Plant => (tag === undefined ? { id, name: `Plant ${id}` } : { id, name: `Plant ${id}`, tag });
  const claimed = (claims: OutboxClaim[]) => claims.map((claim) => `${claim.sandbox ?? 'default'}/${claim.plantId}`).sort();
  const delivered = (claim: OutboxClaim) => claim.deliveries.map((delivery) => ({ id: delivery.id, result: 'delivered' as const, status: 200 }));

  let made: TempDir;
  let repository: DiskPlantRepository;
  const reopen = async () => {
    await repository.close();
    repository = DiskPlantRepository.open(made.path);
  };
  /** Adds to the named sandbox with its plant.created delivery. */
  const create = (sandbox: string, id: number, tag?: string) =>
    repository.sandbox(sandbox).add(plant(id, tag), subscriptions.deliveriesFor(plantCreated(plant(id, tag), sandbox === 'default' ? undefined : sandbox)));
  const purgeAll = async (sandbox: string, batch: number) => {
    let total = 0;
    for (let n = await repository.sandbox(sandbox).purge!(batch); n > 0; n = await repository.sandbox(sandbox).purge!(batch)) {
      expect(n).to.be.at.most(batch);
      total += n;
    }
    return total;
  };

  beforeEach(() => {
    made = tempDir('plant-store-self-service-');
    repository = DiskPlantRepository.open(made.path);
  });
  afterEach(async () => {
    await repository.close();
    made.remove();
  });

  describe('purge and the outbox', () => {
    it("drops the sandbox's outbox records, a deleted plant's too, and leaves other sandboxes' and the default's", async () => {
      for (let id = 1; id <= 5; id++) await create('gone', id, id % 2 === 0 ? 'even' : undefined);
      // A deleted plant keeps a record (its plant.deleted) with no plant beside it.
      expect(await repository.sandbox('gone').remove(5, subscriptions.deliveriesFor(plantDeleted(5, 'gone')))).to.equal(true);
      for (const id of [1, 2]) await create('kept', id);
      for (const id of [1, 2]) await create('default', id);
      expect(await repository.outbox.state('gone')).to.deep.include({ pending: 6 });

      // 4 plants, then 5 records: 9 removals in batches of at most 4.
      expect(await purgeAll('gone', 4)).to.equal(9);
      expect(await repository.outbox.state('gone')).to.deep.equal({ pending: 0, failed: [] });
      expect(await repository.outbox.state('kept')).to.deep.equal({ pending: 2, oldestPendingAt: T0, failed: [] });
      expect(await repository.outbox.state('default')).to.deep.equal({ pending: 2, oldestPendingAt: T0, failed: [] });
      expect(claimed(await repository.outbox.claim(T0, 60_000, 100))).to.deep.equal(['default/1', 'default/2', 'kept/1', 'kept/2']);

      await reopen();
      expect(await repository.outbox.state('gone')).to.deep.equal({ pending: 0, failed: [] });
      expect(await repository.sandbox('gone').page({ limit: 10 })).to.deep.equal([]);
      expect(await repository.sandbox('gone').page({ limit: 10, tags: ['even'] })).to.deep.equal([]);
      expect(claimed(await repository.outbox.claim(T0, 60_000, 100))).to.deep.equal(['default/1', 'default/2', 'kept/1', 'kept/2']);
    });

    it("lets go of claims held on the dropped records: their settle answers false, and the sandbox's name can record anew at once", async () => {
      for (const id of [1, 2]) await create('gone', id);
      await create('kept', 1);
      await create('default', 1);
      // Every record claimed, with a long lease, while the purge runs.
      const claims = await repository.outbox.claim(T0, 60_000, 100);
      expect(claimed(claims)).to.deep.equal(['default/1', 'gone/1', 'gone/2', 'kept/1']);
      expect(await purgeAll('gone', 100)).to.equal(4);

      const [gone1, gone2] = claims.filter((claim) => claim.sandbox === 'gone');
      expect(await repository.outbox.settle(gone1!, delivered(gone1!)), 'its record is gone').to.equal(false);
      // The same name again (a plant 2 anew): not held back by the old claim's lease.
      await create('gone', 2);
      expect(claimed(await repository.outbox.claim(T0, 60_000, 100))).to.deep.equal(['gone/2']);
      expect(await repository.outbox.settle(gone2!, delivered(gone2!)), 'the old claim is not the new one').to.equal(false);
      for (const claim of claims.filter((claim) => claim.sandbox !== 'gone')) expect(await repository.outbox.settle(claim, delivered(claim))).to.equal(true);
      expect(await repository.outbox.state()).to.deep.equal({ pending: 1, oldestPendingAt: T0, failed: [] });
    });

    it('a create committed together with the purge keeps its delivery claimable', async () => {
      for (const id of [1, 2, 3]) await create('gone', id);
      // The due index is built (by a claim) before both writes, so both must keep it right.
      expect(await repository.outbox.claim(T0 - 1, 1, 10)).to.deep.equal([]);
      // Queued in the same event turn: one LMDB transaction, the purge's callback first.
      const [purged, added] = await Promise.all([repository.sandbox('gone').purge!(100), create('gone', 2)]);
      expect([purged, added]).to.deep.equal([6, true]);
      expect(claimed(await repository.outbox.claim(T0, 60_000, 100))).to.deep.equal(['gone/2']);
      expect(await repository.sandbox('gone').page({ limit: 10 })).to.deep.equal([plant(2)]);
    });

    it('the default sandbox purges nothing, plants or deliveries', async () => {
      await create('default', 1);
      expect(await repository.purge(100)).to.equal(0);
      expect(await repository.sandbox('default').purge!(100)).to.equal(0);
      expect(await repository.findById(1)).to.deep.equal(plant(1));
      expect(await repository.outbox.state('default')).to.deep.include({ pending: 1 });
    });
  });

  describe('the count behind the quota', () => {
    const addBounded = (sandbox: string, id: number, maxPlants: number) => repository.sandbox(sandbox).add(plant(id), [], { maxPlants });
    const expectFull = async (sandbox: string, id: number, maxPlants: number) => {
      const error = await expectStoreError(addBounded(sandbox, id, maxPlants), ErrorCode.SandboxFull);
      expect(error.message).to.equal(`the sandbox holds its maximum of ${maxPlants} plants`);
      expect(await repository.sandbox(sandbox).findById(id), 'a refused add stores nothing').to.equal(undefined);
    };

    it('stays exact across reopening, removes, imports (addMany) and purges', async () => {
      const box = () => repository.sandbox('q');
      // A count kept already, then an import: the import adds to it.
      expect(await addBounded('q', 1, 5)).to.equal(true);
      expect(await box().addMany!([plant(2), plant(2), plant(3), plant(1)])).to.deep.equal([true, false, true, false]);
      expect(await addBounded('q', 4, 5)).to.equal(true);
      expect(await addBounded('q', 5, 5)).to.equal(true);
      await reopen();
      await expectFull('q', 6, 5);
      expect(await addBounded('q', 5, 5), 'a taken id is a conflict, full or not').to.equal(false);
      expect(await box().remove(1)).to.equal(true);
      expect(await box().remove(1)).to.equal(false);
      await reopen();
      expect(await addBounded('q', 6, 5)).to.equal(true);
      await expectFull('q', 7, 5);
      expect(await box().purge!(2)).to.equal(2);
      await reopen();
      expect(await addBounded('q', 7, 5)).to.equal(true);
      expect(await addBounded('q', 8, 5)).to.equal(true);
      await expectFull('q', 9, 5);
      expect(await purgeAll('q', 2)).to.equal(5);
      await reopen();
      expect(await addBounded('q', 1, 1)).to.equal(true);
      await expectFull('q', 2, 1);
      // Other sandboxes, and the default, count apart.
      expect(await addBounded('other', 1, 1)).to.equal(true);
      expect(await repository.add(plant(1))).to.equal(true);
    });

    it('concurrent adds at the edge after a reopen store exactly the quota', async () => {
      await repository.sandbox('edge').addMany!([1, 2, 3, 4, 5, 6, 7].map((id) => plant(id)));
      await reopen();
      const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => addBounded('edge', 100 + i, 10)));
      expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === true)).to.have.length(3);
      expect(outcomes.filter((o) => o.status === 'rejected')).to.have.length(27);
      expect(await repository.sandbox('edge').page({ limit: 100 })).to.have.length(10);
    });

    it('a sandbox written before counts were kept is counted from its plants', async () => {
      await repository.sandbox('old').addMany!([1, 2, 3].map((id) => plant(id)));
      await repository.sandbox('old').add(plant(4, 'fern'));
      await repository.close();
      // As the storage wrote it before: the sandbox's plants with no count beside them.
      const root = openLmdb({ path: join(made.path, DATABASE_FILE_NAME) });
      const counts = root.openDB<number, string>({ name: 'sandbox-plant-counts' });
      expect(counts.get('old')).to.equal(4);
      await counts.remove('old');
      await root.close();

      repository = DiskPlantRepository.open(made.path);
      await expectFull('old', 5, 4);
      expect(await addBounded('old', 5, 5)).to.equal(true);
      await expectFull('old', 6, 5);
      expect(await repository.sandbox('old').remove(4)).to.equal(true);
      expect(await addBounded('old', 6, 5)).to.equal(true);
    });

    it('a bound on the default sandbox counts its plants (it keeps no count: the service never bounds it)', async () => {
      await repository.addMany!([plant(1, 'fern'), plant(2)]);
      await repository.sandbox('named').add(plant(3));
      await expectFull('default', 3, 2);
      expect(await addBounded('default', 1, 2), 'a taken id is a conflict').to.equal(false);
      expect(await addBounded('default', 3, 3)).to.equal(true);
      expect(await repository.findById(3)).to.deep.equal(plant(3));
    });
  });

  describe('the registry on disk', () => {
    const grant = (name: string, lastUsedAt = T0): SandboxGrant => ({ name, tokenDigest: `digest-of-${name}`, createdAt: T0, lastUsedAt });

    it('idleBefore reads the least recently used first, and the index follows touches and removes (no stale entries)', async () => {
      const { sandboxes } = repository;
      const names = Array.from({ length: 200 }, (_, i) => `sb-${String(i).padStart(3, '0')}`);
      // Created with use times in reverse order of name.
      for (const [i, name] of names.entries()) expect(await sandboxes.create(grant(name, T0 + (names.length - i) * 10))).to.equal(true);
      expect((await sandboxes.idleBefore(T0 + 10_000, 3)).map((g) => g.name)).to.deep.equal(['sb-199', 'sb-198', 'sb-197']);
      expect(await sandboxes.idleBefore(T0 + 10, 10), 'before the oldest: none').to.deep.equal([]);

      await sandboxes.touch('sb-199', T0 + 5000);
      await sandboxes.touch('sb-199', T0 + 20);
      expect(await sandboxes.remove('sb-198')).to.equal(true);
      expect((await sandboxes.idleBefore(T0 + 10_000, 2)).map((g) => g.name)).to.deep.equal(['sb-197', 'sb-196']);
      expect(await sandboxes.idleBefore(T0 + 10_000, 1_000), 'all but the removed one').to.have.length(199);
      for (const name of names) await sandboxes.touch(name, T0 + 10_000);
      expect(await sandboxes.idleBefore(T0 + 10_000, 1_000), 'every entry moved, none left behind').to.deep.equal([]);
      expect((await sandboxes.idleBefore(T0 + 10_001, 1_000)).map((g) => g.name)).to.deep.equal(names.filter((name) => name !== 'sb-198'));

      await reopen();
      const list = await repository.sandboxes.list();
      expect(list).to.have.length(199);
      expect(list[0]).to.deep.equal(grant('sb-000', T0 + 10_000));
      expect(await repository.sandboxes.byTokenDigest('digest-of-sb-198')).to.equal(undefined);
    });

    it('a removed name may be created again, with a new token; the old token finds nothing', async () => {
      const { sandboxes } = repository;
      await sandboxes.create(grant('sb-a'));
      expect(await sandboxes.remove('sb-a')).to.equal(true);
      expect(await sandboxes.create({ ...grant('sb-a', T0 + 1), tokenDigest: 'new-digest' })).to.equal(true);
      expect(await sandboxes.byTokenDigest('digest-of-sb-a')).to.equal(undefined);
      expect(await sandboxes.byTokenDigest('new-digest')).to.deep.equal({ ...grant('sb-a', T0 + 1), tokenDigest: 'new-digest' });
      expect((await sandboxes.idleBefore(T0 + 2, 10)).map((g) => g.lastUsedAt)).to.deep.equal([T0 + 1]);
    });

    it('every view answers the one registry; a read-only open reads it and refuses writes as storage unavailable', async () => {
      expect(repository.sandbox('any').sandboxes).to.equal(repository.sandboxes);
      await repository.sandboxes.create(grant('sb-a'));
      const reader = DiskPlantRepository.open(made.path, { readOnly: true });
      try {
        expect(await reader.sandboxes.byTokenDigest('digest-of-sb-a')).to.deep.equal(grant('sb-a'));
        expect(await reader.sandboxes.list()).to.deep.equal([grant('sb-a')]);
        await expectStoreError(reader.sandboxes.create(grant('sb-b')), ErrorCode.StorageUnavailable);
        await expectStoreError(reader.sandbox('q').add(plant(1), [], { maxPlants: 1 }), ErrorCode.StorageUnavailable);
        await expectStoreError(reader.sandbox('q').purge!(1), ErrorCode.StorageUnavailable);
      } finally {
        await reader.close();
      }
    });

    it('after close, the registry fails as storage unavailable (50301)', async () => {
      await repository.close();
      await expectStoreError(repository.sandboxes.create(grant('sb-a')), ErrorCode.StorageUnavailable);
      await expectStoreError(repository.sandboxes.byTokenDigest('x'), ErrorCode.StorageUnavailable);
      await expectStoreError(repository.sandboxes.touch('sb-a', T0), ErrorCode.StorageUnavailable);
      await expectStoreError(repository.sandboxes.idleBefore(T0, 1), ErrorCode.StorageUnavailable);
      await expectStoreError(repository.sandboxes.list(), ErrorCode.StorageUnavailable);
      await expectStoreError(repository.sandbox('q').purge!(1), ErrorCode.StorageUnavailable);
      repository = DiskPlantRepository.open(made.path);
    });
  });
});
