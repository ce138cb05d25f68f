import { resolve } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { startKoaFloor, startPlantStore, type Contender } from './contenders.js';
import { SEEDED_PLANTS } from './sections.js';

/**
 * Starts one build named on a comparison's command line (ab.ts, instructions.ts): a `dist`
 * directory of this server, with server variables after `@` (space-separated KEY=VALUE
 * pairs, e.g. `dist@PLANT_STORE_LOG_LEVEL=silent`) and node options after `#`
 * (space-separated, e.g. `dist#--max-semi-space-size=16`); or `koa-floor`, the Koa floor
 * of this build. Two variables are the benchmark's, not the server's: `BENCH_SANDBOXES=N`
 * gives the server N sandboxes of the same plants (its default sandbox empty) and N static
 * tokens, one naming each, which the load generator sends one per connection
 * (`dist@BENCH_SANDBOXES=50`: one sandbox per connection, as in the sandboxes section);
 * `BENCH_TOKENS=N` gives it N static tokens, all in the default sandbox, sent the same way.
 * A build on disk (`dist@PLANT_STORE_STORAGE=disk`) without a PLANT_STORE_DATA_DIR of its
 * own gets a fresh temporary one, removed when it stops: two builds of one comparison would
 * otherwise share ./plant-store-data (the second refused by its lock, or a later build
 * finding an earlier one's plants).
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
  const sandboxes = benchCount(env, 'BENCH_SANDBOXES', build);
  const tokens = benchCount(env, 'BENCH_TOKENS', build);
  if (sandboxes !== undefined && tokens !== undefined) throw new Error(`${build}: BENCH_SANDBOXES and BENCH_TOKENS do not go together`);
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  const dataDir = env['PLANT_STORE_STORAGE'] === 'disk' && env['PLANT_STORE_DATA_DIR'] === undefined ? tempDir('plant-store-build-') : undefined;
  if (dataDir !== undefined) env['PLANT_STORE_DATA_DIR'] = dataDir.path;
  const started = startPlantStore({
    name: `${index}: ${build}`,
    plants: sandboxes === undefined ? SEEDED_PLANTS : 0,
    token,
    env,
    distDir: resolve(dist!),
    nodeOptions,
    launcher,
    ...(sandboxes !== undefined && { sandboxes: { seed: { from: 1, to: sandboxes, plants: SEEDED_PLANTS }, tokens: numbers(sandboxes) } }),
    ...(tokens !== undefined && { sandboxes: { tokens: numbers(tokens), inDefault: true } }),
  });
  if (dataDir === undefined) return started;
  return started.then(
    (contender) => ({
      ...contender,
      stop: async () => {
        await contender.stop();
        dataDir.remove();
      },
    }),
    (error: unknown) => {
      dataDir.remove();
      throw error;
    },
  );
}

/** Takes the benchmark's own variable `name` out of a build's variables: a count, or undefined. */
function benchCount(env: Record<string, string>, name: string, build: string): number | undefined {
  const text = env[name];
  if (text === undefined) return undefined;
  delete env[name];
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${build}: ${name} must be a whole number from 1`);
  return count;
}
