import { expect } from 'chai';
import { MAX_PLANT_ID, type Plant, type PlantRepository } from '../../core/index.js';

/** A fresh, empty repository and how to dispose of it. */
export interface StorageFixture {
  readonly repository: PlantRepository;
  close(): Promise<void>;
}
export type StorageFactory = () => Promise<StorageFixture>;

/** Inside a describe: a fresh repository from `factory` for each test, closed after it; read it through the getter. */
export function freshRepositoryEach(factory: StorageFactory): () => PlantRepository {
  let fixture: StorageFixture | undefined;
  beforeEach(async () => {
    fixture = await factory();
  });
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });
  return () => fixture!.repository;
}

/**
 * The behaviour every storage adapter promises. Each adapter's test file calls this with a
 * factory of empty, isolated repositories; nothing here knows which adapter it runs on.
 */
/** What differs between storages; a capability's tests run only where it is claimed, and its absence is checked. */
export interface StorageSupports {
  /** `repository.sandbox(name)`: plants partitioned by sandbox, ids unique per sandbox. */
  readonly sandboxes: boolean;
  /** Self-service sandboxes: adds bounded by `maxPlants`, `purge()`, a `sandboxes` registry. */
  readonly selfService?: boolean;
  /**
   * With selfService: whether the store under test applies the quota atomically, so adds at
   * its edge may race (asked when the test runs; yes unless told). Where it cannot (FerretDB
   * standing in for MongoDB applies no conditional update as one step) the same adds go one
   * at a time, and the race is proven apart, on a model with the real store's atomicity.
   */
  readonly atomicQuota?: () => boolean;
}

export function storageContract(adapterName: string, factory: StorageFactory, supports: StorageSupports): void {
  describe(`${adapterName} storage contract`, () => {
    const repository = freshRepositoryEach(factory);
    let repo: PlantRepository;
    beforeEach(() => {
      repo = repository();
    });

    const addAll = async (plants: Plant[]) => {
      for (const plant of plants) expect(await repo.add(plant)).to.equal(true);
    };
    const ids = (plants: Plant[]) => plants.map((p) => p.id);

    it('an empty store has an empty first page', async () => {
      expect(await repo.page({ limit: 10 })).to.deep.equal([]);
    });

    it('pages are ordered by id ascending, whatever the insertion order', async () => {
      await addAll([5, 1, 9, 3, 7].map((id) => ({ id, name: `p${id}` })));
      expect(ids(await repo.page({ limit: 10 }))).to.deep.equal([1, 3, 5, 7, 9]);
    });

    it('a page holds at most limit plants and starts after the cursor', async () => {
      await addAll([1, 2, 3, 4, 5, 6].map((id) => ({ id, name: `p${id}` })));
      expect(ids(await repo.page({ limit: 2 }))).to.deep.equal([1, 2]);
      expect(ids(await repo.page({ limit: 2, after: 2 }))).to.deep.equal([3, 4]);
      expect(ids(await repo.page({ limit: 10, after: 4 }))).to.deep.equal([5, 6]);
      expect(await repo.page({ limit: 10, after: 6 })).to.deep.equal([]);
    });

    it('walking pages with the last id as cursor visits every plant once', async () => {
      const all = Array.from({ length: 57 }, (_, i) => ({ id: 1000 - i * 7, name: `p${i}` }));
      await addAll(all);
      const seen: number[] = [];
      let after: number | undefined;
      for (;;) {
        const page = await repo.page(after === undefined ? { limit: 10 } : { limit: 10, after });
        if (page.length === 0) break;
        seen.push(...ids(page));
        after = page[page.length - 1]!.id;
      }
      expect(seen).to.deep.equal(ids(all).sort((a, b) => a - b));
    });

    it('a tag filter returns only plants with that tag, in id order', async () => {
      await addAll([
        { id: 4, name: 'a', tag: 'fern' },
        { id: 2, name: 'b', tag: 'cactus' },
        { id: 3, name: 'c' },
        { id: 1, name: 'd', tag: 'fern' },
      ]);
      expect(await repo.page({ limit: 10, tags: ['fern'] })).to.deep.equal([
        { id: 1, name: 'd', tag: 'fern' },
        { id: 4, name: 'a', tag: 'fern' },
      ]);
      expect(await repo.page({ limit: 10, tags: ['moss'] })).to.deep.equal([]);
    });

    it('several tags match any of them, merged in id order with limit and cursor', async () => {
      await addAll([
        { id: 1, name: 'a', tag: 'fern' },
        { id: 2, name: 'b', tag: 'cactus' },
        { id: 3, name: 'c', tag: 'moss' },
        { id: 4, name: 'd', tag: 'fern' },
        { id: 5, name: 'e', tag: 'cactus' },
        { id: 6, name: 'f' },
      ]);
      expect(ids(await repo.page({ limit: 10, tags: ['fern', 'cactus'] }))).to.deep.equal([1, 2, 4, 5]);
      expect(ids(await repo.page({ limit: 2, after: 1, tags: ['cactus', 'fern'] }))).to.deep.equal([2, 4]);
    });

    it('tags match exactly: case and surrounding spaces count', async () => {
      await addAll([
        { id: 1, name: 'a', tag: 'Fern' },
        { id: 2, name: 'b', tag: ' fern' },
      ]);
      expect(await repo.page({ limit: 10, tags: ['fern'] })).to.deep.equal([]);
      expect(ids(await repo.page({ limit: 10, tags: ['Fern'] }))).to.deep.equal([1]);
    });

    it('tags holding control characters, long or short, are found by their tag as any other; removing them leaves no trace', async () => {
      // U+0000 to U+0005 in tags of 64 UTF-16 units and more: lmdb-js's key encoding writes
      // those raw, where U+0000 to U+0004 are its separators (tag-key.ts). Each tag is of
      // the rule (not blank, at most 50 characters: an emoji is one character, two units).
      const long = '🌵'.repeat(35);
      const plant = (id: number, name: string, tag: string): Plant => ({ id, name, tag });
      const tags = ['a\u0000b', `${long}\u0000`, `\u0000${long}`, `${long}\u0000\u0001\u0002\u0003\u0004\u0005z`, `${long}\u0005A`, `${long}\u0005`, '🌿'.repeat(40) + '\u0000q', long, `\u0001${long}`];
      for (const target of [repo, ...(repo.sandbox ? [repo.sandbox('tagged')] : [])]) {
        for (const [index, tag] of tags.entries()) expect(await target.add(plant(index + 1, `p${index + 1}`, tag))).to.equal(true);
        for (const [index, tag] of tags.entries()) expect(await target.page({ limit: 10, tags: [tag] }), JSON.stringify(tag)).to.deep.equal([plant(index + 1, `p${index + 1}`, tag)]);
        expect(ids(await target.page({ limit: 10, tags }))).to.deep.equal(tags.map((_, index) => index + 1));
        for (const index of tags.keys()) expect(await target.remove(index + 1)).to.equal(true);
        for (const tag of tags) expect(await target.page({ limit: 10, tags: [tag] })).to.deep.equal([]);
      }
    });

    it('add of a taken id reports false and keeps the first plant', async () => {
      expect(await repo.add({ id: 1, name: 'first', tag: 'x' })).to.equal(true);
      expect(await repo.add({ id: 1, name: 'second' })).to.equal(false);
      expect(await repo.findById(1)).to.deep.equal({ id: 1, name: 'first', tag: 'x' });
      expect(await repo.page({ limit: 10 })).to.have.length(1);
    });

    it('concurrent adds of one id: exactly one succeeds', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => repo.add({ id: 42, name: `n${i}` })));
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await repo.page({ limit: 10 })).to.have.length(1);
    });

    it('addMany adds each plant as add would: taken ids, repeats in the list included, report false', async () => {
      expect(repo.addMany, 'every adapter here offers addMany').to.be.a('function');
      await addAll([{ id: 2, name: 'kept' }]);
      const added = await repo.addMany!([
        { id: 1, name: 'a', tag: 'fern' },
        { id: 2, name: 'taken' },
        { id: 3, name: 'c' },
        { id: 1, name: 'repeat' },
      ]);
      expect(added).to.deep.equal([true, false, true, false]);
      expect(await repo.page({ limit: 10 })).to.deep.equal([
        { id: 1, name: 'a', tag: 'fern' },
        { id: 2, name: 'kept' },
        { id: 3, name: 'c' },
      ]);
      expect(ids(await repo.page({ limit: 10, tags: ['fern'] }))).to.deep.equal([1]);
    });

    it('findById returns the plant, or undefined for an unknown id', async () => {
      await addAll([{ id: 8, name: 'Monstera', tag: 'tropical' }]);
      expect(await repo.findById(8)).to.deep.equal({ id: 8, name: 'Monstera', tag: 'tropical' });
      expect(await repo.findById(9)).to.equal(undefined);
    });

    it('a plant without a tag has no tag property at all', async () => {
      await addAll([{ id: 1, name: 'bare' }]);
      const [listed] = await repo.page({ limit: 1 });
      const found = await repo.findById(1);
      expect(Object.keys(listed!)).to.have.members(['id', 'name']);
      expect(Object.keys(found!)).to.have.members(['id', 'name']);
    });

    it('remove deletes the plant everywhere and reports true; an unknown id reports false', async () => {
      await addAll([
        { id: 1, name: 'a', tag: 'fern' },
        { id: 2, name: 'b', tag: 'fern' },
      ]);
      expect(await repo.remove(1)).to.equal(true);
      expect(await repo.remove(1)).to.equal(false);
      expect(await repo.remove(77)).to.equal(false);
      expect(await repo.findById(1)).to.equal(undefined);
      expect(ids(await repo.page({ limit: 10 }))).to.deep.equal([2]);
      expect(ids(await repo.page({ limit: 10, tags: ['fern'] }))).to.deep.equal([2]);
    });

    it('an id can be used again after its plant is removed', async () => {
      await addAll([{ id: 3, name: 'old', tag: 'a' }]);
      await repo.remove(3);
      expect(await repo.add({ id: 3, name: 'new' })).to.equal(true);
      expect(await repo.findById(3)).to.deep.equal({ id: 3, name: 'new' });
      expect(await repo.page({ limit: 10, tags: ['a'] })).to.deep.equal([]);
    });

    it('returned plants are copies: changing them changes nothing stored', async () => {
      const input = { id: 1, name: 'kept', tag: 't' };
      await addAll([input]);
      input.name = 'changed after add';
      const found = (await repo.findById(1)) as { name: string };
      try {
        found.name = 'changed after find';
      } catch {
        // a frozen copy is fine too
      }
      const [listed] = (await repo.page({ limit: 1 })) as { name: string }[];
      try {
        listed!.name = 'changed after page';
      } catch {
        // idem
      }
      expect(await repo.findById(1)).to.deep.equal({ id: 1, name: 'kept', tag: 't' });
    });

    it('two instances from the factory share nothing', async () => {
      const other = await factory();
      try {
        await repo.add({ id: 1, name: 'mine' });
        expect(await other.repository.findById(1)).to.equal(undefined);
        expect(await other.repository.add({ id: 1, name: 'theirs' })).to.equal(true);
        expect(await repo.findById(1)).to.deep.equal({ id: 1, name: 'mine' });
        expect(await other.repository.page({ limit: 10 })).to.have.length(1);
      } finally {
        await other.close();
      }
    });

    it('the largest id and text with operator-like or unicode content round-trip exactly', async () => {
      const odd = [
        { id: MAX_PLANT_ID, name: '$where', tag: 'a.b' },
        { id: MAX_PLANT_ID - 1, name: '🌵 Ça pousse', tag: '$gt' },
      ];
      await addAll(odd);
      expect(await repo.findById(MAX_PLANT_ID)).to.deep.equal(odd[0]);
      expect(await repo.page({ limit: 10, tags: ['$gt'] })).to.deep.equal([odd[1]]);
      expect(ids(await repo.page({ limit: 10, after: MAX_PLANT_ID - 1 }))).to.deep.equal([MAX_PLANT_ID]);
    });

    it('ping resolves while the storage is reachable', async () => {
      await repo.ping();
    });

    if (!supports.sandboxes) {
      it('keeps only the default sandbox (no sandbox())', () => {
        expect(repo.sandbox).to.equal(undefined);
      });
      return;
    }

    describe('sandboxes', () => {
      const plant = (id: number, name: string, tag?: string): Plant => (tag === undefined ? { id, name } : { id, name, tag });

      it('the same id in the default sandbox and two others: three plants, each found only in its own', async () => {
        const a = repo.sandbox!('garden-a');
        const b = repo.sandbox!('garden-b');
        expect(await repo.add(plant(7, 'default seven'))).to.equal(true);
        expect(await a.add(plant(7, 'a seven'))).to.equal(true);
        expect(await b.add(plant(7, 'b seven'))).to.equal(true);
        expect(await a.add(plant(7, 'again')), 'taken within its own sandbox').to.equal(false);
        expect(await repo.findById(7)).to.deep.equal(plant(7, 'default seven'));
        expect(await a.findById(7)).to.deep.equal(plant(7, 'a seven'));
        expect(await b.findById(7)).to.deep.equal(plant(7, 'b seven'));
        expect(await repo.sandbox!('garden-c').findById(7)).to.equal(undefined);
      });

      it('pages and tag filters stay within the sandbox, ids interleaved with other sandboxes', async () => {
        const a = repo.sandbox!('a');
        const b = repo.sandbox!('b');
        for (let id = 1; id <= 20; id++) {
          await (id % 2 === 0 ? a : b).add(plant(id, `p${id}`, id % 4 < 2 ? 'fern' : 'ivy'));
          await repo.add(plant(id * 100, `d${id}`, 'fern'));
        }
        expect(ids(await a.page({ limit: 100 }))).to.deep.equal([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
        expect(ids(await a.page({ limit: 3, after: 4 }))).to.deep.equal([6, 8, 10]);
        expect(ids(await b.page({ limit: 100, tags: ['fern'] }))).to.deep.equal([1, 5, 9, 13, 17]);
        expect(ids(await a.page({ limit: 100, tags: ['fern', 'ivy'], after: 10 }))).to.deep.equal([12, 14, 16, 18, 20]);
        expect((await repo.page({ limit: 1000 })).map((p) => p.id)).to.have.length(20);
        expect(await repo.sandbox!('empty').page({ limit: 10 })).to.deep.equal([]);
      });

      it('remove and addMany act on their own sandbox only', async () => {
        const a = repo.sandbox!('a');
        await repo.add(plant(1, 'default'));
        await a.add(plant(1, 'a'));
        expect(await a.remove(1)).to.equal(true);
        expect(await a.remove(1)).to.equal(false);
        expect(await repo.findById(1)).to.deep.equal(plant(1, 'default'));
        // Every storage that keeps sandboxes has addMany (imports use it): a sandbox's view must too.
        expect(a.addMany, 'a sandbox view has addMany').to.be.a('function');
        expect(await a.addMany!([plant(1, 'again'), plant(2, 'two'), plant(2, 'twice')])).to.deep.equal([true, true, false]);
        expect(ids(await a.page({ limit: 10 }))).to.deep.equal([1, 2]);
        expect(ids(await repo.page({ limit: 10 }))).to.deep.equal([1]);
      });

      it('sandbox() twice names the same plants; sandbox("default") is the repository\'s own', async () => {
        await repo.sandbox!('a').add(plant(3, 'three'));
        expect(await repo.sandbox!('a').findById(3)).to.deep.equal(plant(3, 'three'));
        await repo.sandbox!('default').add(plant(4, 'four'));
        expect(await repo.findById(4)).to.deep.equal(plant(4, 'four'));
      });

      if (supports.selfService) {
        it('an add bounded by maxPlants stores at most that many, even when concurrent at the edge (40303 beyond); the id check comes first', async () => {
          const box = repo.sandbox!('quota');
          for (let id = 1; id <= 5; id++) expect(await box.add(plant(id, `p${id}`), [], { maxPlants: 10 })).to.equal(true);
          const racer = (i: number) => box.add(plant(100 + i, 'racer'), [], { maxPlants: 10 });
          const outcomes: PromiseSettledResult<boolean>[] = [];
          if (supports.atomicQuota?.() ?? true) outcomes.push(...(await Promise.allSettled(Array.from({ length: 40 }, (_, i) => racer(i)))));
          else for (let i = 0; i < 40; i++) outcomes.push(...(await Promise.allSettled([racer(i)])));
          const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
          expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === true)).to.have.length(5);
          expect(refused).to.have.length(35);
          for (const reason of refused) expect(reason).to.include({ code: 40303, message: 'the sandbox holds its maximum of 10 plants' });
          expect((await box.page({ limit: 100 })).length).to.equal(10);
          expect(await box.add(plant(1, 'taken'), [], { maxPlants: 10 }), 'a taken id is a 409 even when full').to.equal(false);
          expect(await box.remove(1)).to.equal(true);
          expect(await box.add(plant(1, 'room again'), [], { maxPlants: 10 })).to.equal(true);
          expect(await repo.sandbox!('other').add(plant(1, 'elsewhere'), [], { maxPlants: 1 }), 'each sandbox counts its own').to.equal(true);
        });

        it('purge removes a sandbox\'s plants in bounded batches and nothing else', async () => {
          const box = repo.sandbox!('gone');
          for (let id = 1; id <= 25; id++) await box.add(plant(id, `p${id}`, id % 2 === 0 ? 'even' : undefined));
          await repo.sandbox!('kept').add(plant(1, 'kept'));
          await repo.add(plant(1, 'default'));
          let removed = 0;
          let rounds = 0;
          for (let n = await box.purge!(10); n > 0; n = await box.purge!(10)) {
            expect(n).to.be.at.most(10);
            removed += n;
            rounds++;
          }
          expect([removed, rounds]).to.deep.equal([25, 3]);
          expect(await box.page({ limit: 100 })).to.deep.equal([]);
          expect(await box.page({ limit: 100, tags: ['even'] })).to.deep.equal([]);
          expect(await repo.sandbox!('kept').findById(1)).to.deep.equal(plant(1, 'kept'));
          expect(await repo.findById(1)).to.deep.equal(plant(1, 'default'));
          expect(await repo.purge!(10), 'the default sandbox is never purged').to.equal(0);
        });
      }

      it('names at the edges of the rule, and the largest id, round-trip', async () => {
        for (const name of ['a', '0', '-', 'a'.repeat(64), 'x-1-y']) {
          const box = repo.sandbox!(name);
          expect(await box.add(plant(MAX_PLANT_ID, name))).to.equal(true);
          expect(await box.add(plant(1, name))).to.equal(true);
          expect(ids(await box.page({ limit: 10 }))).to.deep.equal([1, MAX_PLANT_ID]);
          expect(await box.findById(MAX_PLANT_ID)).to.deep.equal(plant(MAX_PLANT_ID, name));
        }
        expect(await repo.page({ limit: 10 })).to.deep.equal([]);
      });
    });
  });
}
