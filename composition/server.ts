import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StaticTokenVerifier } from '../adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../adapters/http/create-http-app.js';
import { createNodeServer } from '../adapters/http/node-server.js';
import type { HttpLog } from '../adapters/http/request-log.js';
import { BODY_LIMIT_BYTES, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, type RateLimitConfig } from './config.js';
import { packageVersion } from './package-version.js';
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
  /** Default 16 KiB. */
  readonly bodyLimitBytes?: number;
  /** Request lines and failures; default: nothing is logged. */
  readonly log?: HttpLog;
  /** Per-token token bucket; default off here (the CLI turns it on). */
  readonly rateLimit?: RateLimitConfig;
  /** Failed authentications per minute per address; default off here (the CLI turns it on). */
  readonly authFailuresPerMinute?: number;
  /** Origins allowed by CORS; default none (CORS off). */
  readonly corsOrigins?: readonly string[];
  /** Longest time a client may take to send its headers; default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Longest time a client may take to send a whole request; default 30 s. */
  readonly requestTimeoutMs?: number;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000` (no base path). */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections at once, lets open requests finish for up to `graceMs`
   * (default 10 s), then cuts whatever is left. Resolves when no connection remains.
   */
  close(graceMs?: number): Promise<void>;
}

const silent: HttpLog = { info: () => {}, error: () => {} };

/** Serves a store over HTTP; the store stays the caller's to close. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const tokenVerifier = new StaticTokenVerifier(options.tokens);
  const app = createHttpApp({
    useCases: options.store.useCases,
    tokenVerifier,
    basePath: options.basePath ?? '',
    version: packageVersion,
    bodyLimitBytes: options.bodyLimitBytes ?? BODY_LIMIT_BYTES,
    checkStorage: () => options.store.ping(),
    log: options.log ?? silent,
    rateLimit: options.rateLimit,
    authFailuresPerMinute: options.authFailuresPerMinute,
    corsOrigins: options.corsOrigins,
  });
  const server = createNodeServer(app.callback(), {
    headersTimeoutMs: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    tokenVerifier,
  });
  await listen(server, options.port ?? 3000, options.host ?? '127.0.0.1');
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return { url: `http://${host}:${port}`, port, close: (graceMs = 10_000) => closeGracefully(server, graceMs) };
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

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive connection goes idle when its last response is sent; close it then,
    // rather than holding close() open until the keep-alive timeout.
    const sweeper = setInterval(() => server.closeIdleConnections(), 50);
    server.close((error) => {
      clearTimeout(deadline);
      clearInterval(sweeper);
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
