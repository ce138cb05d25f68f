import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Log, TokenVerifier } from '../../core/index.js';
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

/**
 * The one way a server is built — by the command, the benchmarks and the tests: a
 * configuration, then the store assembled as an embedded one is (assembleStore), then HTTP.
 * Whatever the container already holds under a key (a test's storage, log, clock, transport
 * or token verifier) is used instead of what the configuration names.
 */
export async function buildServer(config: ServerConfig, container: DependencyContainer = rootContainer.createChildContainer()): Promise<BuiltServer> {
  // A server logs JSON lines (or readable ones at a terminal), where an embedded store logs
  // errors to standard error: registered before the store's defaults are.
  registerDefault<Log>(container, InjectionTokens.Log, () => createLogger(config.log.level));
  const log = container.resolve<Log>(InjectionTokens.Log);
  let generatedToken: string | undefined;
  if (!container.isRegistered(InjectionTokens.TokenVerifier, true)) {
    const { tokens, generated } = serverTokens(config.access);
    if (generated) generatedToken = tokens[0]!.token;
    container.register<TokenVerifier>(InjectionTokens.TokenVerifier, { useValue: await tokenVerifierFor(tokens, config.access.jwt, log) });
  }
  const tokenVerifier = container.resolve<TokenVerifier>(InjectionTokens.TokenVerifier);
  const store = await assembleStore(container, { storage: config.storage, webhooks: config.webhooks, metrics: config.http.metrics });
  let server: RunningServer;
  try {
    server = await serveStore(store, tokenVerifier, { ...config.http, log, acceptsJwt: config.access.jwt !== undefined });
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
