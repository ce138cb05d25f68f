import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createPlantStore, MemoryPlantRepository, startServer, type PlantStore, type RunningServer } from '../../composition/index.js';
import { createLogger } from '../../composition/server/logger.js';
import { HttpClient } from '../support/http-client.js';

const token = 'log-test-token-0123456789abcdef';

describe('request log', () => {
  let store: PlantStore;
  let server: RunningServer;
  let http: HttpClient;
  let captured: string;
  const sink = () =>
    new Writable({
      write(chunk, _encoding, done) {
        captured += chunk;
        done();
      },
    });
  beforeEach(async () => {
    captured = '';
    store = await createPlantStore();
    server = await startServer({ store, tokens: [token], port: 0, log: createLogger('info', sink()) });
    http = await HttpClient.connect(server.url, token);
    // Each test reads the lines of its own requests: the client's fetch of /openapi.json is not one.
    captured = '';
  });
  afterEach(async () => {
    await server.close(0);
    await store.close();
  });

  const lines = () => captured.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

  it('writes one JSON line per request with method, route, status, duration and request id', async () => {
    const created = await http.create(1, 'Fern', { headers: { 'x-request-id': 'client-chosen-42' } });
    const fetched = await http.get('/plants/1?x=secret-looking');
    await http.get('/plants', { token: `wrong-${token}` });
    expect(created.headers.get('x-request-id')).to.equal('client-chosen-42');
    const generatedId = fetched.headers.get('x-request-id')!;
    expect(generatedId).to.match(/^[0-9a-f-]{36}$/);

    const requests = lines().filter((line) => line['msg'] === 'request');
    expect(requests).to.have.length(3);
    expect(requests[0]).to.include({ requestId: 'client-chosen-42', method: 'POST', route: '/plants', status: 200, tokenHolder: 'token-1' });
    expect(requests[1]).to.include({ requestId: generatedId, method: 'GET', route: '/plants/:id', path: '/plants/1', status: 200 });
    expect(requests[2]).to.include({ method: 'GET', status: 401, error: 40102, level: 30 });
    expect(requests[0]).not.to.have.property('error');
    for (const line of requests) expect(line['durationMs']).to.be.a('number').and.at.least(0);
    expect(captured).not.to.include('secret-looking');
  });

  it('never contains the token, whatever the request carries', async () => {
    await http.get('/plants');
    await http.get('/plants', { token: `${token}x` });
    await http.get(`/plants?token=${token}`, { authorization: `Basic ${token}` });
    // A bare fetch: the 404 repeats the path it was asked for, token included, which the
    // client's leak check would flag; what is tested here is the log.
    await fetch(`${server.url}/nowhere/${token}`, { headers: { authorization: `Bearer ${token}` } });
    // Pasted where an id goes: the route matches (a 400 and a 404), so the route is logged instead of the path.
    const pasted = [await fetch(`${server.url}/plants/${token}`, { headers: { authorization: `Bearer ${token}` } }), await fetch(`${server.url}/plants/${token}`, { method: 'DELETE' })];
    expect(pasted.map((answer) => answer.status)).to.deep.equal([400, 401]);
    const logged = lines().filter((line) => line['msg'] === 'request');
    expect(logged).to.have.length(6);
    expect(logged.slice(4).map((line) => [line['route'], line['path']])).to.deep.equal([
      ['/plants/:id', '/plants/:id'],
      ['/plants/:id', '/plants/:id'],
    ]);
    expect(captured).not.to.include(token);
    expect(captured).not.to.include(token.slice(0, 16));
  });

  it('a 5xx makes one line, at error, with the cause and the request id the client saw', async () => {
    class FailingRepository extends MemoryPlantRepository {
      override async page(): Promise<never> {
        throw new Error('disk on fire');
      }
    }
    const failing = await createPlantStore({ storage: { repository: new FailingRepository(), description: 'failing' } });
    const failingServer = await startServer({ store: failing, tokens: [token], port: 0, log: createLogger('info', sink()) });
    try {
      const answer = await (await HttpClient.connect(failingServer.url, token)).get('/plants', { expectServerError: true });
      expect(answer.status).to.equal(500);
      const line = lines().find((l) => l['status'] === 500)!;
      expect(line).to.include({ level: 50, error: 50001, msg: 'request', requestId: answer.headers.get('x-request-id') });
      expect((line['err'] as { message: string }).message).to.equal('disk on fire');
      expect(lines().filter((l) => l['requestId'] === line['requestId'])).to.have.length(1);
    } finally {
      await failingServer.close(0);
      await failing.close();
    }
  });

  it('a log that throws changes no answer', async () => {
    const broken = { info: () => { throw new Error('log broken'); }, error: () => { throw new Error('log broken'); } };
    const other = await startServer({ store, tokens: [token], port: 0, log: broken });
    try {
      const client = await HttpClient.connect(other.url, token);
      const ok = await client.get('/plants');
      expect(ok.status).to.equal(200);
      expect(ok.body).to.deep.equal([]);
      const refused = await client.get('/plants', { token: null });
      expect(refused.status).to.equal(401);
      expect(refused.body).to.include({ error: 40101 });
    } finally {
      await other.close(0);
    }
  });

  it('an unsane X-Request-Id is replaced, not echoed', async () => {
    const response = await http.get('/healthz', { token: null, headers: { 'x-request-id': 'a b<script>' } });
    expect(response.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
