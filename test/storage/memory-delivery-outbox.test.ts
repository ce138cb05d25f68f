import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { outboxContract } from './outbox-contract.js';

outboxContract(
  'memory',
  async () => {
    const repository = new MemoryPlantRepository();
    return { first: { repository, outbox: repository.outbox }, close: async () => {} };
  },
  { severalProcesses: false, durable: false, sandboxes: true },
);
