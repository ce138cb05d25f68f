import { createReadStream } from 'node:fs';
import { isPlantStoreError, parseNewPlant, SelfServiceSandboxes, type Clock, type Log, type Plant, type PlantRepository } from '../../core/index.js';
import { readPlantFile } from '../../adapters/files/plant-file-reader.js';
import { utf8Chunks } from '../../adapters/files/utf8-chunks.js';
import { ConfigError } from '../config/config-error.js';
import type { SandboxOptions } from '../config/sandbox-settings.js';
import { repeat } from './repeat.js';

/** How often idle sandboxes are looked for: an expired one is gone within about this long. */
const EXPIRY_SWEEP_MS = 1000;

/** Self-service sandboxes as wired for a store: the use cases, and the loop expiring idle ones. */
export interface SelfService {
  readonly sandboxes: SelfServiceSandboxes;
  readonly options: SandboxOptions;
  stop(): Promise<void>;
}

/** Checks the storage can keep them, reads the seed file, and starts the expiry loop. ConfigError when they cannot work. */
export async function selfServiceFor(options: SandboxOptions, repository: PlantRepository, clock: Clock, log: Log): Promise<SelfService> {
  const registry = repository.sandboxes;
  if (registry === undefined || repository.sandbox === undefined || repository.purge === undefined) {
    throw new ConfigError('self-service sandboxes need a storage that keeps them and their tokens (memory, disk or mongodb)');
  }
  const seed = options.seedFile === undefined ? [] : await readSeed(options.seedFile);
  const sandboxes = new SelfServiceSandboxes(repository, registry, clock, { maxPlants: options.maxPlants, ttlMs: options.ttlMs, seed });
  const stop = repeat(EXPIRY_SWEEP_MS, 'idle sandboxes could not be expired; trying again', log, async () => {
    const expired = await sandboxes.expireIdle();
    if (expired > 0) log.info({ expired }, 'idle sandboxes expired');
  });
  return { sandboxes, options, stop };
}

/** The seed plants, each checked by the core's rules; the first bad entry stops start-up, naming its line. */
async function readSeed(path: string): Promise<Plant[]> {
  const plants: Plant[] = [];
  try {
    for await (const entry of readPlantFile(utf8Chunks(createReadStream(path) as AsyncIterable<Buffer>))) {
      if ('problem' in entry) throw new ConfigError(`sandbox seed ${path}:${entry.line}: ${entry.problem}`);
      try {
        plants.push(parseNewPlant(entry.value));
      } catch (error) {
        if (isPlantStoreError(error)) throw new ConfigError(`sandbox seed ${path}:${entry.line}: ${error.message}`);
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`sandbox seed ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return plants;
}
