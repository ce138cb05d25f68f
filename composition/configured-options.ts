import type { ServerConfig } from './config.js';
import type { ServerOptions } from './server.js';
import type { DiskStorageOption, MongoStorageOption } from './storage.js';

/** The storage a configuration names: disk in its data directory, MongoDB at its URI, or none (memory). */
export function storageFrom(config: ServerConfig, collectionName?: string): DiskStorageOption | MongoStorageOption | undefined {
  switch (config.storage) {
    case 'memory':
      return undefined;
    case 'disk':
      return { dataDir: config.dataDir, timeoutMs: config.storageTimeoutMs };
    case 'mongodb':
      return { mongodbUri: config.mongodbUri!, databaseName: config.mongodbDb, collectionName, timeoutMs: config.storageTimeoutMs };
  }
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
  };
}
