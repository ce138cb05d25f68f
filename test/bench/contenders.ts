import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX } from '../../core/index.js';
import { cliNodeFlags } from '../support/cli-node-flags.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import type { FromServer, ToServer } from './child-protocol.js';
import { cpuSeconds } from './process-cpu.js';
import { sandboxName, seedPlants } from './seed-plants.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const STARTUP_TIMEOUT_MS = 180_000;
/**
 * HOST of every server child. The Koa floor and the bare server listen there whatever it
 * says; they get it so that valgrind's control pipe, named after HOST, is found
 * (instructions.ts).
 */
export const LOOPBACK = '127.0.0.1';

export interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
}

/** One server process under test, on loopback. */
export interface Contender {
  /** Short name used in tables. */
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /**
   * Several servers measured as one (the workers section's separate servers): the load's
   * connections go to these in turn (autocannon's round robin), and cpuSeconds sums them.
   */
  readonly urls?: readonly string[];
  /** What the contender answers a list request with (json-server's `_limit`, the others' `limit`). */
  listPath(limit: number): string;
  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds(): number;
  /** Resident memory after a forced GC; undefined for servers that cannot report it. */
  memory(): Promise<Memory | undefined>;
  /**
   * When each plant of the default sandbox created since the last ask was committed (ms on
   * the monotonic clock, comparable with this process's); a server started with
   * BENCH_COMMIT_TIMES=on notes them, others answer none. Undefined for servers that cannot.
   */
  commitTimes?(): Promise<ReadonlyMap<number, number>>;
  /** What the server says it stores plants in. */
  readonly storage: string;
  stop(): Promise<void>;
  readonly preloadSeconds: number;
  /** Bearer token to send instead of the run's static one (e.g. a JWT). */
  readonly token?: string;
  /** Bearer tokens to send one per connection instead (connection i sends token i, round robin): one sandbox per connection. */
  readonly connectionTokens?: readonly string[];
  /**
   * Each connection reads its own part of the plants instead (connection i, round robin,
   * adds offset i to the ids it gets and lists after it): as many plants read, over the run,
   * as connections that each read a sandbox of their own, without sandboxes.
   */
  readonly connectionIdOffsets?: readonly number[];
}

/** The static token of sandbox number `n` in a run whose token is `token`: long, random, and one per sandbox. */
const sandboxToken = (token: string, n: number) => `${token}.${sandboxName(n)}`;

/** Sandboxes a server under test holds, and which of them its static tokens name. */
interface SandboxOptions {
  /** Sandboxes number `from`…`to` (see sandboxName), each given plants 1…`plants` (seed-plants.ts) at start-up. */
  readonly seed?: { readonly from: number; readonly to: number; readonly plants: number };
  /**
   * The server's static tokens instead of the run's one: one for each of these sandbox
   * numbers (sandboxToken; `<token> sandbox=<name>`), sent one per connection in this order.
   */
  readonly tokens: readonly number[];
  /** The tokens name the default sandbox instead (`sandbox=default`): as many tokens, no sandboxes. */
  readonly inDefault?: boolean;
}

export interface NodeContenderOptions {
  readonly name: string;
  readonly plants: number;
  readonly token: string;
  /** Extra variables, e.g. MONGODB_URI. */
  readonly env?: Record<string, string>;
  /** Extra options for node, e.g. --cpu-prof. */
  readonly nodeOptions?: readonly string[];
  /** This server from another build: its `dist` directory (A/B comparisons, ab.ts). */
  readonly distDir?: string;
  /** A command node is started under, with its options (instructions.ts: valgrind). */
  readonly launcher?: readonly string[] | undefined;
  /** Sandboxes to seed and the tokens that name them (this server only); the default sandbox still gets `plants`. */
  readonly sandboxes?: SandboxOptions | undefined;
}

/**
 * This server, started through the library as the CLI starts it (plant-store-server.js),
 * with the node flags of the CLI's shebang; on memory unless `env` names another storage.
 */
export async function startPlantStore(options: NodeContenderOptions): Promise<Contender> {
  const withCliFlags = { ...options, nodeOptions: [...cliNodeFlags(), ...(options.nodeOptions ?? [])] };
  const script = options.distDir === undefined ? join(here, 'plant-store-server.js') : join(options.distDir, 'test', 'bench', 'plant-store-server.js');
  const { sandboxes } = options;
  const tokens = sandboxes?.tokens.map((n) => sandboxToken(options.token, n));
  const entries = sandboxes?.tokens.map((n, i) => `${tokens![i]} sandbox=${sandboxes.inDefault ? DEFAULT_SANDBOX : sandboxName(n)}`);
  const contender = await startNodeChild(script, withCliFlags, {
    PLANT_STORE_TOKENS: entries === undefined ? options.token : entries.join(','),
    PORT: '0',
    HOST: LOOPBACK,
    PLANT_STORE_LOG_LEVEL: 'info',
    PLANT_STORE_RATE_LIMIT: 'off',
    // The feed section opens 1,000 streams with one token: the limits are not what it measures.
    PLANT_STORE_FEED_STREAMS: '100000',
    PLANT_STORE_FEED_STREAMS_PER_TOKEN: '100000',
    // The sections compare against the memory ceiling unless they choose a storage themselves.
    PLANT_STORE_STORAGE: 'memory',
    ...(sandboxes?.seed !== undefined && {
      BENCH_SANDBOX_RANGE: `${sandboxes.seed.from}-${sandboxes.seed.to}`,
      BENCH_SANDBOX_PLANTS: String(sandboxes.seed.plants),
    }),
  });
  return tokens === undefined ? contender : { ...contender, connectionTokens: tokens };
}

/** Koa + @koa/router with the bearer check and nothing else, W1 to W3 (koa-floor-server.js). */
export function startKoaFloor(options: NodeContenderOptions): Promise<Contender> {
  return startNodeChild(join(here, 'koa-floor-server.js'), options, { PLANT_STORE_TOKENS: options.token, PORT: '0', HOST: LOOPBACK });
}

/** The bare node:http ceiling (bare-server.js). */
export function startBareServer(options: NodeContenderOptions): Promise<Contender> {
  return startNodeChild(join(here, 'bare-server.js'), options, { PLANT_STORE_TOKENS: options.token, PORT: '0', HOST: LOOPBACK });
}

// Settings of the server under test that the environment of whoever runs the benchmark
// must not change: the benchmark sets the ones it needs and no others.
const serverVariables = /^(PORT|HOST|MONGODB_URI|MONGODB_DB|PLANT_STORE_.*|BENCH_.*)$/;

export function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !serverVariables.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return env;
}

function startNodeChild(script: string, options: NodeContenderOptions, serverEnv: Record<string, string>): Promise<Contender> {
  const nodeArgs = ['--expose-gc', ...(options.nodeOptions ?? []), script];
  const [launcher, ...launcherOptions] = options.launcher ?? [];
  const child = spawn(launcher ?? process.execPath, launcher === undefined ? nodeArgs : [...launcherOptions, process.execPath, ...nodeArgs], {
    env: { ...cleanEnvironment(), ...serverEnv, ...options.env, BENCH_PLANTS: String(options.plants) },
    // The request log goes to /dev/null: written, as in production, but not kept.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const stderr = tail(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${STARTUP_TIMEOUT_MS / 1000} s`));
    }, STARTUP_TIMEOUT_MS);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited during start-up (${signal ?? `exit ${code}`}): ${stderr().trim().split('\n').pop() ?? ''}`));
    };
    child.once('exit', onExit);
    child.on('message', function onMessage(message: FromServer) {
      if (message.type === 'failed') {
        child.off('message', onMessage);
        child.off('exit', onExit);
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${options.name} failed to start: ${message.message}`));
      } else if (message.type === 'ready') {
        child.off('message', onMessage);
        child.off('exit', onExit);
        clearTimeout(timer);
        resolve(nodeContender(options.name, child, message));
      }
    });
  });
}

function nodeContender(name: string, child: ChildProcess, ready: Extract<FromServer, { type: 'ready' }>): Contender {
  const pid = child.pid!;
  return {
    name,
    pid,
    url: `http://${LOOPBACK}:${ready.port}`,
    preloadSeconds: ready.preloadSeconds,
    storage: ready.storage,
    listPath: (limit) => `/plants?limit=${limit}`,
    cpuSeconds: () => cpuSeconds(pid),
    memory: () =>
      new Promise((resolve, reject) => {
        const onMessage = (message: FromServer) => {
          if (message.type !== 'memory') return;
          child.off('message', onMessage);
          // The report gives memory after a forced GC; a figure without one would mislead.
          if (!message.forcedGc) reject(new Error(`${name} could not force a garbage collection (started without --expose-gc?)`));
          else resolve({ rss: message.rss, heapUsed: message.heapUsed, heapTotal: message.heapTotal, external: message.external });
        };
        child.on('message', onMessage);
        child.send({ type: 'memory' } satisfies ToServer);
      }),
    commitTimes: () =>
      new Promise((resolve) => {
        const onMessage = (message: FromServer) => {
          if (message.type !== 'commits') return;
          child.off('message', onMessage);
          resolve(new Map(message.ids.map((id, i) => [id, message.atMs[i]!])));
        };
        child.on('message', onMessage);
        child.send({ type: 'commits' } satisfies ToServer);
      }),
    stop: () => stopChild(child, () => child.send({ type: 'stop' } satisfies ToServer)),
  };
}

/**
 * json-server 0.17 as a user runs it (`json-server db.json`, its defaults: request log on,
 * CORS and gzip middleware on, no auth), on a db.json holding the same plants.
 */
export async function startJsonServer(options: { name: string; plants: number; port: number }): Promise<Contender> {
  const folder = tempDir('plant-store-bench-');
  const database = join(folder.path, 'db.json');
  writeFileSync(database, JSON.stringify({ plants: [...seedPlants(options.plants)] }, null, 2));
  const packageJson = require.resolve('json-server/package.json');
  const { bin } = require('json-server/package.json') as { bin: string };
  const child = spawn(process.execPath, [join(dirname(packageJson), bin), database, '--port', String(options.port), '--host', '127.0.0.1'], {
    cwd: folder.path,
    env: cleanEnvironment(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = tail(child);
  const url = `http://127.0.0.1:${options.port}`;
  // json-server is the comparison, not this service: a bare fetch asks whether it is up.
  const answers = async () => {
    if (child.exitCode !== null) throw new Error(`json-server exited during start-up: ${stderr().trim().split('\n').pop() ?? ''}`);
    return fetch(`${url}/plants?_limit=1`).then(
      (response) => response.ok,
      () => false, // not listening yet
    );
  };
  await eventually(answers, { what: 'json-server to start', timeoutMs: STARTUP_TIMEOUT_MS, intervalMs: 100 }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const pid = child.pid!;
  return {
    name: options.name,
    pid,
    url,
    preloadSeconds: 0,
    storage: 'db.json',
    listPath: (limit) => `/plants?_limit=${limit}`,
    cpuSeconds: () => cpuSeconds(pid),
    memory: async () => undefined,
    stop: async () => {
      await stopChild(child, () => child.kill('SIGTERM'));
      folder.remove();
    },
  };
}

/** Asks a child to stop, and kills it if it has not within 5 s. */
async function stopChild(child: ChildProcess, ask: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    ask();
  } catch {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Keeps the last few KiB of a child's standard error, for start-up failure messages. */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4000);
  });
  return () => text;
}
