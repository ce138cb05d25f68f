import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { resolve as resolvePath } from 'node:path';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { killQuietly } from '../support/watched-process.js';

/** The token every group of these tests is configured with. */
export const GROUP_TOKEN = 'workers-test-token-0123456789abcdef';

/** A server started with `--workers N` (startCli waits for the primary's start-up line, which follows every worker's listening). */
export interface Group {
  readonly server: CliServer;
  readonly primaryPid: number;
  /** e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The primary's live children, read from /proc (the workers). */
  workerPids(): number[];
  /** Every JSON line printed on standard output so far, parsed. */
  lines(): LogLine[];
  /** The request lines (`msg: request`) so far. */
  requestLines(): LogLine[];
  /**
   * SIGKILL to every worker and the primary at once, workers the primary left behind
   * included (a test that killed the primary alone, and failed); resolves once all are gone.
   */
  killAll(): Promise<void>;
}

export type LogLine = Record<string, any> & { msg?: string; worker?: number };

/**
 * Starts the plant-store command as a group of `workers` on `dataDir` (disk storage), its
 * rate limit off, with GROUP_TOKEN; `env` adds or overrides settings.
 */
export async function startGroup(dataDir: string, workers: number, env: Record<string, string> = {}): Promise<Group> {
  const server = await startCli({ PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_TOKENS: GROUP_TOKEN, PLANT_STORE_RATE_LIMIT: 'off', ...env }, ['--workers', String(workers)]);
  const primaryPid = server.child.pid!;
  /** Every worker seen: one outliving its primary holds the primary's output pipes, which would keep this test process alive. */
  const seen = new Set<number>();
  const workerPids = () => {
    const pids = childrenOf(primaryPid);
    for (const pid of pids) seen.add(pid);
    return pids;
  };
  const group: Group = {
    server,
    primaryPid,
    url: new URL(server.url).origin,
    workerPids,
    lines: () => parseLines(server.stdout()),
    requestLines: () => parseLines(server.stdout()).filter((line) => line.msg === 'request'),
    killAll: async () => {
      workerPids();
      // A pid seen before is killed only while it still runs this command (not a reused pid).
      const workers = [...seen].filter((pid) => isAlive(pid) && runsTheCommand(pid, server.child.spawnargs));
      for (const pid of workers) killQuietly(pid, 'SIGKILL');
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
      // Children already signalled die on their own; wait so no test leaves one behind.
      await eventually(() => workers.every((pid) => !isAlive(pid)), { what: 'the killed workers to be gone', timeoutMs: 5000 });
    },
  };
  await eventually(() => group.workerPids().length === workers, { what: `${workers} workers`, context: () => `children: ${group.workerPids().join(',')}`, timeoutMs: 5000 });
  return group;
}

/** The child processes of `pid` (Linux /proc); none once it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether process `pid` runs the command line `args` (node, the script, its arguments: a worker runs its primary's). */
function runsTheCommand(pid: number, args: readonly string[]): boolean {
  const [, script = '', ...rest] = args;
  try {
    const [, runs = '', ...runsRest] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return resolvePath(runs) === resolvePath(script) && runsRest.join(' ') === rest.join(' ');
  } catch {
    return false;
  }
}

/** Whether `pid` runs (a zombie, exited and not yet reaped, does not). */
export function isAlive(pid: number): boolean {
  return processState(pid) === 'running';
}

/** `zombie`: exited, not yet reaped by its parent (an orphan's: by PID 1), so `kill(pid, 0)` still succeeds. */
export function processState(pid: number): 'running' | 'zombie' | 'gone' {
  if (!existsSync(`/proc/${pid}`)) return 'gone';
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name's closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z' ? 'zombie' : 'running';
  } catch {
    return 'gone';
  }
}

export function parseLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // a line still being written
    }
  }
  return lines;
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
  readonly headers: IncomingHttpHeaders;
  /** performance.now() when the request was handed to the socket layer, and when its whole answer had arrived. */
  readonly sentAt: number;
  readonly answeredAt: number;
}

/**
 * One HTTP/1.1 keep-alive connection (an agent of one socket) to the group: its requests go
 * one after another over the same TCP connection, so the worker the primary handed it to
 * answers them all. After a connection error the next request opens a new connection.
 */
export class Connection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly origin: string,
    private readonly token: string | null = GROUP_TOKEN,
  ) {}

  create(id: number, name = `plant ${id}`): Promise<Answer> {
    return this.send('POST', '/plants', { id, name });
  }

  send(method: string, path: string, json?: unknown, token: string | null = this.token): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const body = json === undefined ? undefined : JSON.stringify(json);
      const headers: Record<string, string> = {};
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const sentAt = performance.now();
      const req = request(`${this.origin}${path}`, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) return reject(new Error(`${method} ${path}: the connection closed mid-answer`));
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode!, text, body: parsed, headers: res.headers, sentAt, answeredAt: performance.now() });
        });
      });
      req.on('error', reject);
      req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path}: no answer within 20 s`)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `count` connections to `origin`. */
export function connections(origin: string, count: number, token: string | null = GROUP_TOKEN): Connection[] {
  return Array.from({ length: count }, () => new Connection(origin, token));
}

/** The error code of a failed request (ECONNRESET, ECONNREFUSED, …) or its message. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}

/** Every `GET /plants` page (Link headers followed) over `connection`: the ids in the store. */
export async function allIds(connection: Connection): Promise<number[]> {
  const ids: number[] = [];
  let path: string | undefined = '/plants?limit=1000';
  while (path !== undefined) {
    const page = await connection.send('GET', path);
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: ${page.text}`);
    ids.push(...(page.body as { id: number }[]).map((plant) => plant.id));
    const next = /^<([^>]+)>; rel="next"$/.exec(String(page.headers['link'] ?? ''))?.[1];
    path = next === undefined ? undefined : new URL(next, 'http://x').pathname + new URL(next, 'http://x').search;
  }
  return ids;
}

/** Loads still writing: a test that fails mid-load stops them in its afterEach (stopLoads), or they would keep the run alive. */
const writing = new Set<CreateLoad>();

export async function stopLoads(): Promise<void> {
  await Promise.all([...writing].map((load) => load.stop()));
}

/**
 * Writers creating plants with rising ids (one shared counter) over their own connections
 * until stopped. Each answer is classified: 200 with the plant sent (acknowledged), a
 * connection error (the request's fate unknown), or anything else (a wrong answer).
 */
export class CreateLoad {
  readonly acknowledged: number[] = [];
  /** Every id sent whose request failed on its connection, with the error. */
  readonly connectionErrors: { id: number; code: string }[] = [];
  readonly wrongAnswers: string[] = [];
  private nextId: number;
  private stopped = false;
  private readonly writers: Promise<void>[];
  private readonly clients: Connection[];

  constructor(origin: string, writers: number, firstId: number, { pauseMs = 0, stopOnError = false } = {}) {
    this.nextId = firstId;
    this.clients = connections(origin, writers);
    this.writers = this.clients.map((client) => this.write(client, pauseMs, stopOnError));
    writing.add(this);
  }

  /** The highest id any writer has sent. */
  get lastId(): number {
    return this.nextId - 1;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    writing.delete(this);
    await Promise.all(this.writers);
    for (const client of this.clients) client.close();
  }

  private async write(client: Connection, pauseMs: number, stopOnError: boolean): Promise<void> {
    while (!this.stopped) {
      const id = this.nextId++;
      const name = `plant ${id}`;
      try {
        const answer = await client.create(id, name);
        if (answer.status === 200 && answer.body?.id === id && answer.body?.name === name) this.acknowledged.push(id);
        else this.wrongAnswers.push(`POST /plants ${id}: ${answer.status} ${answer.text}`);
      } catch (error) {
        this.connectionErrors.push({ id, code: errorCode(error) });
        if (stopOnError) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/**
 * Starts a server on `dataDir` once whatever wrote there has gone (a killed group, a crashed
 * server): it must take the create of `newId` at once, and hold every `acknowledged` id.
 */
export async function expectTheNextServerHolds(dataDir: string, acknowledged: readonly number[], newId: number, what: string): Promise<void> {
  const next = await startCli({ PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_TOKENS: GROUP_TOKEN });
  const connection = new Connection(new URL(next.url).origin);
  try {
    expect((await connection.create(newId)).status, `${what}: a create on the next server`).to.equal(200);
    const stored = new Set(await allIds(connection));
    expect(acknowledged.filter((id) => !stored.has(id)), `${what}: acknowledged creates missing`).to.deep.equal([]);
  } finally {
    connection.close();
    await next.stop('SIGKILL');
  }
}

/** How many items have each key, e.g. request lines by worker. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** How many times each value occurs more than once: `[value, times]` for the repeated ones. */
export function repeated<T>(values: readonly T[]): [T, number][] {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].filter(([, times]) => times > 1);
}
