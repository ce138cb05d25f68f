import { expect } from 'chai';
import { inCi } from '../support/in-ci.cjs';
import { eventually } from '../support/eventually.js';
import { familiesStartingWith } from '../support/exposition.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { HOW_TO_GET_PROMETHEUS, prometheusTools, promtool, PrometheusServer } from '../support/prometheus.js';

const title = 'a Prometheus server scraping every second counts the requests of a known load by method, route and status';
const tools = prometheusTools();

describe('metrics, as a real Prometheus reads them', function () {
  this.timeout(90_000);

  if (tools === undefined && !inCi) {
    it(`${title} — pending: no prometheus and promtool on the PATH (${HOW_TO_GET_PROMETHEUS})`);
    return;
  }

  let server: HttpServer | undefined;
  let prometheus: PrometheusServer | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await server?.close();
    prometheus = server = undefined;
  });

  it(title, async () => {
    if (tools === undefined) throw new Error(`CI needs prometheus and promtool: ${HOW_TO_GET_PROMETHEUS}`);
    server = await startHttpServer(undefined, { env: { PLANT_STORE_METRICS: 'on' }, tokens: [`${'r'.repeat(32)} plants:read`, 'w'.repeat(32)] });
    const { http } = server;
    const writer = { token: 'w'.repeat(32) };
    prometheus = await PrometheusServer.start(tools, { targets: [`127.0.0.1:${server.port}`] });
    await eventually(async () => (await prometheus!.query('up{job="plant-store"} == 1')).length === 1, { what: 'the first scrape', timeoutMs: 20_000, intervalMs: 200 });

    // The load, and what it must add up to.
    for (let id = 1; id <= 3; id++) await http.create(id, `plant ${id}`, writer);
    await http.create(1, 'again', writer); // 409
    for (let i = 0; i < 4; i++) await http.get('/plants');
    await http.get('/plants/2');
    await http.get('/plants/99'); // 404 40401
    await http.get('/plants/abc'); // 400
    await http.delete('/plants/3', writer);
    await http.delete('/plants/3', writer); // 404
    await http.get('/plants', { token: null }); // 401 missing
    await http.get('/plants', { token: 'x'.repeat(40) }); // 401 invalid
    await http.delete('/plants/1'); // 403: the read-only token
    await http.get('/no/such/path/42'); // unmatched
    await http.get(http.root('/healthz'));
    const expected: Record<string, number> = {
      'POST /plants 200': 3,
      'POST /plants 409': 1,
      'GET /plants 200': 4,
      'GET /plants/{id} 200': 1,
      'GET /plants/{id} 404': 1,
      'GET /plants/{id} 400': 1,
      'DELETE /plants/{id} 204': 1,
      'DELETE /plants/{id} 404': 1,
      'GET /plants 401': 2,
      'DELETE /plants/{id} 403': 1,
      'GET unmatched 404': 1,
      'GET /healthz 200': 1,
      'GET /openapi.json 200': 1, // the test fixture's, at start
    };
    const counted = async () => {
      const series = await prometheus!.query('plant_store_http_requests_total{job="plant-store", route!="/metrics"} > 0');
      return Object.fromEntries(series.map(({ metric, value }) => [`${metric['method']} ${metric['route']} ${metric['status']}`, Number(value[1])]));
    };
    await eventually(async () => JSON.stringify(sorted(await counted())) === JSON.stringify(sorted(expected)), {
      what: 'Prometheus to hold the load’s counts',
      timeoutMs: 20_000,
      intervalMs: 250,
      context: async () => `counted: ${JSON.stringify(sorted(await counted()))}\nexpected: ${JSON.stringify(sorted(expected))}\n${prometheus!.log()}`,
    });
    // Refusals by reason, and the storage's calls, through the same server.
    const refusals = await prometheus.query('plant_store_refusals_total > 0');
    expect(Object.fromEntries(refusals.map(({ metric, value }) => [metric['reason'], Number(value[1])]))).to.deep.equal({ missing_token: 1, invalid_token: 1, insufficient_scope: 1 });
    const adds = await prometheus.query('plant_store_storage_call_duration_seconds_count{operation="add"}');
    expect(Number(adds[0]?.value[1])).to.equal(4);
    // The scrapes themselves are requests too.
    expect(await prometheus.query('plant_store_http_requests_total{route="/metrics", status="200"} > 0')).to.have.length(1);

    // promtool: the whole exposition parses; the service's own families pass its lint as they are.
    const exposition = (await http.get(http.root('/metrics'))).text;
    const whole = await promtool(tools, ['check', 'metrics'], exposition);
    const problems = whole.output.split('\n').filter((line) => line.trim() !== '');
    expect(whole.status, whole.output).to.be.oneOf([0, 3]); // 3: lint problems only, no parse error
    for (const problem of problems) expect(problem, 'a lint problem of the service’s own metrics').not.to.match(/^plant_store_/);
    const own = await promtool(tools, ['check', 'metrics'], familiesStartingWith(exposition, 'plant_store_'));
    expect(own, own.output).to.deep.equal({ status: 0, output: '' });
  });
});

const sorted = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
