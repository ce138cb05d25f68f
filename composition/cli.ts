#!/usr/bin/env -S node
// No node flags: V8's own young generation (16 MB semispaces). `npm start` passes the same
// flags as this line (none), and the benchmarks read them from it; see docs/benchmarks.md,
// "Memory and the young generation" for why the 4 MB one chosen earlier went.
import { ConfigError } from './config/config-error.js';
import { commandOf, helpText } from './config/help-text.js';
import { parseConfig } from './config/parse-config.js';
import { labelOf } from './config/setting.js';
import { settings } from './config/settings.js';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import type { Log } from '../core/index.js';
import type { ServerConfig } from './config/parse-config.js';
import { buildServer, isGroupWorker, type BuiltServer } from './server/build-server.js';
import { createLogger } from './server/logger.js';
import { startServerGroup } from './server/server-group.js';
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
  if (isGroupWorker(config)) return serveAsWorker(config);
  if (config.server.workers > 1) return serveAsGroup(config);
  const built = await buildServer(config);
  const { log, server, store } = built;
  log.info({ storage: store.storageDescription }, `plant-store listening on ${server.url}${config.http.basePath} (storage: ${store.storageDescription})`);
  // Not awaited before the signal handlers are in place: a SIGTERM may come at any moment.
  const tokenFile = built.generatedToken === undefined ? Promise.resolve(undefined) : announceGeneratedToken(log, built.generatedToken);
  const close = closingOnce(built);
  stopOnSignals(log, config.http.shutdownGraceMs, async () => {
    await close(config.http.shutdownGraceMs);
    await (await tokenFile)?.remove();
    return true;
  });
  stopOnCrash(log, close);
}

/** The primary of several processes (--workers): it serves nothing itself, see startServerGroup. */
async function serveAsGroup(config: ServerConfig): Promise<void> {
  const log = createLogger(config.log.level);
  const group = await startServerGroup(config, log);
  // Memory storage refuses workers (parseConfig); for MongoDB the line names the kind only.
  const storage = config.storage !== undefined && 'dataDir' in config.storage ? `disk ${resolve(config.storage.dataDir)}` : 'mongodb';
  log.info({ storage, workers: config.server.workers }, `plant-store listening on ${group.url}${config.http.basePath} (storage: ${storage}, ${config.server.workers} workers)`);
  const tokenFile = group.generatedToken === undefined ? Promise.resolve(undefined) : announceGeneratedToken(log, group.generatedToken);
  stopOnSignals(log, config.http.shutdownGraceMs, async () => {
    const clean = await group.stop(config.http.shutdownGraceMs);
    await (await tokenFile)?.remove();
    return clean;
  });
}

/** A worker of a group: serves the port its primary shares, on the directory its primary holds; the primary logs for the group. */
async function serveAsWorker(config: ServerConfig): Promise<void> {
  const built = await buildServer(config);
  const close = closingOnce(built);
  stopOnSignals(built.log, config.http.shutdownGraceMs, async () => {
    await close(config.http.shutdownGraceMs);
    return true;
  });
  stopWhenThePrimaryIsGone(built.log, close);
  stopOnCrash(built.log, close);
}

type Close = (graceMs: number) => Promise<void>;

/** The server's close, run once whichever asks first: a signal, a crash, or the primary's end. */
function closingOnce(built: BuiltServer): Close {
  let closing: Promise<void> | undefined;
  return (graceMs) => (closing ??= built.close(graceMs));
}

/** How long a process stopping for a failure gives its writes in flight before it stops regardless. */
const FAILURE_STOP_MS = 500;

/**
 * Stops this process for a failure: logs why, closes its storage and exits 1, or is gone
 * within FAILURE_STOP_MS all the same. Not Node's own way, process.exit at once: exit waits
 * for LMDB's writer thread, which may be waiting for this thread to run a transaction's
 * callbacks, and then never returns (under heavy creates: 3 tries of 8 for a killed
 * primary's worker, 1 of 8 for an uncaught exception). The process would live on, holding the data
 * directory and the database's write lock, and the next server's writes would wait for it
 * forever. What it acknowledged is on disk already.
 */
function stopForAFailure(log: Log, close: Close, fields: Record<string, unknown>, why: string): void {
  log.error(fields, why);
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), FAILURE_STOP_MS);
  // Once the storage is closed, exiting cannot hang, and the last log lines are written.
  close(0).then(
    () => process.exit(1),
    () => process.kill(process.pid, 'SIGKILL'),
  );
}

/** The primary gone (killed), its worker stops (stopForAFailure). */
function stopWhenThePrimaryIsGone(log: Log, close: Close): void {
  const worker = cluster.worker;
  if (worker === undefined) return;
  worker.once('disconnect', () => {
    worker.exitedAfterDisconnect = true; // Node's cluster exits at once unless this is set
    stopForAFailure(log, close, {}, 'the primary is gone; stopping');
  });
}

/**
 * An uncaught exception (an unhandled rejection is one too, by Node's default) stops the
 * server as Node would, with exit status 1 and the error on standard error, but through
 * stopForAFailure. A second one while it stops changes nothing.
 */
function stopOnCrash(log: Log, close: Close): void {
  let crashed = false;
  process.on('uncaughtException', (error, origin) => {
    console.error(error);
    if (crashed) return;
    crashed = true;
    stopForAFailure(log, close, { err: error, origin }, 'uncaught exception; stopping');
  });
}

/** On SIGTERM or SIGINT: logs, runs `close` once, exits 0 when it answers true (1 otherwise, or when it fails). */
function stopOnSignals(log: Log, graceMs: number, close: () => Promise<boolean>): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceMs }, 'shutting down: no new connections, finishing open requests');
    try {
      const clean = await close();
      log.info({}, 'stopped');
      process.exit(clean ? 0 : 1);
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
async function announceGeneratedToken(log: Log, token: string): Promise<TokenFile | undefined> {
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
