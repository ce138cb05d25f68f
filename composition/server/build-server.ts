import 'reflect-metadata';
import cluster from 'node:cluster';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DEFAULT_SANDBOX, type Clock, type Log, type TokenVerifier } from '../../core/index.js';
import { FirstVerdictVerifier } from '../../adapters/auth/first-verdict-verifier.js';
import { selfServiceOverHttp } from './self-service-http.js';
import { ConfigError } from '../config/config-error.js';
import { labelOf } from '../config/setting.js';
import { settings } from '../config/settings.js';
import type { ServerConfig } from '../config/parse-config.js';
import { assembleStore, registerDefault } from '../store/assemble-store.js';
import { InjectionTokens } from '../store/injection-tokens.js';
import type { PlantStore } from '../store/plant-store.js';
import { createLogger } from './logger.js';
import { serveStore, type RunningServer } from './server.js';
import { serverTokens } from './server-tokens.js';
import { tokenVerifierFor } from './token-verification.js';

export interface BuiltServer {
  readonly store: PlantStore;
  readonly server: RunningServer;
  readonly log: Log;
  /** The token made for this run because none was configured; undefined otherwise. */
  readonly generatedToken: string | undefined;
  /** Closes the server (open requests get `graceMs`), then the storage. */
  close(graceMs: number): Promise<void>;
}

/** Whether this process is a worker of the command's group (--workers > 1, run by Node's cluster: cli.ts). */
export function isGroupWorker(config: ServerConfig): boolean {
  return cluster.isWorker && config.server.workers > 1;
}

/**
 * The one way a server is built — by the command, the benchmarks and the tests: a
 * configuration, then the store assembled as an embedded one is (assembleStore), then HTTP.
 * Whatever the container already holds under a key (a test's storage, log, clock, transport
 * or token verifier) is used instead of what the configuration names.
 */
export async function buildServer(config: ServerConfig, container: DependencyContainer = rootContainer.createChildContainer()): Promise<BuiltServer> {
  // A server logs JSON lines (or readable ones at a terminal), where an embedded store logs
  // errors to standard error: registered before the store's defaults are.
  // The primary holds the data directory, /metrics answers for the group, lines name the worker.
  const groupWorker = isGroupWorker(config);
  registerDefault<Log>(container, InjectionTokens.Log, () => createLogger(config.log.level, undefined, groupWorker ? cluster.worker!.id : undefined));
  const log = container.resolve<Log>(InjectionTokens.Log);
  let generatedToken: string | undefined;
  let namesSandboxes = config.access.jwt?.sandboxClaim !== undefined;
  if (!container.isRegistered(InjectionTokens.TokenVerifier, true)) {
    const { tokens, generated } = serverTokens(config.access);
    if (generated) generatedToken = tokens[0]!.token;
    namesSandboxes ||= tokens.some((token) => token.sandbox !== undefined && token.sandbox !== DEFAULT_SANDBOX);
    container.register<TokenVerifier>(InjectionTokens.TokenVerifier, { useValue: await tokenVerifierFor(tokens, config.access.jwt, log) });
  }
  const configured = container.resolve<TokenVerifier>(InjectionTokens.TokenVerifier);
  const storage = groupWorker && config.storage !== undefined && 'dataDir' in config.storage ? { ...config.storage, groupWorker } : config.storage;
  const store = await assembleStore(container, { storage, webhooks: config.webhooks, sandboxes: config.sandboxes, metrics: config.http.metrics, feed: config.feed });
  // Self-service tokens are asked of the storage last: the configured ones answer first (and cheaper).
  const selfService = store.selfService && selfServiceOverHttp(store.selfService, container.resolve<Clock>(InjectionTokens.Clock), log);
  const tokenVerifier = selfService === undefined ? configured : new FirstVerdictVerifier([configured, selfService.verifier]);
  if (namesSandboxes && !store.keepsSandboxes) {
    await store.close();
    throw new ConfigError(`tokens name sandboxes (sandbox= or ${labelOf(settings.jwtSandboxClaim)}), but the ${store.storageDescription} storage keeps none`);
  }
  let server: RunningServer;
  try {
    server = await serveStore(store, tokenVerifier, { ...config.http, log, acceptsJwt: config.access.jwt !== undefined, selfService: selfService?.http, groupWorker });
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    server,
    log,
    generatedToken,
    close: async (graceMs) => {
      await server.close(graceMs);
      await store.close();
    },
  };
}
