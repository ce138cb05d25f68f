import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../adapters/http/create-http-app.js';
import type { UnexpectedErrorReporter } from '../adapters/http/error-middleware.js';
import { BODY_LIMIT_BYTES } from './config.js';
import type { PlantStore } from './plant-store.js';

export interface ServerOptions {
  readonly store: PlantStore;
  /** Accepted bearer tokens; at least one. */
  readonly tokens: readonly string[];
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 3000; 0 picks a free port. */
  readonly port?: number;
  /** Prefix of the API paths, e.g. `/v1`; default empty. */
  readonly basePath?: string;
  readonly bodyLimitBytes?: number;
  readonly reportUnexpected?: UnexpectedErrorReporter;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000` (no base path). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and resolves once open requests have finished. */
  close(): Promise<void>;
}

/** Serves a store over HTTP; the store stays the caller's to close. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const app = createHttpApp({
    useCases: options.store.useCases,
    tokenVerifier: new StaticTokenVerifier(options.tokens),
    basePath: options.basePath ?? '',
    bodyLimitBytes: options.bodyLimitBytes ?? BODY_LIMIT_BYTES,
    checkStorage: () => options.store.ping(),
    reportUnexpected: options.reportUnexpected ?? ((error, ctx) => console.error(`plant-store: ${ctx.method} ${ctx.path} failed:`, error)),
  });
  const server = createServer(app.callback());
  await listen(server, options.port ?? 3000, options.host ?? '127.0.0.1');
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
