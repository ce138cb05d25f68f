#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { ConfigError, readConfig } from './config.js';
import { createPlantStore } from './plant-store.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  const config = readConfig();
  const generated = config.tokens === undefined;
  const tokens = config.tokens ?? [randomBytes(32).toString('base64url')];
  const store = await createPlantStore();
  const server = await startServer({ store, tokens, host: config.host, port: config.port, basePath: config.basePath });
  console.log(`plant-store listening on ${server.url}${config.basePath} (storage: ${store.storageDescription})`);
  if (generated) {
    console.log('No token configured (PLANT_STORE_TOKENS or PLANT_STORE_TOKENS_FILE); generated one for this run:');
    console.log(`  ${tokens[0]}`);
  }
  const stop = async () => {
    await server.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`plant-store: ${error.message}`);
    process.exit(2);
  }
  console.error('plant-store: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
