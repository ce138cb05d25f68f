/**
 * Webhooks' cost (BENCH_SECTIONS=webhooks runs it alone): W2 on disk without webhooks and
 * with one endpoint (a receiver in this process answering 200 at once), interleaved; and
 * the delivery lag of every create made against the webhook server, from the 200 the load
 * generator got (the commit) to the request the receiver got.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlantStore, type Contender } from './contenders.js';
import { IdSource, type Workload } from './load.js';
import { interleave, progress, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID, newPlantBody } from './seed-plants.js';
import { spread, quantile } from './stats.js';

export const WEBHOOK_CONTENDERS = { plain: 'disk, no webhooks', webhook: 'disk, one webhook endpoint' } as const;
// Any 24 bytes: the receiver here does not verify (the tests do).
const SECRET = `whsec_${Buffer.from('plant-store-bench-secret').toString('base64')}`;

export interface WebhookResult {
  readonly series: Series[];
  /** Median W2 throughput with the endpoint over without. */
  readonly ratio: number;
  readonly lag: { readonly p50Ms: number; readonly p99Ms: number; readonly delivered: number; readonly acknowledged: number };
}

export async function webhooksSection(settings: Settings, token: string): Promise<WebhookResult> {
  const work = mkdtempSync(join(tmpdir(), 'plant-store-bench-webhooks-'));
  const acknowledgedAt = new Map<number, number>();
  const arrivedAt = new Map<number, number>();
  const receiver = await listen(createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const id = (JSON.parse(body) as { id: number }).id;
      if (!arrivedAt.has(id)) arrivedAt.set(id, performance.now());
      response.writeHead(200).end();
    });
  }));
  const contenders: Contender[] = [];
  try {
    const disk = (dir: string) => ({ PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: join(work, dir), PLANT_STORE_LOG_LEVEL: 'warn' });
    contenders.push(await startPlantStore({ name: WEBHOOK_CONTENDERS.plain, plants: 0, token, env: disk('plain') }));
    contenders.push(
      await startPlantStore({
        name: WEBHOOK_CONTENDERS.webhook,
        plants: 0,
        token,
        env: {
          ...disk('webhook'),
          PLANT_STORE_WEBHOOK_URLS: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          PLANT_STORE_WEBHOOK_SECRET: SECRET,
          PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
        },
      }),
    );
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
            if (status === 200 && contender.name === WEBHOOK_CONTENDERS.webhook) acknowledgedAt.set((context as { id: number }).id, performance.now());
          },
        },
      ],
    });
    const series = await interleave('webhooks W2', contenders, creates, new IdSource(FIRST_WRITE_ID), settings, { seconds: settings.seconds, connections: settings.connections, token });
    // Deliveries still queued when the load stopped count too: wait for them (at most a minute).
    const deadline = performance.now() + 60_000;
    while ([...acknowledgedAt.keys()].some((id) => !arrivedAt.has(id)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const lags = [...acknowledgedAt].flatMap(([id, at]) => (arrivedAt.has(id) ? [Math.max(0, arrivedAt.get(id)! - at)] : []));
    const median = (name: string) => spread(series.find((s) => s.contender === name)!.runs.map((run) => run.requestsPerSecond)).median;
    const result: WebhookResult = {
      series,
      ratio: median(WEBHOOK_CONTENDERS.webhook) / median(WEBHOOK_CONTENDERS.plain),
      lag: { p50Ms: quantile(lags, 0.5), p99Ms: quantile(lags, 0.99), delivered: lags.length, acknowledged: acknowledgedAt.size },
    };
    progress(
      `webhooks: W2 ${Math.round(median(WEBHOOK_CONTENDERS.webhook))} req/s with one endpoint vs ${Math.round(median(WEBHOOK_CONTENDERS.plain))} without (${result.ratio.toFixed(2)}x); ` +
        `lag commit → receiver p50 ${result.lag.p50Ms.toFixed(1)} ms, p99 ${result.lag.p99Ms.toFixed(1)} ms (${result.lag.delivered} of ${result.lag.acknowledged} acknowledged creates delivered)`,
    );
    return result;
  } finally {
    for (const contender of contenders) await contender.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(work, { recursive: true, force: true });
  }
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
