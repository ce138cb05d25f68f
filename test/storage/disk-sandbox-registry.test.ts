import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { tempDir } from '../support/temp-dir.js';
import { sandboxRegistryContract } from './sandbox-registry-contract.js';

// Durable: `again()` closes the directory and opens it anew.
sandboxRegistryContract(
  'disk',
  async () => {
    const directory = tempDir('plant-store-registry-');
    let repository = DiskPlantRepository.open(directory.path);
    return {
      registry: repository.sandboxes,
      again: async () => {
        await repository.close();
        repository = DiskPlantRepository.open(directory.path);
        return repository.sandboxes;
      },
      close: async () => {
        await repository.close();
        directory.remove();
      },
    };
  },
  { durable: true },
);
