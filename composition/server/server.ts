import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SANDBOX, type TokenVerifier } from '../../core/index.js';
import type { JwtSettings } from '../../adapters/auth/jwt-settings.js';
import type { StaticToken } from '../../adapters/auth/static-token-rules.js';
import { createHttpApp } from '../../adapters/http/app/create-http-app.js';
import type { SelfServiceHttp } from '../../adapters/http/app/self-service-http.js';
import { createNodeServer } from '../../adapters/http/server/node-server.js';
import type { HttpLog } from '../../adapters/http/app/http-log.js';
import type { HttpMetrics } from '../../adapters/http/app/http-metrics.js';
import { packageVersion } from '../package-version.js';
import type { PlantStore } from '../store/plant-store.js';
import { HTTP_DEFAULTS, type HttpSettings } from '../../adapters/http/app/http-settings.js';
import { tokenVerifierFor } from './token-verification.js';

export interface ServerOptions extends HttpSettings {
  readonly store: PlantStore;
  /**
   * Accepted static bearer tokens (RFC 6750 b64token, at least 16 characters), each a
   * string (both scopes) or `{ token, scopes }`. At least one, unless `jwt` is given.
   */
  readonly tokens?: readonly (string | StaticToken)[];
  /** Also accept RFC 9068 JWT access tokens from this identity provider. */
  readonly jwt?: JwtSettings;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000` (no base path). */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections at once, lets open requests finish for up to `graceMs`
   * (default: the settings' `shutdownGraceMs`), then cuts whatever is left. Resolves when
   * no connection remains.
   */
  close(graceMs?: number): Promise<void>;
}

const silent: HttpLog = { info: () => {}, error: () => {} };

/** Serves a store over HTTP; the store stays the caller's to close. Rejects on unusable tokens or JWT settings. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const tokenVerifier = await tokenVerifierFor(options.tokens, options.jwt, options.log ?? silent);
  return serveStore(options.store, tokenVerifier, { ...options, acceptsJwt: options.jwt !== undefined });
}

/** Serves a store over HTTP, its tokens checked by `tokenVerifier`. */
export async function serveStore(
  store: PlantStore,
  tokenVerifier: TokenVerifier,
  given: HttpSettings & {
    readonly acceptsJwt?: boolean;
    readonly selfService?: SelfServiceHttp | undefined;
    /** A worker of the command's group (`--workers`): its `/metrics` answers the group's (group-metrics.ts). */
    readonly groupWorker?: boolean;
  },
): Promise<RunningServer> {
  const settings = { ...HTTP_DEFAULTS, ...withoutUndefined(given) };
  const metrics = settings.metrics ? await httpMetricsFor(store, settings.groupWorker ?? false) : undefined;
  // Aborted on close: open change streams end at once, rather than holding the grace period.
  // Each open stream listens to it (and stops when it ends): no limit, or Node warns past 10.
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const app = createHttpApp({
    closing: closing.signal,
    settings: { ...settings, rateLimit: settings.rateLimit, authFailuresPerMinute: settings.authFailuresPerMinute },
    log: settings.log ?? silent,
    useCases: store.useCases,
    tokenVerifier,
    acceptsJwt: settings.acceptsJwt ?? false,
    version: packageVersion,
    checkStorage: () => store.ping(),
    selfService: settings.selfService,
    webhookDeliveries: store.hasWebhooks ? { state: (sandbox) => deliveryStateFor(store, sandbox), retryFailed: () => store.retryFailedDeliveries() } : undefined,
    metrics,
  });
  const server = createNodeServer(app.callback(), {
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    tokenVerifier,
  });
  await listen(server, settings.port, settings.host);
  const { address, port, family } = server.address() as AddressInfo;
  return { url: urlOf(address, port, family === 'IPv6'), port, close: (graceMs = settings.shutdownGraceMs) => {
      closing.abort();
      return closeGracefully(server, graceMs);
    },
  };
}

/** The URL of a server listening at `address` (an IPv6 one in brackets) and `port`, no base path. */
export function urlOf(address: string, port: number, ipv6: boolean): string {
  return `http://${ipv6 ? `[${address}]` : address}:${port}`;
}

/** A sandbox's delivery state; the default sandbox's tokens (operators) also see how many self-service sandboxes there are. */
async function deliveryStateFor(store: PlantStore, sandbox: string | undefined) {
  const state = await store.deliveryState(sandbox ?? DEFAULT_SANDBOX);
  const registry = store.selfService?.sandboxes.registry;
  if (sandbox !== undefined || registry === undefined) return state;
  return { ...state, sandboxes: (await registry.list()).length };
}

/**
 * The HTTP metrics and Node's own, added to the store's registry beside its storage and
 * webhook metrics; a store made without metrics gets a registry here with those only.
 * prom-client is loaded only when metrics are on. A worker of a group serves the group's.
 */
async function httpMetricsFor(store: PlantStore, groupWorker: boolean): Promise<HttpMetrics> {
  const [{ createMetricsRegistry, withNodeMetrics }, { httpRequestMetricsIn }] = await Promise.all([
    import('../../adapters/metrics/metrics-registry.js'),
    import('../../adapters/metrics/http-request-metrics.js'),
  ]);
  const registry = withNodeMetrics(store.metrics ?? createMetricsRegistry());
  const metrics = httpRequestMetricsIn(registry);
  return groupWorker ? (await import('./group-metrics.js')).groupWorkerMetrics(metrics, registry) : metrics;
}

/** An option given as undefined takes its default, as one left out does. */
function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      // Node's own line names no setting; this one says which port, for the operator.
      if (error.code === 'EADDRINUSE') reject(Object.assign(new Error(`port ${port} on ${host} is already in use`, { cause: error }), { code: error.code }));
      else reject(error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
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
