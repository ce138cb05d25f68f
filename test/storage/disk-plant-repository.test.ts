import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { tempDir } from '../support/temp-dir.js';
import { storageContract } from './storage-contract.js';

storageContract('disk', async () => {
  const directory = tempDir('plant-store-disk-');
  const repository = DiskPlantRepository.open(directory.path);
  return {
    repository,
    close: async () => {
      await repository.close();
      directory.remove();
    },
  };
}, { sandboxes: true, selfService: true });
