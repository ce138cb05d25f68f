import { plantsIn, sandboxExpiresAt, SelfServiceSandboxes, SELF_SERVICE_DEFAULTS, type PlantRepository } from '../../core/index.js';
import { plantPages } from './plant-pages.js';
import { systemClock } from '../../adapters/clock/system-clock.js';
import { ConfigError } from '../config/config-error.js';
import { configFrom } from '../config/parse-config.js';
import { openStorage } from '../store/storage.js';
import { splitCommandArgs } from './command-args.js';

export const SANDBOXES_USAGE = 'plant-store sandboxes list | delete NAME [settings]   the self-service sandboxes: name, plants, last use, expiry (by the server\'s sandbox settings); or end one now';

/**
 * `plant-store sandboxes`: lists the self-service sandboxes of the configured storage, or
 * ends one (its token stops working, its plants and pending deliveries go). On disk, the
 * data directory is held by a running server: stop it first, or use DELETE /sandbox.
 */
export async function sandboxesCommand(argv: readonly string[]): Promise<number> {
  const args = splitCommandArgs(argv, []);
  const [action, name, ...rest] = args.positionals;
  if (rest.length > 0 || !((action === 'list' && name === undefined) || (action === 'delete' && name !== undefined))) throw new ConfigError(`usage: ${SANDBOXES_USAGE}`);
  const config = configFrom(args.settings, process.env);
  if (config.storage === undefined) throw new ConfigError('sandboxes needs disk or mongodb storage: memory storage lives only inside a running server');
  const opened = await openStorage(config.storage);
  try {
    const registry = opened.repository.sandboxes;
    if (registry === undefined) throw new ConfigError(`the ${opened.description} storage keeps no self-service sandboxes`);
    const ttlMs = config.sandboxes?.ttlMs ?? SELF_SERVICE_DEFAULTS.ttlMs;
    if (action === 'delete') {
      const sandboxes = new SelfServiceSandboxes(opened.repository, registry, systemClock, { maxPlants: SELF_SERVICE_DEFAULTS.maxPlants, ttlMs, seed: [] });
      if (!(await sandboxes.end(name!))) {
        process.stderr.write(`plant-store sandboxes: no self-service sandbox named "${name}"\n`);
        return 1;
      }
      process.stdout.write(`plant-store sandboxes: ${name} ended: its token no longer works, its plants are removed\n`);
      return 0;
    }
    const grants = await registry.list();
    const rows = [['sandbox', 'plants', 'last use', 'expires']];
    for (const grant of grants) {
      rows.push([grant.name, String(await countPlants(opened.repository, grant.name)), new Date(grant.lastUsedAt).toISOString(), new Date(sandboxExpiresAt(grant, ttlMs)).toISOString()]);
    }
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)) + 2);
    process.stdout.write(rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('').trimEnd()).join('\n') + '\n');
    process.stdout.write(`${grants.length} ${grants.length === 1 ? 'sandbox' : 'sandboxes'}\n`);
    return 0;
  } finally {
    await opened.close();
  }
}

/** A sandbox's plants, counted page by page (a self-service sandbox holds at most its quota). */
async function countPlants(repository: PlantRepository, name: string): Promise<number> {
  let count = 0;
  for await (const page of plantPages(plantsIn(repository, name))) count += page.length;
  return count;
}
