import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { storageContract } from './storage-contract.js';

storageContract('disk', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'plant-store-disk-'));
  const repository = DiskPlantRepository.open(directory);
  return {
    repository,
    close: async () => {
      await repository.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});
