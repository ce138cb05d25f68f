import cluster, { type Worker } from 'node:cluster';
import type { Registry } from 'prom-client';
import type { HttpMetrics } from '../../adapters/http/app/http-metrics.js';

/**
 * `GET /metrics` of a group (`--workers`): the whole group's metrics, whichever worker takes
 * the scrape. The worker asks its primary over the cluster channel; the primary asks every
 * worker that serves metrics for its registry (`getMetricsAsJSON`), adds them up with
 * prom-client's AggregatorRegistry.aggregate (each metric by its `aggregator`: counters and
 * histograms summed, the gauges of the shared storage by their maximum, see
 * adapters/metrics/), and answers the text to the asking worker, which serves it.
 *
 * The sums never go down while the group runs, so that Prometheus never reads a false reset
 * (which `rate()` would take for a burst of the whole total): a worker that does not answer
 * in time is counted as it last answered, and a worker that is gone leaves its counters and
 * histograms, as last collected, in every later total (its gauges go with it).
 *
 * Only the command's own group uses this: a process alone, an embedded store and the tests
 * never send a message. prom-client is loaded in the primary only when it gathers metrics.
 */

/** How long the primary waits for each worker's registry: one that has not answered by then (stalled, or exiting) is counted as it last answered, and the scrape is answered. */
export const WORKER_ANSWER_TIMEOUT_MS = 1000;
/** How long a worker waits for the primary's answer before the scrape fails (500): past the workers' timeout, and well within Prometheus's default scrape timeout (10 s). */
const PRIMARY_ANSWER_TIMEOUT_MS = 5000;

/** One worker's registry, as getMetricsAsJSON gives it (plain data: it crosses the channel as JSON). */
type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

const PREFIX = 'plant-store:metrics';
/** Worker → primary: this worker answers for its registry from now on. */
const READY = `${PREFIX}:ready`;
/** Worker → primary: a scrape wants the group's text. */
const SCRAPE = `${PREFIX}:scrape`;
/** Primary → worker: the group's text (or why there is none), for SCRAPE `id`. */
const SCRAPED = `${PREFIX}:scraped`;
/** Primary → worker: your registry, please. */
const COLLECT = `${PREFIX}:collect`;
/** Worker → primary: the registry, for COLLECT `id` (none when it could not be read). */
const COLLECTED = `${PREFIX}:collected`;

type Message =
  | { readonly type: typeof READY }
  | { readonly type: typeof SCRAPE; readonly id: number }
  | { readonly type: typeof SCRAPED; readonly id: number; readonly text?: string; readonly error?: string }
  | { readonly type: typeof COLLECT; readonly id: number }
  | { readonly type: typeof COLLECTED; readonly id: number; readonly metrics?: MetricJson[] };

/** One of ours; anything else on the channel (another library's, the application's) is ignored. */
function ours(message: unknown): message is Message {
  return typeof message === 'object' && message !== null && typeof (message as { type?: unknown }).type === 'string' && (message as { type: string }).type.startsWith(`${PREFIX}:`);
}

// ---- the primary -----------------------------------------------------------------------

let gathering = false;

/**
 * In the primary, with metrics on: answers the workers' scrapes with the group's metrics.
 * Loads prom-client (for its aggregation) now.
 */
export async function gatherGroupMetrics(): Promise<void> {
  if (gathering) return;
  gathering = true;
  const { AggregatorRegistry } = await import('prom-client');
  /**
   * The workers that said they answer (a worker still starting has no registry yet, and is
   * not waited for), each with its registry as last collected.
   */
  const answering = new Map<Worker, MetricJson[] | undefined>();
  /** What the workers gone so far left in the totals, added up. */
  let retired: MetricJson[] = [];
  /** A gone worker's part still being added to `retired`: scrapes meanwhile count it apart. */
  const retiring = new Set<MetricJson[]>();
  let folding = Promise.resolve();
  const collections = new Map<number, (metrics: MetricJson[] | undefined) => void>();
  let nextCollection = 0;

  const collect = (worker: Worker): Promise<MetricJson[] | undefined> =>
    new Promise((resolve) => {
      const id = nextCollection++;
      const done = (metrics: MetricJson[] | undefined) => {
        clearTimeout(timer);
        collections.delete(id);
        resolve(metrics);
      };
      // A worker that does not answer in time is counted as it last answered, rather than the scrape waiting for it.
      const timer = setTimeout(() => done(undefined), WORKER_ANSWER_TIMEOUT_MS);
      collections.set(id, done);
      send(worker, { type: COLLECT, id }, () => done(undefined));
    });

  const groupText = async (): Promise<string> => {
    const live = [...answering.keys()].filter((worker) => worker.isConnected());
    const answers = await Promise.all(live.map(collect));
    const registries: MetricJson[][] = [retired, ...retiring];
    live.forEach((worker, i) => {
      const answer = answers[i];
      // A worker that exited meanwhile is counted in `retiring` or `retired`, as collected before.
      if (answer !== undefined && answering.has(worker)) answering.set(worker, answer);
      const counted = answering.get(worker);
      if (counted !== undefined) registries.push(counted);
    });
    return AggregatorRegistry.aggregate(registries).metrics();
  };

  const retire = (worker: Worker) => {
    const last = answering.get(worker);
    answering.delete(worker);
    if (last === undefined) return;
    const part = cumulative(last);
    retiring.add(part);
    // One at a time, each onto the last one's sum; in `retiring` until it is in `retired`.
    folding = folding
      .then(async () => {
        const sum = cumulative(await AggregatorRegistry.aggregate([retired, part]).getMetricsAsJSON());
        retired = sum;
        retiring.delete(part);
      })
      .catch(() => {}); // left in `retiring`, where it is counted all the same
  };

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!ours(message)) return;
    switch (message.type) {
      case READY:
        answering.set(worker, undefined);
        worker.once('exit', () => retire(worker));
        return;
      case COLLECTED:
        collections.get(message.id)?.(message.metrics);
        return;
      case SCRAPE:
        groupText().then(
          (text) => send(worker, { type: SCRAPED, id: message.id, text }),
          (error: unknown) => send(worker, { type: SCRAPED, id: message.id, error: (error as Error)?.message ?? String(error) }),
        );
        return;
    }
  });
}

/**
 * The counters and histograms of a registry, as plain data: what a process's totals keep of
 * it once it is gone (a gauge says how things are, and they are no longer so).
 */
function cumulative(metrics: readonly MetricJson[]): MetricJson[] {
  return metrics.filter((metric) => CUMULATIVE.includes(metric.type)).map(({ name, help, type, values, aggregator }) => ({ name, help, type, values, aggregator }) as MetricJson);
}
/** The data says 'counter' and 'histogram' (prom-client's typings declare a numeric enum). */
const CUMULATIVE: readonly unknown[] = ['counter', 'histogram'];

/** Sends `message` to `worker`; a worker gone meanwhile calls `failed` (its channel is closed). */
function send(worker: Worker, message: Message, failed: () => void = () => {}): void {
  if (!worker.isConnected()) return failed();
  worker.send(message, (error: Error | null) => {
    if (error) failed();
  });
}

// ---- a worker --------------------------------------------------------------------------

let answeringFor: Registry | undefined;

/**
 * In a worker of a group: `local` counts this worker's requests into `registry`, as it would
 * alone, and its `/metrics` answers the group's metrics, asked of the primary. The worker
 * answers the primary's requests for `registry` from now on. One registry per process.
 */
export function groupWorkerMetrics(local: HttpMetrics, registry: Registry): HttpMetrics {
  if (answeringFor !== undefined && answeringFor !== registry) throw new Error('a worker serves one registry to its group');
  if (answeringFor === undefined) {
    answeringFor = registry;
    answerThePrimary(registry);
  }
  return {
    request: (fields) => local.request(fields),
    feedStreams: (delta) => local.feedStreams(delta),
    exposition: async () => ({ contentType: registry.contentType, text: await askThePrimary() }),
  };
}

const scrapes = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
let nextScrape = 0;

function answerThePrimary(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (!ours(message)) return;
    if (message.type === COLLECT) {
      registry.getMetricsAsJSON().then(
        (metrics) => toPrimary({ type: COLLECTED, id: message.id, metrics }),
        // No registry to send: the primary counts this worker as it last answered.
        () => toPrimary({ type: COLLECTED, id: message.id }),
      );
    } else if (message.type === SCRAPED) {
      const scrape = scrapes.get(message.id);
      if (message.text !== undefined) scrape?.resolve(message.text);
      else scrape?.reject(new Error(`the group's metrics could not be gathered: ${message.error}`));
    }
  });
  toPrimary({ type: READY });
}

/**
 * Sends `message` to the primary; `failed` hears of a closed channel (the primary gone),
 * which without a callback Node would raise as the process's 'error' event.
 */
function toPrimary(message: Message, failed: (error: Error) => void = () => {}): void {
  if (process.send === undefined) return failed(new Error('no channel to the primary'));
  process.send(message, (error: Error | null) => {
    if (error) failed(error);
  });
}

function askThePrimary(): Promise<string> {
  return new Promise((resolve, reject) => {
    const id = nextScrape++;
    const settle = () => {
      clearTimeout(timer);
      scrapes.delete(id);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`the primary did not answer with the group's metrics within ${PRIMARY_ANSWER_TIMEOUT_MS} ms`));
    }, PRIMARY_ANSWER_TIMEOUT_MS);
    scrapes.set(id, {
      resolve: (text) => (settle(), resolve(text)),
      reject: (error) => (settle(), reject(error)),
    });
    toPrimary({ type: SCRAPE, id }, (error) => scrapes.get(id)?.reject(error));
  });
}
