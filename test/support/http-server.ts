import { randomBytes } from 'node:crypto';
import type { HttpLog } from '../../adapters/http/request-log.js';
import { createPlantStore, startServer, type PlantStore, type RunningServer, type ServerOptions } from '../../composition/index.js';
import type { PageRequest, Plant, PlantRepository } from '../../core/index.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { HttpClient } from './http-client.js';

/** A fresh random bearer token (32 characters of base64url, a valid RFC 6750 b64token). */
export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface HttpServerOptions {
  /** Prefix of the API paths, e.g. `/v1`; default empty. */
  readonly basePath?: string;
  /** How many random tokens to configure; default 1. */
  readonly tokenCount?: number;
  /** Time limits for clients, when a test needs them short. */
  readonly timeouts?: Pick<ServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs'>;
}

/** A real server on an ephemeral loopback port, over a fresh store from the factory. */
export interface HttpServer {
  /** Origin, e.g. `http://127.0.0.1:40123` (no base path). */
  readonly url: string;
  readonly port: number;
  readonly basePath: string;
  /** The first configured token. */
  readonly token: string;
  readonly tokens: readonly string[];
  /** What the server serves at /openapi.json. */
  readonly openapi: Record<string, unknown>;
  /** The same store the server serves, for fast set-up and for checking what was stored. */
  readonly store: PlantStore;
  /** Causes of the 5xx answers the server logged (50001 unexpected, 50301 storage unavailable). */
  readonly serverErrors: readonly unknown[];
  /** From now on every storage call throws `error`; undefined makes storage work again. */
  breakStorage(error: Error | undefined): void;
  close(): Promise<void>;
}

/**
 * Delegates to the factory's repository unchanged, unless told to fail: the only way to
 * provoke an unexpected failure that works the same on every storage backend.
 */
class BreakableRepository implements PlantRepository {
  fault: Error | undefined;

  constructor(private readonly inner: PlantRepository) {}

  page(request: PageRequest): Promise<Plant[]> {
    return this.call(() => this.inner.page(request));
  }
  findById(id: number): Promise<Plant | undefined> {
    return this.call(() => this.inner.findById(id));
  }
  add(plant: Plant): Promise<boolean> {
    return this.call(() => this.inner.add(plant));
  }
  remove(id: number): Promise<boolean> {
    return this.call(() => this.inner.remove(id));
  }
  ping(): Promise<void> {
    return this.call(() => this.inner.ping());
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    if (this.fault !== undefined) throw this.fault;
    return operation();
  }
}

export async function startHttpServer(storage: StorageFactory, options: HttpServerOptions = {}): Promise<HttpServer> {
  const fixture = await storage();
  const repository = new BreakableRepository(fixture.repository);
  const store = await createPlantStore({ storage: { repository, close: () => fixture.close(), description: 'http test' } });
  const tokens = Array.from({ length: options.tokenCount ?? 1 }, randomToken);
  const serverErrors: unknown[] = [];
  const log: HttpLog = {
    info: () => {},
    error: (fields) => serverErrors.push((fields as { err?: unknown }).err),
  };
  const basePath = options.basePath ?? '';
  let running: RunningServer;
  try {
    running = await startServer({ store, tokens, port: 0, host: '127.0.0.1', basePath, log, ...options.timeouts });
  } catch (error) {
    await store.close();
    throw error;
  }
  const openapi = (await (await fetch(`${running.url}/openapi.json`)).json()) as Record<string, unknown>;
  return {
    url: running.url,
    port: running.port,
    openapi,
    basePath,
    token: tokens[0]!,
    tokens,
    store,
    serverErrors,
    breakStorage: (error) => {
      repository.fault = error;
    },
    close: async () => {
      // Tests read every response and destroy raw sockets, so this resolves at once; the
      // grace only bounds a test that left a request half-sent.
      await running.close(1000);
      await store.close();
    },
  };
}

/** What a test sees of the server started for it. */
export interface HttpTestContext {
  readonly server: HttpServer;
  readonly http: HttpClient;
}

/**
 * Registers hooks in the calling describe: every test gets its own server, store and
 * token(s), closed after it. Read `server` and `http` inside tests, not at definition time.
 */
export function useHttpServer(storage: StorageFactory, options: HttpServerOptions = {}): HttpTestContext {
  let current: { server: HttpServer; http: HttpClient } | undefined;
  beforeEach(async () => {
    const server = await startHttpServer(storage, options);
    current = { server, http: new HttpClient(server) };
  });
  afterEach(async () => {
    const finished = current;
    current = undefined;
    await finished?.server.close();
  });
  const started = () => {
    if (current === undefined) throw new Error('the HTTP server is only available inside a test');
    return current;
  };
  return {
    get server() {
      return started().server;
    },
    get http() {
      return started().http;
    },
  };
}
