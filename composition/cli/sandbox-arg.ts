import { plantsIn, type PlantRepository } from '../../core/index.js';
import { ConfigError } from '../config/config-error.js';
import { sandboxProblemIn, type OpenStorage } from '../store/storage.js';

/** `--sandbox NAME` of export and import: the sandbox's plants, or the default sandbox's without one. */
export function sandboxPlants(storage: OpenStorage, sandbox: string | undefined): PlantRepository {
  if (sandbox === undefined) return storage.repository;
  const problem = sandboxProblemIn(storage, sandbox);
  if (problem !== undefined) throw new ConfigError(`--sandbox ${problem}`);
  return plantsIn(storage.repository, sandbox);
}
