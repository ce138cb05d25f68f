import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { buildServer } from '../../composition/server/build-server.js';
import type { StorageOpener } from '../../composition/store/storage.js';
import type { Log } from '../../core/index.js';
import { configFrom } from '../../composition/config/parse-config.js';
import { InjectionTokens } from '../../composition/store/injection-tokens.js';
import { createLogger } from '../../composition/server/logger.js';
import type { PlantStore } from '../../composition/store/plant-store.js';
import type { AddLimits, ChangeLog, ChangeRetention, DeliveryOutbox, PageRequest, PendingDelivery, Plant, PlantRepository, SandboxRegistry } from '../../core/index.js';
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
  /** Token entries to configure instead (`<token>` or `<token> <scope>…`); [] for none. */
  readonly tokens?: readonly string[];
  /** More configuration, as the command's variables (e.g. PLANT_STORE_CORS_ORIGINS). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Registers adapters of the test's own (e.g. a token verifier) before the server is built;
   * the test's storage and log are registered already.
   */
  readonly register?: (container: DependencyContainer) => void | Promise<void>;
  /** Credentials the server must never show, besides the configured tokens (e.g. signed JWTs). */
  readonly secrets?: readonly string[];
  /** Time limits for clients, when a test needs them short. */
  readonly timeouts?: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number };
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
  readonly openapi: Record<string, any>;
  /** The same store the server serves, for fast set-up and for checking what was stored. */
  readonly store: PlantStore;
  /** Causes of the 5xx answers the server logged (50001 unexpected, 50301 storage unavailable). */
  readonly serverErrors: readonly unknown[];
  /** Every line the server logged, as pino wrote it (JSON). */
  log(): string;
  /** A client with the first token, checking every response against the document. */
  readonly http: HttpClient;
  /** From now on every storage call throws `error`; undefined makes storage work again. */
  breakStorage(error: Error | undefined): void;
  close(): Promise<void>;
}

/**
 * Delegates to the factory's repository unchanged, unless told to fail: the only way to
 * provoke an unexpected failure that works the same on every storage backend.
 */
class BreakableRepository implements PlantRepository {
  private ownFault: Error | undefined;
  /** Its sandboxes', where the storage keeps sandboxes: breakable with it, by the same fault. */
  readonly sandbox?: (name: string) => PlantRepository;
  readonly purge?: (limit: number) => Promise<number>;
  readonly sandboxes?: SandboxRegistry;
  // The change log is read as the storage keeps it: a broken storage fails the writes that feed it.
  readonly changes?: ChangeLog;
  readonly changeRetention?: ChangeRetention;

  constructor(
    private readonly inner: PlantRepository,
    private readonly root?: BreakableRepository,
  ) {
    if (inner.purge !== undefined) this.purge = (limit) => this.call(() => inner.purge!(limit));
    if (inner.sandboxes !== undefined) this.sandboxes = inner.sandboxes;
    if (inner.changes !== undefined) this.changes = inner.changes;
    if (inner.changeRetention !== undefined) this.changeRetention = inner.changeRetention;
    const views = new Map<string, BreakableRepository>();
    if (inner.sandbox !== undefined) {
      this.sandbox = (name) => {
        let view = views.get(name);
        if (view === undefined) views.set(name, (view = new BreakableRepository(inner.sandbox!(name), root ?? this)));
        return view;
      };
    }
  }

  get fault(): Error | undefined {
    return this.root === undefined ? this.ownFault : this.root.fault;
  }
  set fault(error: Error | undefined) {
    this.ownFault = error;
  }

  page(request: PageRequest): Promise<Plant[]> {
    return this.call(() => this.inner.page(request));
  }
  findById(id: number): Promise<Plant | undefined> {
    return this.call(() => this.inner.findById(id));
  }
  add(plant: Plant, deliveries?: readonly PendingDelivery[], limits?: AddLimits): Promise<boolean> {
    return this.call(() => (limits === undefined ? this.inner.add(plant, deliveries) : this.inner.add(plant, deliveries, limits)));
  }
  remove(id: number, deliveries?: readonly PendingDelivery[]): Promise<boolean> {
    return this.call(() => this.inner.remove(id, deliveries));
  }
  ping(): Promise<void> {
    return this.call(() => this.inner.ping());
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    if (this.fault !== undefined) throw this.fault;
    return operation();
  }
}

/** Memory storage, for tests about anything but storage. */
export const memoryStorage: StorageFactory = async () => ({ repository: new MemoryPlantRepository(), close: async () => {} });

export async function startHttpServer(storage: StorageFactory = memoryStorage, options: HttpServerOptions = {}): Promise<HttpServer> {
  const entries = options.tokens ?? Array.from({ length: options.tokenCount ?? 1 }, randomToken);
  const tokens = entries.map((entry) => entry.split(/\s+/)[0]!);
  const basePath = options.basePath ?? '';
  const serverErrors: unknown[] = [];
  let lines = '';
  const pinoLog = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        lines += chunk;
        done();
      },
    }),
  );
  let repository: BreakableRepository | undefined;
  // The server is built as the command builds it; the container swaps in the test's storage
  // (made breakable) and a log that keeps its lines and the causes of 5xx answers.
  const container = rootContainer.createChildContainer();
  container.register<StorageOpener>(InjectionTokens.Storage, {
    useValue: async () => {
      const fixture = await storage();
      repository = new BreakableRepository(fixture.repository);
      // The storage's own outbox, for tests with webhooks configured.
      const outbox = (fixture.repository as { outbox?: DeliveryOutbox }).outbox;
      return { repository, outbox, description: 'http test', close: () => fixture.close() };
    },
  });
  container.register<Log>(InjectionTokens.Log, {
    useValue: {
      info: (fields, message) => pinoLog.info(fields, message),
      warn: (fields, message) => pinoLog.warn(fields, message),
      error: (fields, message) => {
        serverErrors.push((fields as { err?: unknown }).err);
        pinoLog.error(fields, message);
      },
    },
  });
  await options.register?.(container);
  const config = configFrom([], {
    HOST: '127.0.0.1',
    PORT: '0',
    PLANT_STORE_TOKENS: entries.join(','),
    PLANT_STORE_BASE_PATH: basePath,
    // The contract suites run unthrottled; the limits have tests of their own.
    PLANT_STORE_RATE_LIMIT: 'off',
    PLANT_STORE_AUTH_FAILURE_LIMIT: 'off',
    ...(options.timeouts && {
      PLANT_STORE_HEADERS_TIMEOUT_MS: String(options.timeouts.headersTimeoutMs),
      PLANT_STORE_REQUEST_TIMEOUT_MS: String(options.timeouts.requestTimeoutMs),
    }),
    ...options.env,
  });
  const built = await buildServer(config, container);
  const openapi = (await (await fetch(`${built.server.url}/openapi.json`)).json()) as Record<string, unknown>;
  const target = { url: built.server.url, basePath, openapi, token: tokens[0] ?? 'no-static-token', tokens: [...tokens, ...(options.secrets ?? [])] };
  return {
    ...target,
    port: built.server.port,
    tokens,
    store: built.store,
    serverErrors,
    log: () => lines,
    http: new HttpClient(target),
    breakStorage: (error) => {
      repository!.fault = error;
    },
    // Tests read every response and destroy raw sockets, so this resolves at once; the
    // grace only bounds a test that left a request half-sent.
    close: () => built.close(1000),
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
    current = { server, http: server.http };
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
