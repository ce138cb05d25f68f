import { expect } from 'chai';
import fc from 'fast-check';
import type { Plant } from '../../core/index.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { storageContract } from './storage-contract.js';
import { changeLogContract } from './change-log-contract.js';

storageContract('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), { sandboxes: true, selfService: true });
changeLogContract('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), true);

describe('memory storage: tag pages of a sandbox growing past its first plants and shrinking back', () => {
  // A sandbox's tag trees are built once it holds more than a few dozen plants (before, a
  // tagged page walks its plants): whichever way a sandbox got where it is, a page is the model's.
  const TAGS = ['a', 'b', 'c', 'd'];
  const step = fc.record({ id: fc.integer({ min: 1, max: 70 }), tag: fc.option(fc.constantFrom(...TAGS), { nil: undefined }), remove: fc.nat(3).map((n) => n === 0) });
  const query = fc.record({ tags: fc.option(fc.subarray(TAGS, { minLength: 1 }), { nil: undefined }), after: fc.integer({ min: 0, max: 70 }), limit: fc.integer({ min: 1, max: 40 }) });

  it('every page equals the model\'s, after every step', async () => {
    let grewPast = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 80, maxLength: 160 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (steps, queries) => {
        const repository = new MemoryPlantRepository().sandbox('grown');
        let largest = 0;
        const model = new Map<number, Plant>();
        // Then shrunk to a few plants (tag trees emptied and dropped) and grown again.
        const shrink = [...new Set(steps.map((each) => each.id))].filter((id) => id % 7 !== 0).map((id) => ({ id, tag: undefined, remove: true }));
        const regrow = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, tag: TAGS[i % TAGS.length], remove: false }));
        for (const { id, tag, remove } of [...steps, ...shrink, ...regrow]) {
          if (remove) expect(await repository.remove(id)).to.equal(model.delete(id));
          else {
            const plant: Plant = tag === undefined ? { id, name: `p${id}` } : { id, name: `p${id}`, tag };
            const added = !model.has(id);
            if (added) model.set(id, plant);
            expect(await repository.add(plant)).to.equal(added);
          }
          largest = Math.max(largest, model.size);
          for (const { tags, after, limit } of queries) {
            const expected = [...model.values()]
              .filter((plant) => plant.id > after && (tags === undefined || (plant.tag !== undefined && tags.includes(plant.tag))))
              .sort((a, b) => a.id - b.id)
              .slice(0, limit);
            expect(await repository.page({ after, limit, ...(tags !== undefined && { tags }) })).to.deep.equal(expected);
          }
        }
        if (largest > 32) grewPast++;
      }),
      { numRuns: 200 },
    );
    expect(grewPast, 'runs whose sandbox grew past 32 plants').to.be.greaterThan(100);
  });
});
