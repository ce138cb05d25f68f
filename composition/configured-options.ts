import type { ServerConfig } from './config.js';
import type { ServerOptions } from './server.js';
import type { MongoStorageOption } from './storage.js';

/** The storage a configuration names: MongoDB when it has a URI, else none (memory). */
export function storageFrom(config: ServerConfig, collectionName?: string): MongoStorageOption | undefined {
  if (!config.mongodbUri) return undefined;
  return { mongodbUri: config.mongodbUri, databaseName: config.mongodbDb, collectionName, timeoutMs: config.storageTimeoutMs };
}

/** What `startServer` gets from a configuration; the store, tokens and log come from elsewhere. */
export function serverSettingsFrom(config: ServerConfig): Omit<ServerOptions, 'store' | 'tokens' | 'log'> {
  return {
    host: config.host,
    port: config.port,
    basePath: config.basePath,
    bodyLimitBytes: config.bodyLimitBytes,
    ...(config.rateLimit && { rateLimit: config.rateLimit }),
    ...(config.authFailureLimit && { authFailuresPerMinute: config.authFailureLimit }),
    corsOrigins: config.corsOrigins,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
  };
}
