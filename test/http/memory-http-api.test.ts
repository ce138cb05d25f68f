import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { httpApiSuite } from './http-api-suite.js';

httpApiSuite('memory', async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }));
