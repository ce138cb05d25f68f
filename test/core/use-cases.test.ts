import { expect } from 'chai';
import { CreatePlant, DeletePlant, ErrorCode, GetPlant, ListPlants, type PageQuery } from '../../core/index.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { CollectEvents } from '../support/collect-events.js';
import { expectStoreError } from '../support/expect-error.js';

describe('use cases', () => {
  let repository: MemoryPlantRepository;
  let events: CollectEvents;
  let create: CreatePlant;
  beforeEach(() => {
    repository = new MemoryPlantRepository();
    events = new CollectEvents();
    create = new CreatePlant(repository, events);
  });

  describe('create a plant', () => {
    it('stores only id, name and tag, and publishes plant.created with the NewPlant body', async () => {
      const created = await create.execute({ id: 7, name: 'Monstera', tag: 'tropical', colour: 'green', _id: 1 });
      expect(created).to.deep.equal({ id: 7, name: 'Monstera', tag: 'tropical' });
      expect(await repository.findById(7)).to.deep.equal(created);
      expect(events.events).to.deep.equal([{ type: 'plant.created', data: created }]);
    });

    it('a null tag means no tag', async () => {
      const created = await create.execute({ id: 1, name: 'Fern', tag: null });
      expect(created).to.deep.equal({ id: 1, name: 'Fern' });
      expect(created).not.to.have.property('tag');
    });

    it('a taken id is 40901 and publishes nothing', async () => {
      await create.execute({ id: 1, name: 'first' });
      await expectStoreError(create.execute({ id: 1, name: 'second' }), ErrorCode.PlantExists);
      expect(events.events).to.have.length(1);
      expect(await repository.findById(1)).to.deep.equal({ id: 1, name: 'first' });
    });

    it('invalid input is 40001 naming every offending field, and stores nothing', async () => {
      const error = await expectStoreError(create.execute({ id: '12', name: '' }), ErrorCode.InvalidPlant);
      expect(error.message).to.match(/\bid\b/).and.to.match(/\bname\b/);
      expect(repository.size).to.equal(0);
      expect(events.events).to.deep.equal([]);
    });

    it('reads each field once, so a getter cannot pass one value and store another', async () => {
      const names = ['Fern', ''];
      const input = {
        id: 3,
        get name() {
          return names.shift();
        },
      };
      expect(await create.execute(input)).to.deep.equal({ id: 3, name: 'Fern' });
      expect(await repository.findById(3)).to.deep.equal({ id: 3, name: 'Fern' });
    });

    it('something that is not an object is 40002', async () => {
      for (const input of [null, 'plant', 12, [{ id: 1, name: 'a' }]]) {
        await expectStoreError(create.execute(input), ErrorCode.MalformedBody);
      }
    });
  });

  describe('get a plant', () => {
    it('returns the plant, 40401 for an unknown id, 40003 for a non-id', async () => {
      const get = new GetPlant(repository);
      await create.execute({ id: 3, name: 'Aloe' });
      expect(await get.execute(3)).to.deep.equal({ id: 3, name: 'Aloe' });
      await expectStoreError(get.execute(4), ErrorCode.PlantNotFound);
      // Numbers only: text is the HTTP adapter's to turn into numbers (JavaScript callers
      // can still pass anything, and get 40003).
      for (const id of [Number.NaN, 0, -1, 1.5, 2 ** 53, '3', 'abc', null, undefined]) {
        await expectStoreError(get.execute(id as number), ErrorCode.InvalidParameter);
      }
    });
  });

  describe('delete a plant', () => {
    it('removes it and publishes plant.deleted with its id; a second delete is 40401', async () => {
      const remove = new DeletePlant(repository, events);
      await create.execute({ id: 5, name: 'Cactus' });
      await remove.execute(5);
      expect(await repository.findById(5)).to.equal(undefined);
      expect(events.events.at(-1)).to.deep.equal({ type: 'plant.deleted', data: { id: 5 } });
      await expectStoreError(remove.execute(5), ErrorCode.PlantNotFound);
      expect(events.events).to.have.length(2);
    });
  });

  describe('list plants', () => {
    let list: ListPlants;
    beforeEach(async () => {
      list = new ListPlants(repository);
      for (const id of [4, 1, 3, 2, 5]) await create.execute({ id, name: `p${id}`, ...(id % 2 ? { tag: 'odd' } : {}) });
    });

    it('defaults to a page of up to 1000 by ascending id, with no next on the last page', async () => {
      const page = await list.execute();
      expect(page.plants.map((p) => p.id)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(page).not.to.have.property('next');
    });

    it('a full page carries the request for the next one, keeping the filters', async () => {
      const page = await list.execute({ limit: 1, tags: ['odd'] });
      expect(page.plants.map((p) => p.id)).to.deep.equal([1]);
      expect(page.next).to.deep.equal({ limit: 1, after: 1, tags: ['odd'] });
      const last = await list.execute({ limit: 2, after: 3, tags: ['odd'] });
      expect(last.plants.map((p) => p.id)).to.deep.equal([5]);
      expect(last).not.to.have.property('next');
    });

    it('a page that exactly ends the store has no next', async () => {
      const page = await list.execute({ limit: 5 });
      expect(page.plants).to.have.length(5);
      expect(page).not.to.have.property('next');
    });

    it('bad parameters are 40003 naming the parameter', async () => {
      // Typed values, and what a JavaScript caller might pass instead.
      const cases: [object, RegExp][] = [
        [{ limit: 0 }, /limit/],
        [{ limit: 1001 }, /limit/],
        [{ limit: 1.5 }, /limit/],
        [{ limit: Number.NaN }, /limit/],
        [{ limit: 'ten' }, /limit/],
        [{ limit: '10' }, /limit/],
        [{ after: -1 }, /after/],
        [{ after: 2 ** 53 }, /after/],
        [{ tags: [''] }, /tag/],
        [{ tags: ['   '] }, /tag/],
        [{ tags: 'odd' }, /tags/],
        [{ tags: [7] }, /tag/],
        [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /tags/],
      ];
      for (const [query, name] of cases) {
        const error = await expectStoreError(list.execute(query as PageQuery), ErrorCode.InvalidParameter);
        expect(error.message).to.match(name);
      }
    });

    it('names every bad parameter in one answer', async () => {
      const error = await expectStoreError(list.execute({ limit: 0, after: -1, tags: [' '] }), ErrorCode.InvalidParameter);
      for (const name of [/limit/, /after/, /tag/]) expect(error.message).to.match(name);
    });
  });
});
