import { expect } from 'chai';
import { createPlantStore, ErrorCode, PlantStoreError, startServer, type PlantStore, type PlantStoreOptions, type RunningServer, type ServerOptions } from '../../composition/index.js';
import { HttpClient } from '../support/http-client.js';
import { eventually } from '../support/eventually.js';
import { samplesOf, valueOf, type Sample } from '../support/exposition.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

const reader = 'reader-token-0123456789abcdef';
const writer = 'writer-token-0123456789abcdef';

describe('GET /metrics and what it counts (HTTP, refusals, storage)', () => {
  let store: PlantStore | undefined;
  let server: RunningServer | undefined;
  let http: HttpClient;
  const start = async (options: Partial<ServerOptions> = {}, storeOptions: PlantStoreOptions = { metrics: true }) => {
    store = await createPlantStore(storeOptions);
    server = await startServer({ store, tokens: [{ token: reader, scopes: ['plants:read'] }, writer], port: 0, metrics: true, ...options });
    http = await HttpClient.connect(server.url, [reader, writer], options.basePath ?? '');
  };
  afterEach(async () => {
    await server?.close(0);
    await store?.close();
    server = store = undefined;
  });
  const scrape = async (): Promise<Sample[]> => {
    const answer = await http.get(http.root('/metrics'), { token: null });
    expect(answer.status, answer.text).to.equal(200);
    return samplesOf(answer.text);
  };
  const requests = (samples: Sample[]) =>
    Object.fromEntries(samples.filter((s) => s.name === 'plant_store_http_requests_total' && s.labels['route'] !== '/metrics').map((s) => [`${s.labels['method']} ${s.labels['route']} ${s.labels['status']}`, s.value]));

  it('is 404 40400 with metrics off (the default), and not in the OpenAPI document', async () => {
    await start({ metrics: undefined }, {});
    const answer = await http.get(http.root('/metrics'), { token: null });
    expect({ status: answer.status, body: answer.body }).to.deep.equal({ status: 404, body: { error: 40400, message: 'no route for GET /metrics' } });
    expect(http.target.openapi['paths']).not.to.have.property('/metrics');
  });

  it('answers the text format 0.0.4 without a token, at the root whatever the base path', async () => {
    await start({ basePath: '/v1' });
    const answer = await http.get(http.root('/metrics'), { token: null });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(http.target.openapi['paths']).to.have.property('/metrics');
    expect((await http.get('/metrics', { token: null })).status, '/v1/metrics').to.equal(404);
    const samples = samplesOf(answer.text);
    for (const name of ['plant_store_feed_streams', 'plant_store_sandboxes', 'plant_store_webhook_pending', 'plant_store_webhook_oldest_pending_seconds']) {
      expect(valueOf(samples, name), name).to.equal(0);
    }
    expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'), "Node's default metrics").to.equal(true);
  });

  it('plant_store_sandboxes counts the self-service sandboxes (read after a scrape, so a later scrape shows it); a full sandbox counts as a quota refusal', async () => {
    const served: HttpServer = await startHttpServer(undefined, { env: { PLANT_STORE_METRICS: 'on', PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_MAX_PLANTS: '1' } });
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 3; i++) tokens.push((await served.http.post('/sandboxes', { token: null })).body.token);
      const scraped = async () => samplesOf((await served.http.get(served.http.root('/metrics'), { token: null })).text);
      await eventually(async () => valueOf(await scraped(), 'plant_store_sandboxes') === 3, { timeoutMs: 5000 });
      const full = served.http.withToken(tokens[0]!);
      expect((await full.create(1)).status).to.equal(200);
      expect((await full.create(2)).status).to.equal(403);
      expect(valueOf(await scraped(), 'plant_store_refusals_total', { reason: 'quota' })).to.equal(1);
    } finally {
      await served.close();
    }
  });

  it('plant_store_feed_streams counts the change streams open now', async () => {
    const served: HttpServer = await startHttpServer(undefined, { env: { PLANT_STORE_METRICS: 'on' } });
    const streams = [new AbortController(), new AbortController()];
    try {
      const streamsNow = async () => valueOf(samplesOf((await served.http.get(served.http.root('/metrics'), { token: null })).text), 'plant_store_feed_streams');
      for (const stream of streams) expect((await fetch(`${served.url}/plants/changes`, { headers: { Authorization: `Bearer ${served.token}` }, signal: stream.signal })).status).to.equal(200);
      await eventually(async () => (await streamsNow()) === 2, { timeoutMs: 5000 });
      streams[0]!.abort();
      await eventually(async () => (await streamsNow()) === 1, { timeoutMs: 5000 });
    } finally {
      for (const stream of streams) stream.abort();
      await served.close();
    }
  });

  it('counts requests by method, route template and status (unknown paths as unmatched), with their durations', async () => {
    await start();
    await http.create(7, 'Fern', { token: writer });
    await http.get('/plants/7');
    await http.get('/plants/8');
    await http.get('/plants?limit=2');
    await http.request('PUT', '/plants/7', { json: {} });
    await http.get('/plants/7/leaves/secret-looking-42');
    const samples = await scrape();
    expect(requests(samples)).to.deep.equal({
      'GET /openapi.json 200': 1,
      'POST /plants 200': 1,
      'GET /plants/{id} 200': 1,
      'GET /plants/{id} 404': 1,
      'GET /plants 200': 1,
      'PUT unmatched 405': 1,
      'GET unmatched 404': 1,
    });
    expect(valueOf(samples, 'plant_store_http_request_duration_seconds_count', { method: 'GET', route: '/plants/{id}' })).to.equal(2);
    expect(valueOf(samples, 'plant_store_http_request_duration_seconds_bucket', { method: 'GET', route: '/plants/{id}', le: '+Inf' })).to.equal(2);
    expect(valueOf(samples, 'plant_store_http_request_duration_seconds_sum', { method: 'GET', route: '/plants/{id}' })).to.be.greaterThan(0).and.below(5);
    // The scrape itself is counted once answered: the next scrape sees it.
    expect(valueOf(await scrape(), 'plant_store_http_requests_total', { route: '/metrics', status: '200' })).to.equal(1);
  });

  it('counts refusals by reason: no token, an unknown token, a missing scope, the rate limit', async () => {
    await start({ rateLimit: { perSecond: 0.001, burst: 1 } });
    await http.get('/plants', { token: null });
    await http.get('/plants', { token: `${reader}-unknown` });
    await http.delete('/plants/1');
    await http.get('/plants');
    expect((await http.get('/plants')).status).to.equal(429);
    const samples = await scrape();
    const refusals = Object.fromEntries(samples.filter((s) => s.name === 'plant_store_refusals_total').map((s) => [s.labels['reason'], s.value]));
    expect(refusals).to.deep.equal({ missing_token: 1, invalid_token: 1, insufficient_scope: 1, rate_limit: 1, auth_failure_limit: 0, quota: 0 });
  });

  it('counts a refusal by the failed-authentication limit as such, not as the rate limit', async () => {
    await start({ authFailuresPerMinute: 1 });
    await http.get('/plants', { token: null });
    const refused = await http.get('/plants');
    expect(refused.status).to.equal(429);
    const samples = await scrape();
    expect(valueOf(samples, 'plant_store_refusals_total', { reason: 'auth_failure_limit' })).to.equal(1);
    expect(valueOf(samples, 'plant_store_refusals_total', { reason: 'rate_limit' })).to.equal(0);
  });

  it('served for a store made without metrics: the HTTP and Node metrics only', async () => {
    await start({}, {});
    await http.get('/plants');
    const samples = await scrape();
    expect(requests(samples)).to.include({ 'GET /plants 200': 1 });
    expect(samples.filter((s) => s.name.startsWith('plant_store_storage_'))).to.deep.equal([]);
  });

  it('two servers of one store count into one set of series', async () => {
    await start();
    const second = await startServer({ store: store!, tokens: [reader], port: 0, metrics: true });
    try {
      const other = await HttpClient.connect(second.url, reader);
      await other.get('/plants');
      await http.get('/plants');
      const samples = await scrape();
      expect(valueOf(samples, 'plant_store_http_requests_total', { method: 'GET', route: '/plants', status: '200' })).to.equal(2);
      expect(valueOf(samples, 'plant_store_http_request_duration_seconds_count', { method: 'GET', route: '/plants' })).to.equal(2);
    } finally {
      await second.close(0);
    }
  });
});

describe('storage calls in the metrics, on a server as the command builds it', () => {
  let server: HttpServer;
  beforeEach(async () => {
    server = await startHttpServer(undefined, { env: { PLANT_STORE_METRICS: 'on' } });
  });
  afterEach(() => server.close());

  it('times every call by operation, and counts the failed ones while storage is down', async () => {
    const { http } = server;
    await http.create(1);
    await http.get('/plants');
    server.breakStorage(new PlantStoreError(ErrorCode.StorageUnavailable, 'storage is unavailable'));
    expect((await http.get('/plants')).status).to.equal(503);
    expect((await http.get(http.root('/readyz'))).status).to.equal(503);
    server.breakStorage(undefined);
    const samples = samplesOf((await http.get(http.root('/metrics'))).text);
    const calls = (operation: string) => valueOf(samples, 'plant_store_storage_call_duration_seconds_count', { operation });
    const failures = (operation: string) => valueOf(samples, 'plant_store_storage_failures_total', { operation });
    expect({ add: calls('add'), page: calls('page'), ping: calls('ping'), findById: calls('findById') }).to.deep.equal({ add: 1, page: 2, ping: 1, findById: 0 });
    expect({ add: failures('add'), page: failures('page'), ping: failures('ping') }).to.deep.equal({ add: 0, page: 1, ping: 1 });
    expect(valueOf(samples, 'plant_store_http_requests_total', { method: 'GET', route: '/plants', status: '503' })).to.equal(1);
  });
});
