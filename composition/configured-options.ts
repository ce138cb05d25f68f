import type { ServerConfig } from './config.js';
import type { HttpSettings } from './server.js';
import type { DiskStorageOption, MongoStorageOption } from './storage.js';

/** The storage a configuration names: disk in its data directory, MongoDB at its URI, or none (memory). */
export function storageFrom(config: ServerConfig): DiskStorageOption | MongoStorageOption | undefined {
  switch (config.storage) {
    case 'memory':
      return undefined;
    case 'disk':
      return { dataDir: config.dataDir, timeoutMs: config.storageTimeoutMs };
    case 'mongodb':
      return { mongodbUri: config.mongodbUri!, databaseName: config.mongodbDb, timeoutMs: config.storageTimeoutMs };
  }
}

/** How a configuration says the store is served over HTTP; tokens and the log come from elsewhere. */
export function serverSettingsFrom(config: ServerConfig): Omit<HttpSettings, 'log'> {
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
