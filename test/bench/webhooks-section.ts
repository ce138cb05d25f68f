/**
 * Webhooks' cost (BENCH_SECTIONS=webhooks runs it alone): W2 on disk without webhooks and
 * with one endpoint (a receiver in its own process answering 200 at once), interleaved; and
 * the delivery lag of every create made against the webhook server, from the 200 the load
 * generator got (the commit) to the request the receiver got.
 *
 * After each run of the webhook server the section waits until its outbox is empty, so
 * deliveries left over from one run are neither counted as free nor sent while the next
 * contender is measured; the CPU they take is counted in the per-CPU-second figure.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { nowMs } from './child-protocol.js';
import { startPlantStore, type Contender } from './contenders.js';
import { IdSource, type RunResult, type Workload } from './load.js';
import { interleave, progress, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID, newPlantBody } from './seed-plants.js';
import { spread, quantile } from './stats.js';
import type { FromReceiver, ToReceiver } from './webhook-receiver.js';

const here = dirname(fileURLToPath(import.meta.url));

export const WEBHOOK_CONTENDERS = { plain: 'disk, no webhooks', webhook: 'disk, one webhook endpoint' } as const;
// Any 24 bytes: the receiver here does not verify (the tests do).
export const SECRET = `whsec_${Buffer.from('plant-store-bench-secret').toString('base64')}`;
const DRAIN_TIMEOUT_MS = 60_000;

export interface WebhookResult {
  readonly series: Series[];
  /** Median W2 throughput with the endpoint over without. */
  readonly ratio: number;
  /** Median W2 creates per server CPU-second with the endpoint (its deliveries' CPU included) over without. */
  readonly cpuRatio: number;
  readonly lag: { readonly p50Ms: number; readonly p99Ms: number; readonly delivered: number; readonly acknowledged: number };
  /** Most acknowledged creates not yet delivered when a run of the webhook server had ended (and settled). */
  readonly largestBacklog: number;
  /**
   * Whether delivery kept up with the creates: no run ended with more than a second's creates
   * undelivered. When it did not, part of each run's delivery work was put off until after
   * the run, and the throughput is one the server could not sustain.
   */
  readonly keptUp: boolean;
}

export async function webhooksSection(settings: Settings, token: string): Promise<WebhookResult> {
  const work = tempDir('plant-store-bench-webhooks-');
  const acknowledgedAt = new Map<number, number>();
  const receiver = await startReceiver();
  const contenders: Contender[] = [];
  try {
    const disk = (dir: string) => ({ PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: join(work.path, dir), PLANT_STORE_LOG_LEVEL: 'warn' });
    contenders.push(await startPlantStore({ name: WEBHOOK_CONTENDERS.plain, plants: 0, token, env: disk('plain') }));
    const webhook = await startPlantStore({
      name: WEBHOOK_CONTENDERS.webhook,
      plants: 0,
      token,
      env: { ...disk('webhook'), PLANT_STORE_WEBHOOK_URLS: `${receiver.url}/hook`, PLANT_STORE_WEBHOOK_SECRET: SECRET, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    // runLoad reads the server's CPU last when the load stops: the drain's CPU is counted from there.
    let lastCpuReading = 0;
    contenders.push({ ...webhook, cpuSeconds: () => (lastCpuReading = webhook.cpuSeconds()) });

    const deliveryCpu = new Map<RunResult, number>();
    // Acknowledged creates whose delivery has not arrived yet. Waiting is done on the receiver:
    // the server's delivery state reads the whole outbox, too dear to poll while it drains.
    const waiting = new Set<number>();
    let largestBacklog = 0;
    const drain = async (contender: Contender, run: RunResult) => {
      if (contender.name !== WEBHOOK_CONTENDERS.webhook) return;
      const cpuAtEnd = lastCpuReading;
      const started = performance.now();
      const update = async () => (await receiver.update()).forEach((id) => waiting.delete(id));
      await update();
      const backlog = waiting.size;
      largestBacklog = Math.max(largestBacklog, backlog);
      await eventually(
        async () => {
          await update();
          // The delivery state is asked only once every acknowledged create has arrived.
          return waiting.size === 0 && (await pendingDeliveries(contender, token)) === 0;
        },
        { what: 'webhooks: every delivery of a run sent', timeoutMs: DRAIN_TIMEOUT_MS },
      );
      deliveryCpu.set(run, webhook.cpuSeconds() - cpuAtEnd);
      progress(`webhooks: ${backlog} acknowledged creates not yet delivered after the run; all sent ${Math.round(performance.now() - started)} ms later, ${Math.round(deliveryCpu.get(run)! * 1000)} ms of server CPU since the load stopped`);
    };

    const creates = (contender: Contender): Workload => ({
      id: 'W2',
      title: 'create plants (unique ids)',
      requests: (_c, ids) => [
        {
          method: 'POST',
          path: '/plants',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request, context) => {
            const id = ids.take();
            (context as { id?: number }).id = id;
            return { ...request, body: newPlantBody(id) };
          },
          onResponse: (status, _body, context) => {
            if (status !== 200 || contender.name !== WEBHOOK_CONTENDERS.webhook) return;
            const { id } = context as { id: number };
            acknowledgedAt.set(id, nowMs());
            waiting.add(id);
          },
        },
      ],
    });
    const series = await interleave('webhooks W2', contenders, creates, new IdSource(FIRST_WRITE_ID), settings, { seconds: settings.seconds, connections: settings.connections, token }, drain);
    await receiver.update();
    const { arrivedAt } = receiver;
    const lags = [...acknowledgedAt].flatMap(([id, at]) => (arrivedAt.has(id) ? [Math.max(0, arrivedAt.get(id)! - at)] : []));
    const runsOf = (name: string) => series.find((s) => s.contender === name)!.runs;
    const median = (name: string) => spread(runsOf(name).map((run) => run.requestsPerSecond)).median;
    const perCpu = (name: string) => spread(runsOf(name).map((run) => run.requests / (run.serverCpuSeconds + (deliveryCpu.get(run) ?? 0)))).median;
    const result: WebhookResult = {
      series,
      ratio: median(WEBHOOK_CONTENDERS.webhook) / median(WEBHOOK_CONTENDERS.plain),
      cpuRatio: perCpu(WEBHOOK_CONTENDERS.webhook) / perCpu(WEBHOOK_CONTENDERS.plain),
      lag: { p50Ms: quantile(lags, 0.5), p99Ms: quantile(lags, 0.99), delivered: lags.length, acknowledged: acknowledgedAt.size },
      largestBacklog,
      keptUp: largestBacklog <= median(WEBHOOK_CONTENDERS.webhook),
    };
    progress(
      `webhooks: W2 ${Math.round(median(WEBHOOK_CONTENDERS.webhook))} req/s with one endpoint vs ${Math.round(median(WEBHOOK_CONTENDERS.plain))} without (${result.ratio.toFixed(2)}x); ` +
        `${Math.round(perCpu(WEBHOOK_CONTENDERS.webhook))} vs ${Math.round(perCpu(WEBHOOK_CONTENDERS.plain))} creates per server CPU-second, deliveries included (${result.cpuRatio.toFixed(2)}x); ` +
        `lag commit → receiver p50 ${result.lag.p50Ms.toFixed(1)} ms, p99 ${result.lag.p99Ms.toFixed(1)} ms (${result.lag.delivered} of ${result.lag.acknowledged} acknowledged creates delivered); ` +
        `at most ${largestBacklog} acknowledged creates undelivered when a run ended`,
    );
    return result;
  } finally {
    for (const contender of contenders) await contender.stop();
    await receiver.stop();
    work.remove();
  }
}

/** Deliveries the server has not yet sent (its delivery state, as an operator reads it). */
export async function pendingDeliveries(contender: Contender, token: string): Promise<number> {
  const response = await fetch(`${contender.url}/webhooks/deliveries`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`webhooks: GET /webhooks/deliveries answered ${response.status}`);
  return ((await response.json()) as { pending: number }).pending;
}

export interface Receiver {
  readonly url: string;
  /** When each plant's first delivery arrived, on the clock of nowMs, as of the last update. */
  readonly arrivedAt: ReadonlyMap<number, number>;
  /** Fetches the arrivals since the last update; answers their plant ids. */
  update(): Promise<number[]>;
  stop(): Promise<void>;
}

/** The receiver of webhook-receiver.ts, in its own process. */
export async function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = fork(join(here, 'webhook-receiver.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = async <T extends FromReceiver['type']>(type: T) => {
    for (;;) {
      const [message] = (await once(child, 'message')) as [FromReceiver];
      if (message.type === type) return message as Extract<FromReceiver, { type: T }>;
    }
  };
  const { port } = await next('ready');
  const arrivedAt = new Map<number, number>();
  return {
    url: `http://127.0.0.1:${port}`,
    arrivedAt,
    update: async () => {
      const answer = next('arrivals');
      child.send({ type: 'arrivals' } satisfies ToReceiver);
      const { ids, atMs } = await answer;
      ids.forEach((id, i) => arrivedAt.set(id, atMs[i]!));
      return ids;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
