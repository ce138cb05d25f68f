import autocannon from 'autocannon';
import type { Contender } from './contenders.js';
import { newPlantBody } from './seed-plants.js';

export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4';

export interface Workload {
  readonly id: WorkloadId;
  readonly title: string;
  readonly requests: (contender: Contender, ids: IdSource) => autocannon.Request[];
  /** Each connection gets requests made for it alone (`requests` called once a connection), not a copy of one set. */
  readonly perConnection?: boolean;
}

/** Hands out plant ids no server has seen, across every run of one benchmark. */
export class IdSource {
  constructor(private next: number) {}
  take(): number {
    return this.next++;
  }
  /** The first of `count` ids in a row, all for the caller. */
  takeRange(count: number): number {
    const first = this.next;
    this.next += count;
    return first;
  }
}

/** Plants a W1 request asks for. */
export const LIST_LIMIT = 100;
const SEEDED = 1000;

/** Seeded ids 1…`count` in a scrambled order, the same for every contender (7919 is prime, so every id comes once). */
const scrambled = (count: number) => Array.from({ length: count }, (_, i) => ((i * 7919) % count) + 1);
const lookupIds = scrambled(SEEDED);

/** POST /plants with a fresh id each time; `onId` hears the id and the connection's context. */
function createRequest(ids: IdSource, onId: (id: number, context: object) => void = () => {}): autocannon.Request {
  return {
    method: 'POST',
    path: '/plants',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request, context) => {
      const id = ids.take();
      onId(id, context);
      return { ...request, body: newPlantBody(id) };
    },
  };
}

export const workloads: Record<WorkloadId, Workload> = {
  W1: {
    id: 'W1',
    title: `list ${LIST_LIMIT} plants`,
    requests: (c) => [{ method: 'GET', path: c.listPath(LIST_LIMIT) }],
  },
  W2: {
    id: 'W2',
    title: 'create plants (unique ids)',
    requests: (_c, ids) => [createRequest(ids)],
  },
  W3: {
    id: 'W3',
    title: 'get one plant',
    requests: () => lookupIds.map((id) => ({ method: 'GET' as const, path: `/plants/${id}` })),
  },
  W4: {
    id: 'W4',
    title: 'create then delete',
    requests: (_c, ids) => [
      createRequest(ids, (id, context) => {
        (context as { id?: number }).id = id;
      }),
      {
        method: 'DELETE',
        path: '/plants/0',
        setupRequest: (request, context) => ({ ...request, path: `/plants/${(context as { id?: number }).id}` }),
      },
    ],
  },
};

/** Ids a connection of `ownRangeCreates` may take in one run: far more than one makes (a few thousand at most). */
const CONNECTION_ID_RANGE = 1_000_000;

/**
 * W2 as separate clients make it: each connection creates plants in an id range of its own,
 * the same plants with and without sandboxes (a client of its own sandbox, or a visitor
 * keeping clear of the others' ids in the one collection), where `workloads.W2` hands every
 * connection the next id of one count (one insertion point without sandboxes, one a sandbox
 * with them). The sandboxes section's W2.
 */
export function ownRangeCreates(): Workload {
  return {
    id: 'W2',
    title: 'create plants, each connection in an id range of its own',
    perConnection: true,
    requests: (_c, ids) => [createRequest(new IdSource(ids.takeRange(CONNECTION_ID_RANGE)))],
  };
}

/** A W1-like workload: pages of `limit` plants (the sandboxes section's small sandboxes). */
export function listWorkload(limit: number): Workload {
  return { id: 'W1', title: `list ${limit} plants`, requests: (c) => [{ method: 'GET', path: c.listPath(limit) }] };
}

/** A W3-like workload over seeded ids 1…`count`. */
export function lookupWorkload(count: number): Workload {
  const ids = scrambled(count);
  return { id: 'W3', title: `get one plant of ${count}`, requests: () => ids.map((id) => ({ method: 'GET' as const, path: `/plants/${id}` })) };
}

/**
 * The bearer token of an autocannon run: the contender's own, or the run's; a contender with
 * `connectionTokens` gets one per connection instead (connection i sends token i, round
 * robin), and one with `connectionIdOffsets` reads its own part of the plants on each
 * connection (see Contender), each connection with its own copy of the workload's requests
 * (or, for a `perConnection` workload, requests made for it).
 */
export function authorized(contender: Contender, token: string, workload: Workload, ids: IdSource): Pick<autocannon.Options, 'headers' | 'requests' | 'setupClient'> {
  const headers = { authorization: `Bearer ${contender.token ?? token}` };
  const tokens = contender.connectionTokens ?? [];
  const offsets = contender.connectionIdOffsets ?? [];
  // One set for every connection, unless each makes its own (below).
  const requests = workload.perConnection ? undefined : workload.requests(contender, ids);
  if (tokens.length === 0 && offsets.length === 0 && requests !== undefined) return { headers, requests };
  let connection = 0;
  return {
    headers,
    ...(requests !== undefined && { requests }),
    // Called once for each connection as autocannon opens them, before its first request;
    // a request's own headers win over the run's, so every request of this connection carries its token.
    setupClient: (client) => {
      const own = tokens.length === 0 ? {} : { authorization: `Bearer ${tokens[connection % tokens.length]}` };
      const offset = offsets.length === 0 ? 0 : offsets[connection % offsets.length]!;
      connection++;
      client.setRequests((requests ?? workload.requests(contender, ids)).map((request) => ({ ...request, path: shifted(request.path, offset), headers: { ...request.headers, ...own } })));
    },
  };
}

/** A read's path for a connection reading its own part of the plants: a get's id plus `offset`, a list after `offset`. */
function shifted(path: string | undefined, offset: number): string | undefined {
  if (path === undefined || offset === 0) return path;
  const get = /^\/plants\/(\d+)$/.exec(path);
  if (get !== null) return `/plants/${Number(get[1]) + offset}`;
  return path.startsWith('/plants?') && !path.includes('after=') ? `${path}&after=${offset}` : path;
}

/** One measured run of one workload against one server. */
export interface RunResult {
  /** Completed requests. */
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** CPU seconds the server process used during the run. */
  readonly serverCpuSeconds: number;
  readonly requestsPerCpuSecond: number;
  /** Share of one core the load generator used (above ~0.9 it may be the limit). */
  readonly loadGeneratorCpu: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
}

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
  readonly token: string;
}

export async function runLoad(contender: Contender, workload: Workload, ids: IdSource, options: LoadOptions): Promise<RunResult> {
  const cpuBefore = contender.cpuSeconds();
  const ownBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await autocannon({
    // autocannon takes several URLs (its README), though its types name one.
    url: contender.urls === undefined ? contender.url : ([...contender.urls] as unknown as string),
    connections: options.connections,
    duration: options.seconds,
    ...authorized(contender, options.token, workload, ids),
  });
  const wall = (performance.now() - wallBefore) / 1000;
  const own = process.cpuUsage(ownBefore);
  const serverCpuSeconds = contender.cpuSeconds() - cpuBefore;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number(count ?? 0);
  const requests = result.requests.total;
  return {
    requests,
    seconds: result.duration,
    requestsPerSecond: requests / result.duration,
    serverCpuSeconds,
    requestsPerCpuSecond: serverCpuSeconds > 0 ? requests / serverCpuSeconds : Number.NaN,
    loadGeneratorCpu: (own.user + own.system) / 1e6 / wall,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
  };
}

/**
 * Runs of one server taken in turns with others, as one: requests and server CPU summed,
 * so its figures per second and per CPU-second are the windows' together. Latencies are
 * the windows' median p50 and worst p99 (autocannon's histograms are not kept to merge).
 */
export function combinedRuns(runs: readonly RunResult[]): RunResult {
  if (runs.length === 1) return runs[0]!;
  const sum = (field: (run: RunResult) => number) => runs.reduce((total, run) => total + field(run), 0);
  const requests = sum((r) => r.requests);
  const seconds = sum((r) => r.seconds);
  const serverCpuSeconds = sum((r) => r.serverCpuSeconds);
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const p50s = runs.map((r) => r.p50Ms).sort((a, b) => a - b);
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    serverCpuSeconds,
    requestsPerCpuSecond: serverCpuSeconds > 0 ? requests / serverCpuSeconds : Number.NaN,
    loadGeneratorCpu: sum((r) => r.loadGeneratorCpu * r.seconds) / seconds,
    p50Ms: p50s[Math.floor(p50s.length / 2)]!,
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    statusCodes,
  };
}
