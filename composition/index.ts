// The library's public face: embed a store, or serve one over HTTP. Importing it loads the
// core, the composition and the chosen storage only; the HTTP side (Koa, the OpenAPI
// document, the logger) is loaded when a server is first started.
import type { DependencyContainer } from 'tsyringe';
import type { BuiltServer } from './server/build-server.js';
import type { ServerConfig } from './config/parse-config.js';
import type { RunningServer, ServerOptions } from './server/server.js';

export * from '../core/index.js';
export type { ListenerErrorReporter, PlantEventListener } from '../adapters/events/in-process-event-bus.js';
export type { HttpLog } from '../adapters/http/app/http-log.js';
export { MemoryPlantRepository } from '../adapters/storage/memory/memory-plant-repository.js';
export { PlantStore } from './store/plant-store.js';
export type { PlantSandbox } from './store/plant-sandbox.js';
export type { ChangesOptions, StoreChange } from './store/store-changes.js';
export { createPlantStore, type PlantStoreOptions } from './store/create-plant-store.js';
export type { CustomStorageOption, DiskStorageOption, MongoStorageOption, StorageOpener, StorageOption } from './store/storage.js';
export type { RunningServer, ServerOptions } from './server/server.js';
export type { HttpSettings, RateLimitConfig } from '../adapters/http/app/http-settings.js';
export type { BuiltServer } from './server/build-server.js';
export { ConfigError } from './config/config-error.js';
export { configFrom, parseConfig, type ConfigResult, type ServerConfig } from './config/parse-config.js';
export type { LogLevel } from './config/settings.js';
export type { AccessOptions } from './config/access-settings.js';
export { InjectionTokens } from './store/injection-tokens.js';
export type { WebhookOptions } from './store/webhook-options.js';
export type { WebhookDeliveryState } from './store/webhook-delivery.js';
export type { TransportFactory } from './store/webhook-delivery.js';
/** @deprecated The one Log port (exported with the core); kept so 1.0 code still compiles. */
export type ServerLog = import('../core/index.js').Log;
/** @deprecated The one Log port (exported with the core); kept so 1.0 code still compiles. */
export type DeliveryLog = import('../core/index.js').Log;
export type { StaticToken } from '../adapters/auth/static-token-rules.js';
export type { JwtAlgorithm, JwtSettings } from '../adapters/auth/jwt-settings.js';

/** Serves `options.store` over HTTP; the store stays the caller's to close. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const http = await import('./server/server.js');
  return http.startServer(options);
}

/** Builds and starts a whole server from a configuration (see composition/build-server.ts). */
export async function buildServer(config: ServerConfig, container?: DependencyContainer): Promise<BuiltServer> {
  const builder = await import('./server/build-server.js');
  return builder.buildServer(config, container);
}
