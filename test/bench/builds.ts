import { resolve } from 'node:path';
import { startKoaFloor, startPlantStore, type Contender } from './contenders.js';
import { SEEDED_PLANTS } from './sections.js';

/**
 * Starts one build named on a comparison's command line (ab.ts, instructions.ts): a `dist`
 * directory of this server, with server variables after `@` (space-separated KEY=VALUE
 * pairs, e.g. `dist@PLANT_STORE_LOG_LEVEL=silent`) and node options after `#`
 * (space-separated, e.g. `dist#--max-semi-space-size=16`); or `koa-floor`, the Koa floor
 * of this build.
 */
export function startBuild(build: string, index: number, token: string, launcher?: readonly string[]): Promise<Contender> {
  if (build === 'koa-floor') return startKoaFloor({ name: `${index}: Koa floor`, plants: SEEDED_PLANTS, token, launcher });
  const [withVariables, nodeFlags = ''] = build.split('#');
  const [dist, variables = ''] = withVariables!.split('@');
  const env = Object.fromEntries(
    variables
      .split(' ')
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  const nodeOptions = nodeFlags.split(' ').filter((flag) => flag !== '');
  return startPlantStore({ name: `${index}: ${build}`, plants: SEEDED_PLANTS, token, env, distDir: resolve(dist!), nodeOptions, launcher });
}
