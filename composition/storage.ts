import type { PlantRepository } from '../core/index.js';
import type { ServerConfig } from './config.js';
import { MemoryPlantRepository } from '../adapters/storage/memory/memory-plant-repository.js';

/** Where a store keeps its plants. Omitted: in this process's memory. */
export type StorageOption = { readonly repository: PlantRepository; close?(): Promise<void>; readonly description?: string };

export interface OpenStorage {
  readonly repository: PlantRepository;
  /** For the start-up line, e.g. "memory". Never contains credentials. */
  readonly description: string;
  close(): Promise<void>;
}

export async function openStorage(option?: StorageOption): Promise<OpenStorage> {
  if (option === undefined) {
    return { repository: new MemoryPlantRepository(), description: 'memory', close: async () => {} };
  }
  return {
    repository: option.repository,
    description: option.description ?? 'custom repository',
    close: async () => option.close?.(),
  };
}

/** The storage the server's configuration asks for. */
export async function storageFor(config: Pick<ServerConfig, 'mongodbUri' | 'mongodbDb' | 'storageTimeoutMs'>): Promise<StorageOption | undefined> {
  if (config.mongodbUri === undefined) return undefined;
  throw new Error('MongoDB storage is not wired yet');
}
