import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { tempDir } from './temp-dir.js';

/** Disk storage in a fresh temporary directory, removed when the fixture is closed. */
export function diskStorage(prefix = 'plant-store-disk-'): StorageFactory {
  return async () => {
    const directory = tempDir(prefix);
    const repository = DiskPlantRepository.open(directory.path);
    return {
      repository,
      close: async () => {
        await repository.close();
        directory.remove();
      },
    };
  };
}
