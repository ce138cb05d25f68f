#!/usr/bin/env -S node --max-semi-space-size=4
// A 4 MB young generation (V8's default grows to 16 MB) keeps a large in-memory store
// compact: 50–60 MB less resident memory at a million plants, for a few % of CPU.
// `npm start` passes the same flag; the benchmarks read it from this line.
import { randomBytes } from 'node:crypto';
import { ConfigError, helpText, readConfig, wantsHelp } from './config.js';
import { serverSettingsFrom, storageFrom } from './configured-options.js';
import { createLogger } from './logger.js';
import { createPlantStore } from './plant-store.js';
import { startServer } from './server.js';
import { runSubcommand, SUBCOMMANDS_HELP } from './subcommands.js';

async function main(argv: string[]): Promise<void> {
  if (wantsHelp(argv)) {
    console.log(`${helpText()}\n\n${SUBCOMMANDS_HELP}`);
    return;
  }
  const status = await runSubcommand(argv);
  if (status !== undefined) {
    // Not process.exit: standard output may still hold exported lines to flush.
    process.exitCode = status;
    return;
  }
  const config = readConfig(argv);
  const log = createLogger(config.logLevel);
  const generated = config.tokens === undefined;
  const tokens = config.tokens ?? [randomBytes(32).toString('base64url')];
  const storage = storageFrom(config);
  const store = await createPlantStore({
    ...(storage && { storage }),
    onListenerError: (error, event) => log.error({ err: error, event: event.type }, 'an event listener failed'),
  });
  const server = await startServer({ store, tokens, log, ...serverSettingsFrom(config) });
  log.info({ storage: store.storageDescription }, `plant-store listening on ${server.url}${config.basePath} (storage: ${store.storageDescription})`);
  if (generated) {
    // Printed, never logged: it is a credential, shown once so the first run needs no set-up.
    process.stdout.write(`No token configured (PLANT_STORE_TOKENS or PLANT_STORE_TOKENS_FILE); generated one for this run:\n  ${tokens[0]}\n`);
  }

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: no new connections, finishing open requests');
    try {
      await server.close(config.shutdownGraceMs);
      await store.close();
      log.info('stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`plant-store: ${error.message}`);
    process.exit(2);
  }
  console.error('plant-store: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
