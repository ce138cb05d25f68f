import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { storageContract } from './storage-contract.js';

storageContract('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), { sandboxes: true, selfService: true });
