import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { TokenVerifier } from '../../core/index.js';
import { InProcessEventBus } from '../../adapters/events/in-process-event-bus.js';
import type { ServerConfig } from '../config/parse-config.js';
import { InjectionTokens } from '../store/injection-tokens.js';
import { createLogger } from './logger.js';
import { PlantStore } from '../store/plant-store.js';
import { serveStore, type RunningServer } from './server.js';
import { serverTokens } from './server-tokens.js';
import { openStorage, type OpenStorage } from '../store/storage.js';
import { tokenVerifierFor } from './token-verification.js';
import { webhookDeliveryFor } from '../store/webhook-delivery.js';

/** What the server logs with: pino's shape, the slice used here. */
export interface ServerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Opens the storage a server keeps its plants in. */
export type StorageOpener = () => Promise<OpenStorage>;

export interface BuiltServer {
  readonly store: PlantStore;
  readonly server: RunningServer;
  readonly log: ServerLog;
  /** The token made for this run because none was configured; undefined otherwise. */
  readonly generatedToken: string | undefined;
  /** Closes the server (open requests get `graceMs`), then the storage. */
  close(graceMs: number): Promise<void>;
}

/**
 * The one way a server is built — by the command, the benchmarks and the tests: a
 * configuration, then each adapter taken from the container. Whatever the container
 * already holds under a key (a test's storage, log or token verifier) is used instead of
 * what the configuration names.
 */
export async function buildServer(config: ServerConfig, container: DependencyContainer = rootContainer.createChildContainer()): Promise<BuiltServer> {
  let generatedToken: string | undefined;
  registerDefault(container, InjectionTokens.Log, () => createLogger(config.log.level));
  registerDefault(container, InjectionTokens.Storage, (): StorageOpener => () => openStorage(config.storage));
  const log = container.resolve<ServerLog>(InjectionTokens.Log);
  if (!container.isRegistered(InjectionTokens.TokenVerifier, true)) {
    const { tokens, generated } = serverTokens(config.access);
    if (generated) generatedToken = tokens[0]!.token;
    container.register<TokenVerifier>(InjectionTokens.TokenVerifier, { useValue: await tokenVerifierFor(tokens, config.access.jwt, log) });
  }
  const tokenVerifier = container.resolve<TokenVerifier>(InjectionTokens.TokenVerifier);
  const storage = await container.resolve<StorageOpener>(InjectionTokens.Storage)();
  const events = new InProcessEventBus((error, event) => log.error({ err: error, event: event.type }, 'an event listener failed'));
  let webhooks;
  try {
    webhooks = config.webhooks && webhookDeliveryFor(config.webhooks, storage, log);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const store = new PlantStore(storage, events, webhooks);
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

function registerDefault<T>(container: DependencyContainer, token: symbol, make: () => T): void {
  if (!container.isRegistered(token, true)) container.register<T>(token, { useFactory: instanceCachingFactory(make) });
}
