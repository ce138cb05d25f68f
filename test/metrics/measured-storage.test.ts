import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/project-root.js';
import { Registry } from 'prom-client';
import { StorageCallMetrics } from '../../adapters/metrics/storage-call-metrics.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { measuredStorage, STORAGE_OPERATIONS } from '../../composition/store/measured-storage.js';
import { openStorage } from '../../composition/store/storage.js';
import { ErrorCode, PlantStoreError, type PlantRepository } from '../../core/index.js';
import { samplesOf, valueOf } from '../support/exposition.js';

const unavailable = () => new PlantStoreError(ErrorCode.StorageUnavailable, 'storage is unavailable');

describe('the measured storage (a decorator timing every storage call)', () => {
  const measure = async (repository?: PlantRepository) => {
    const registry = new Registry();
    const opened = await openStorage(repository && { repository, outbox: new MemoryPlantRepository().outbox });
    const storage = measuredStorage(opened, new StorageCallMetrics(registry));
    const samples = async () => samplesOf(await registry.metrics());
    return { storage, samples };
  };

  it('times each operation of the repository and the outbox, every one shown from the start', async () => {
    const { storage, samples } = await measure();
    await storage.repository.add({ id: 1, name: 'Fern' });
    await storage.repository.findById(1);
    await storage.repository.page({ limit: 10 });
    await storage.outbox!.state();
    const counted = await samples();
    const calls = Object.fromEntries(counted.filter((s) => s.name === 'plant_store_storage_call_duration_seconds_count').map((s) => [s.labels['operation'], s.value]));
    expect(calls).to.deep.equal(Object.fromEntries(STORAGE_OPERATIONS.map((operation) => [operation, ['add', 'findById', 'page', 'state'].includes(operation) ? 1 : 0])));
    expect(valueOf(counted, 'plant_store_storage_call_duration_seconds_sum', { operation: 'add' })).to.be.greaterThan(0).and.below(1);
  });

  it('passes answers and failures on unchanged, counting a rejection and a synchronous throw as failures', async () => {
    const memory = new MemoryPlantRepository();
    const failing: PlantRepository = Object.assign(Object.create(memory) as PlantRepository, {
      page: () => Promise.reject(unavailable()),
      findById: () => {
        throw unavailable();
      },
    });
    const { storage, samples } = await measure(failing);
    expect(await storage.repository.add({ id: 1, name: 'Fern' })).to.equal(true);
    expect(await storage.repository.add({ id: 1, name: 'Fern' })).to.equal(false);
    const rejected = await storage.repository.page({ limit: 1 }).catch((error: unknown) => error);
    expect(rejected).to.be.instanceOf(PlantStoreError).with.property('code', ErrorCode.StorageUnavailable);
    expect(() => storage.repository.findById(1)).to.throw(PlantStoreError);
    const counted = await samples();
    const failures = (operation: string) => valueOf(counted, 'plant_store_storage_failures_total', { operation });
    expect({ add: failures('add'), page: failures('page'), findById: failures('findById') }).to.deep.equal({ add: 0, page: 1, findById: 1 });
    expect(valueOf(counted, 'plant_store_storage_call_duration_seconds_count', { operation: 'findById' })).to.equal(1);
  });

  it('stands in for the whole object: other methods run on the storage itself, properties read through', async () => {
    // A method the port may gain later, which changes the repository's own state.
    class Repository extends MemoryPlantRepository {
      compactions = 0;
      compact(): void {
        this.compactions++;
      }
    }
    const memory = new Repository();
    const { storage } = await measure(memory);
    const stand = storage.repository as Repository;
    await stand.add({ id: 1, name: 'Fern' });
    stand.compact();
    expect({ size: memory.size, compactions: memory.compactions }, 'the repository itself').to.deep.equal({ size: 1, compactions: 1 });
    expect({ size: stand.size, compactions: stand.compactions, outbox: stand.outbox === memory.outbox }, 'read through the stand-in').to.deep.equal({ size: 1, compactions: 1, outbox: true });
    expect(stand).to.be.instanceOf(MemoryPlantRepository);
  });

  it('docs/metrics.md names every operation timed', () => {
    const docs = readFileSync(join(projectRoot, 'docs', 'metrics.md'), 'utf8');
    for (const operation of STORAGE_OPERATIONS) expect(docs, operation).to.include(`\`${operation}\``);
  });
});
