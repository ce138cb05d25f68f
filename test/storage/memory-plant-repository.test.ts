import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { storageContract } from './storage-contract.js';
import { changeLogContract } from './change-log-contract.js';

storageContract('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), { sandboxes: true, selfService: true });
changeLogContract('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), true);
