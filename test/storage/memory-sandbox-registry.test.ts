import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { sandboxRegistryContract } from './sandbox-registry-contract.js';

// Memory keeps nothing past the process and has no second instance: not durable.
sandboxRegistryContract('memory', async () => ({ registry: new MemoryPlantRepository().sandboxes, close: async () => {} }), { durable: false });
