import { ErrorCode } from './error-codes.js';
import { PlantStoreError } from './plant-store-error.js';
import type { PlantRepository } from './ports/plant-repository.js';

/**
 * Every plant belongs to one sandbox; a request sees only its own. Without any sandbox
 * setting everything is in this one, and data written before sandboxes existed opens as it.
 */
export const DEFAULT_SANDBOX = 'default';

/** A sandbox name: 1 to 64 of a-z, 0-9 and -. */
export const SANDBOX_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;

/**
 * Why `name` cannot name a sandbox, or undefined. Strings only: a JavaScript caller's
 * undefined, null, number or array would pass the pattern once made a string (`undefined`
 * does), and an undefined sandbox is the default one.
 */
export function sandboxNameProblem(name: string): string | undefined {
  return typeof name === 'string' && SANDBOX_NAME_PATTERN.test(name) ? undefined : 'a sandbox name is 1 to 64 of a-z, 0-9 and -';
}

/**
 * The name, for a storage making a sandbox's keys from it: a RangeError (a caller's bug, the
 * configuration checks names first) for one outside the rule, which could reach outside its
 * own keys (with a '/', say).
 */
export function checkedSandboxName(name: string): string {
  const problem = sandboxNameProblem(name);
  if (problem !== undefined) throw new RangeError(`${problem}, got ${JSON.stringify(name)}`);
  return name;
}

/**
 * The plants of one sandbox. The repository itself holds the default sandbox's, so a storage
 * written before sandboxes existed reads unchanged; a named one is asked of its `sandbox()`.
 */
export function plantsIn(repository: PlantRepository, sandbox: string | undefined): PlantRepository {
  if (sandbox === undefined || sandbox === DEFAULT_SANDBOX) return repository;
  // The configuration refuses sandboxes on a storage without them; reaching here is a bug.
  if (repository.sandbox === undefined) throw new Error(`this storage keeps no sandboxes (asked for "${sandbox}")`);
  return repository.sandbox(sandbox);
}

/** The answer to a write into a self-service sandbox that ended while it was under way (40102: its token no longer works). */
export function sandboxEnded(): PlantStoreError {
  return new PlantStoreError(ErrorCode.InvalidToken, 'the sandbox has ended: its token no longer works');
}

/** The refusal of an add beyond a sandbox's quota (40303). */
export function sandboxFull(maxPlants: number): PlantStoreError {
  return new PlantStoreError(ErrorCode.SandboxFull, `the sandbox holds its maximum of ${maxPlants} plants`);
}
