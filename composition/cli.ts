#!/usr/bin/env -S node
// No node flags: V8's own young generation (16 MB semispaces). `npm start` passes the same
// flags as this line (none), and the benchmarks read them from it; see docs/benchmarks.md,
// "Memory and the young generation" for why the 4 MB one chosen earlier went.
import { ConfigError } from './config/config-error.js';
import { commandOf, helpText } from './config/help-text.js';
import { parseConfig } from './config/parse-config.js';
import { labelOf } from './config/setting.js';
import { settings } from './config/settings.js';
import { buildServer, type BuiltServer } from './server/build-server.js';
import { packageVersion } from './package-version.js';
import { writeGeneratedToken, type TokenFile } from './server/generated-token.js';
import { runSubcommand, SUBCOMMANDS_HELP } from './cli/subcommands.js';

async function main(argv: string[]): Promise<void> {
  const command = commandOf(argv);
  if (command === 'help') return void console.log(`${helpText()}\n\n${SUBCOMMANDS_HELP}`);
  if (command === 'version') return void console.log(packageVersion);
  const status = await runSubcommand(argv);
  if (status !== undefined) {
    // Not process.exit: standard output may still hold exported lines to flush.
    process.exitCode = status;
    return;
  }
  const parsed = parseConfig(argv, process.env);
  if (!parsed.ok) {
    for (const problem of parsed.problems) console.error(`plant-store: ${problem}`);
    process.exit(2);
  }
  const { config } = parsed;
  const built = await buildServer(config);
  const { log, server, store } = built;
  log.info({ storage: store.storageDescription }, `plant-store listening on ${server.url}${config.http.basePath} (storage: ${store.storageDescription})`);
  // Not awaited before the signal handlers are in place: a SIGTERM may come at any moment.
  const tokenFile = built.generatedToken === undefined ? Promise.resolve(undefined) : announceGeneratedToken(built, built.generatedToken);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceMs: config.http.shutdownGraceMs }, 'shutting down: no new connections, finishing open requests');
    try {
      await built.close(config.http.shutdownGraceMs);
      await (await tokenFile)?.remove();
      log.info({}, 'stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * A person at a terminal is shown the token once. Anywhere else standard output is for
 * JSON log lines that a collector keeps, so the token goes to a file only its owner can
 * read, and only that file's path is logged.
 */
async function announceGeneratedToken({ log }: BuiltServer, token: string): Promise<TokenFile | undefined> {
  const hint = 'No token configured (PLANT_STORE_TOKENS or PLANT_STORE_TOKENS_FILE); generated one for this run';
  if (process.stdout.isTTY) {
    process.stdout.write(`${hint}:\n  ${token}\n`);
    return undefined;
  }
  const file = await writeGeneratedToken(token);
  log.warn({ tokenFile: file.path }, `${hint}, readable only by this user, in ${file.path}`);
  return file;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`plant-store: ${error.message}`);
    process.exit(2);
  }
  const message = error instanceof Error ? error.message : String(error);
  const hint = (error as { code?: string }).code === 'EADDRINUSE' ? `; choose another with ${labelOf(settings.port)}` : '';
  console.error(`plant-store: failed to start: ${message}${hint}`);
  process.exit(1);
});
