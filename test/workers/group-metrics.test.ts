import { expect } from 'chai';
import { request } from 'node:http';
import { WORKER_ANSWER_TIMEOUT_MS } from '../../composition/server/group-metrics.js';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { familiesStartingWith, samplesOf, valueOf, type Sample } from '../support/exposition.js';
import { freePort } from '../support/free-port.js';
import { inCi } from '../support/in-ci.cjs';
import { HOW_TO_GET_PROMETHEUS, prometheusTools, promtool } from '../support/prometheus.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver.js';
import { childrenOf, parseLines } from './group-process.js';

const TOKEN = 'group-metrics-token-0123456789abcdef';

interface Answer {
  readonly status: number;
  readonly text: string;
}

/**
 * One request on a connection of its own (no agent, `Connection: close`): the primary hands
 * each new connection to the next worker, so successive calls go to alternating workers.
 */
function once(origin: string, method: string, path: string, json?: unknown, token: string | null = TOKEN, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const headers: Record<string, string> = { connection: 'close' };
    if (token !== null) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request(`${origin}${path}`, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.end(body);
  });
}

/** The sum of a metric's samples over the series whose labels match one of `which`. */
function sumOf(samples: readonly Sample[], name: string, which: readonly Readonly<Record<string, string>>[]): number {
  return samples
    .filter((sample) => sample.name === name && which.some((labels) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value)))
    .reduce((sum, sample) => sum + sample.value, 0);
}

const USED = [
  { method: 'POST', route: '/plants' },
  { method: 'GET', route: '/plants/{id}' },
] as const;

describe('workers: GET /metrics answers the whole group, whichever worker takes the scrape', function () {
  this.timeout(60_000);
  let dir: TempDir;
  let server: CliServer | undefined;
  let origin: string;
  let scrapes: { text: string; samples: Sample[] }[];
  /** Requests to the routes used, once the first test has made them all. */
  let made = 0;

  before(async () => {
    dir = tempDir('plant-store-group-metrics-');
    // Nothing listens there: every attempt is refused, and with an hour before the retry
    // each delivery stays pending for the whole test.
    const closedPort = await freePort();
    server = await startCli({
      PLANT_STORE_DATA_DIR: dir.path,
      PLANT_STORE_TOKENS: TOKEN,
      PLANT_STORE_RATE_LIMIT: 'off',
      PLANT_STORE_WORKERS: '2',
      PLANT_STORE_METRICS: 'on',
      PLANT_STORE_WEBHOOK_URLS: `http://127.0.0.1:${closedPort}/hook`,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      PLANT_STORE_WEBHOOK_EVENTS: 'plant.created',
      PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '1h',
    });
    expect(server.output()).to.match(/plant-store listening on http:\/\/\S+ \(storage: disk [^)]*, 2 workers\)/);
    origin = new URL(server.url).origin;
    scrapes = [];
  });

  after(async () => {
    if (server !== undefined) expect(await server.stop(), `exit code; output:\n${server.output()}`).to.equal(0);
    dir?.remove();
  });

  const scrape = async (): Promise<Sample[]> => {
    const answer = await once(origin, 'GET', '/metrics', undefined, null);
    expect(answer.status, answer.text).to.equal(200);
    const samples = samplesOf(answer.text);
    scrapes.push({ text: answer.text, samples });
    return samples;
  };

  /** `count` creates then `count` reads, each on its own connection; the ids start at `first`. */
  const load = async (first: number, count: number): Promise<void> => {
    for (let id = first; id < first + count; id++) {
      const created = await once(origin, 'POST', '/plants', { id, name: `plant ${id}` });
      expect(created.status, created.text).to.equal(200);
    }
    for (let id = first; id < first + count; id++) {
      const read = await once(origin, 'GET', `/plants/${id}`);
      expect(read.status, read.text).to.equal(200);
    }
  };

  it('counters sum every worker (monotonic from scrape to scrape), histograms too; the pending gauge is the storage’s count, not twice it', async () => {
    const FIRST = 12;
    const MORE = 5;
    await load(1, FIRST);
    let created = FIRST;
    const served = (route: string) => new Set(parseLines(server!.stdout()).filter((line) => line['msg'] === 'request' && line['route'] === route).map((line) => line['worker']));
    expect([...served('/plants')].sort(), 'workers that served the creates').to.deep.equal([1, 2]);

    // The pending gauge is read from storage after a scrape (the first shows 0): wait for a
    // reading of all the pending deliveries. Both workers read the one count; summed, it
    // would show twice that.
    await eventually(async () => valueOf(await scrape(), 'plant_store_webhook_pending') === created, {
      what: `plant_store_webhook_pending = ${created}`,
      context: () => scrapes.map((s) => valueOf(s.samples, 'plant_store_webhook_pending')).join(', '),
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    const seen: { requests: number; durations: number; pending: number | undefined }[] = [];
    const check = async (expected: number) => {
      for (let i = 0; i < 6; i++) {
        const samples = await scrape();
        const requests = sumOf(samples, 'plant_store_http_requests_total', USED);
        const durations = sumOf(samples, 'plant_store_http_request_duration_seconds_count', USED);
        const pending = valueOf(samples, 'plant_store_webhook_pending');
        seen.push({ requests, durations, pending });
        expect(requests, `scrape ${seen.length}: requests to the routes used`).to.equal(expected);
        expect(durations, `scrape ${seen.length}: their durations' count`).to.equal(expected);
        expect(pending, `scrape ${seen.length}: pending deliveries`).to.equal(created);
        expect(valueOf(samples, 'plant_store_webhook_oldest_pending_seconds'), `scrape ${seen.length}: oldest pending`).to.be.above(0);
        expect(valueOf(samples, 'plant_store_feed_streams'), `scrape ${seen.length}: feed streams`).to.equal(0);
        expect(samples.filter((s) => s.name === 'nodejs_version_info'), 'one nodejs_version_info').to.have.length(1);
      }
    };
    await check(2 * FIRST);
    await eventually(async () => valueOf(await scrape(), 'plant_store_webhook_deliveries_total', { outcome: 'retried' }) === created, {
      what: `${created} refused first attempts counted, by whichever worker made them`,
      context: () => scrapes.slice(-5).map((s) => valueOf(s.samples, 'plant_store_webhook_deliveries_total', { outcome: 'retried' })).join(', '),
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    await load(FIRST + 1, MORE);
    created += MORE;
    // The new deliveries are read by every worker within a scrape or two.
    await eventually(async () => valueOf(await scrape(), 'plant_store_webhook_pending') === created, { what: `plant_store_webhook_pending = ${created}`, timeoutMs: 20_000, intervalMs: 200 });
    await check(2 * (FIRST + MORE));
    made = 2 * (FIRST + MORE);

    for (let i = 1; i < seen.length; i++) expect(seen[i]!.requests, `scrape ${i + 1} after ${i}`).to.be.at.least(seen[i - 1]!.requests);
    const scrapers = served('/metrics');
    expect([...scrapers].sort(), 'workers that answered scrapes').to.deep.equal([1, 2]);
    console.log(
      `      ${scrapes.length} scrapes, answered by workers ${[...scrapers].sort().join(' and ')}; requests to the routes used: ${seen.map((s) => s.requests).join(', ')}; pending: ${seen.map((s) => s.pending).join(', ')}`,
    );
  });

  it('the exposition is well formed: each family once, each series once; promtool reads it as it reads one process’s', async function () {
    const { text } = scrapes.at(-1)!;
    const families = text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]);
    expect(families.length).to.equal(new Set(families).size);
    const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.slice(0, line.lastIndexOf(' ')));
    expect(series.length).to.equal(new Set(series).size);
    expect(families).to.include.members(['plant_store_http_requests_total', 'plant_store_http_request_duration_seconds', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds']);
    const tools = prometheusTools();
    if (tools === undefined) {
      if (inCi) throw new Error(`CI needs promtool: ${HOW_TO_GET_PROMETHEUS}`);
      // Pending, not passed: the shape is checked above, promtool's reading is not.
      console.log(`      promtool not run: ${HOW_TO_GET_PROMETHEUS}`);
      return this.skip();
    }
    const whole = await promtool(tools, ['check', 'metrics'], text);
    expect(whole.status, whole.output).to.be.oneOf([0, 3]); // 3: lint problems only, no parse error
    for (const problem of whole.output.split('\n').filter((line) => line.trim() !== '')) expect(problem, 'a lint problem of the service’s own metrics').not.to.match(/^plant_store_/);
    const own = await promtool(tools, ['check', 'metrics'], familiesStartingWith(text, 'plant_store_'));
    expect(own, own.output).to.deep.equal({ status: 0, output: '' });
  });

  it('a worker that does not answer within a second is counted as it last answered: the scrape is answered, and its sums do not drop', async () => {
    expect(made, 'the first test ran').to.be.above(0);
    const primary = server!.child.pid!;
    const workers = childrenOf(primary);
    expect(workers).to.have.length(2);
    const stalled = workers[0]!;
    process.kill(stalled, 'SIGSTOP');
    let answered: { samples: Sample[]; ms: number; status: number };
    try {
      // A connection handed to the stalled worker waits for it; Node's cluster then hands
      // the next ones to the other worker, which answers.
      answered = await eventually(
        async () => {
          const started = performance.now();
          const answer = await once(origin, 'GET', '/metrics', undefined, null, 4000).catch(() => undefined);
          return answer && { samples: samplesOf(answer.text), ms: performance.now() - started, status: answer.status };
        },
        { what: 'a scrape answered while a worker is stopped', timeoutMs: 20_000, intervalMs: 0 },
      );
    } finally {
      process.kill(stalled, 'SIGCONT');
    }
    expect(answered.status, 'the scrape answered while a worker is stopped').to.equal(200);
    const counted = sumOf(answered.samples, 'plant_store_http_requests_total', USED);
    console.log(`      with worker ${stalled} stopped: answered in ${answered.ms.toFixed(0)} ms, requests to the routes used ${counted} of ${made}`);
    expect(answered.ms, 'waited for the stopped worker, then answered').to.be.within(WORKER_ANSWER_TIMEOUT_MS, WORKER_ANSWER_TIMEOUT_MS + 1500);
    expect(counted, "the live worker's count and the stopped one's as it last answered").to.equal(made);
    // Going again, it answers again; its late answers to the scrapes it missed are ignored.
    await eventually(async () => sumOf(await scrape(), 'plant_store_http_requests_total', USED) === made, { what: `${made} requests counted`, timeoutMs: 10_000, intervalMs: 100 });
  });

  it("a worker killed and replaced leaves its counts in the totals: no counter drops (no false reset), its gauges go with it", async () => {
    expect(made, 'the first test ran').to.be.above(0);
    const primary = server!.child.pid!;
    const before = await scrape();
    expect(sumOf(before, 'plant_store_http_requests_total', USED), 'both workers collected').to.equal(made);
    const cpuBefore = valueOf(before, 'process_cpu_seconds_total')!;
    const requestLines = () => parseLines(server!.stdout()).filter((line) => line['msg'] === 'request');
    const workersBefore = new Set(requestLines().map((line) => line['worker']));
    const [killed, survivor] = childrenOf(primary);
    process.kill(killed!, 'SIGKILL');
    const replacement = await eventually(
      () => {
        const now = childrenOf(primary);
        return now.length === 2 && !now.includes(killed!) ? now.find((pid) => pid !== survivor) : undefined;
      },
      { what: 'a worker started in place of the killed one', timeoutMs: 20_000, intervalMs: 50 },
    );
    // Scrapes until the replacement (a worker id not seen before) has answered one too.
    const after: Sample[][] = [];
    await eventually(
      async () => {
        after.push(await scrape());
        return requestLines().some((line) => line['route'] === '/metrics' && !workersBefore.has(line['worker'])) ? true : undefined;
      },
      { what: 'a scrape answered by the replacement', timeoutMs: 20_000, intervalMs: 100 },
    );
    const requests = after.map((samples) => sumOf(samples, 'plant_store_http_requests_total', USED));
    const cpu = after.map((samples) => valueOf(samples, 'process_cpu_seconds_total')!);
    console.log(`      worker ${killed} killed, ${replacement} in its place; ${after.length} scrapes after: requests to the routes used ${requests.join(', ')} (of ${made}); CPU seconds ${cpuBefore.toFixed(2)} before, ${cpu.map((c) => c.toFixed(2)).join(', ')} after`);
    for (const [i, value] of requests.entries()) expect(value, `scrape ${i + 1} after the kill: requests to the routes used`).to.equal(made);
    for (const [i, value] of cpu.entries()) expect(value, `scrape ${i + 1} after the kill: process_cpu_seconds_total`).to.be.at.least(cpuBefore);
    const last = after.at(-1)!;
    expect(last.filter((s) => s.name === 'nodejs_version_info'), 'one nodejs_version_info').to.have.length(1);
    expect(valueOf(last, 'plant_store_feed_streams'), 'feed streams: a gauge, not kept for the gone worker').to.equal(0);
  });
});
