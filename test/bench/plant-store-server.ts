/**
 * "This server" for the benchmarks: started through the library exactly as the
 * `plant-store` command starts it (composition/cli.ts) — configuration read from the same
 * variables, the pino logger at the configured level writing JSON lines to standard
 * output, createPlantStore, startServer — then preloaded with the seed plants through the
 * store's own create. The runner sets PLANT_STORE_RATE_LIMIT=off and leaves everything
 * else as shipped. Reports its port, and its memory after a forced GC, over IPC.
 *
 * Variables beyond the server's own: BENCH_PLANTS (how many seed plants, default 1000),
 * BENCH_MONGODB_COLLECTION (collection to use when MONGODB_URI is set; the runner passes a
 * fresh one so the benchmark never touches data it did not write).
 */
import { readConfig } from '../../composition/config.js';
import { serverSettingsFrom, storageFrom } from '../../composition/configured-options.js';
import { createLogger } from '../../composition/logger.js';
import { createPlantStore } from '../../composition/plant-store.js';
import { startServer } from '../../composition/server.js';
import { answerParent, tellParent } from './child-protocol.js';
import { seedPlants } from './seed-plants.js';

async function main(): Promise<void> {
  const config = readConfig(process.argv.slice(2));
  const log = createLogger(config.logLevel);
  if (config.tokens === undefined) throw new Error('the benchmark passes its token in PLANT_STORE_TOKENS');
  const storage = storageFrom(config, process.env['BENCH_MONGODB_COLLECTION'] || undefined);
  const store = await createPlantStore({
    ...(storage && { storage }),
    onListenerError: (error, event) => log.error({ err: error, event: event.type }, 'an event listener failed'),
  });

  const count = Number(process.env['BENCH_PLANTS'] ?? '1000');
  const started = performance.now();
  for (const plant of seedPlants(count)) await store.create(plant);
  const preloadSeconds = (performance.now() - started) / 1000;

  const server = await startServer({ store, tokens: config.tokens, log, ...serverSettingsFrom(config) });
  log.info({ storage: store.storageDescription }, `plant-store listening on ${server.url}${config.basePath} (storage: ${store.storageDescription})`);
  answerParent(async () => {
    await server.close(1000);
    await store.close();
  });
  tellParent({ type: 'ready', port: server.port, plants: count, preloadSeconds, storage: store.storageDescription });
}

main().catch((error: unknown) => {
  tellParent({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
