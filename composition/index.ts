// The library's public face: embed a store, or serve one over HTTP.
export * from '../core/index.js';
export type { PlantEventListener } from '../adapters/events/in-process-event-bus.js';
export { MemoryPlantRepository } from '../adapters/storage/memory/memory-plant-repository.js';
export { createPlantStore, PlantStore, type PlantStoreOptions } from './plant-store.js';
export type { CustomStorageOption, DiskStorageOption, MongoStorageOption, StorageOption } from './storage.js';
export { startServer, type RunningServer, type ServerOptions } from './server.js';
