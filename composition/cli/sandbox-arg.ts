import { plantsIn, sandboxNameProblem, type PlantRepository } from '../../core/index.js';
import { ConfigError } from '../config/config-error.js';
import type { OpenStorage } from '../store/storage.js';

/** `--sandbox NAME` of export and import: the sandbox's plants, or the default sandbox's without one. */
export function sandboxPlants(storage: OpenStorage, sandbox: string | undefined): PlantRepository {
  if (sandbox === undefined) return storage.repository;
  const problem = sandboxNameProblem(sandbox);
  if (problem !== undefined) throw new ConfigError(`--sandbox "${sandbox}": ${problem}`);
  if (storage.repository.sandbox === undefined && sandbox !== 'default') throw new ConfigError(`--sandbox: the ${storage.description} storage keeps no sandboxes`);
  return plantsIn(storage.repository, sandbox);
}
