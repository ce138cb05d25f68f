import { expect } from 'chai';
import { rateLimitHeaders } from '../../adapters/http/openapi/openapi-responses.js';
import { createPlantStore, startServer, type PlantStore, type RunningServer, type ServerOptions } from '../../composition/index.js';
import { startCli, type CliServer } from '../support/cli-process.js';
import { HttpClient, type HttpResponse } from '../support/http-client.js';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver.js';

const alice = 'alice-token-0123456789abcdef';
const bob = 'bob-token-0123456789abcdef';

describe('rate limits', () => {
  let store: PlantStore;
  let server: RunningServer;
  let http: HttpClient;
  const start = async (options: Partial<ServerOptions>) => {
    store = await createPlantStore();
    server = await startServer({ store, tokens: [alice, bob], port: 0, ...options });
    http = await HttpClient.connect(server.url, [alice, bob]);
  };
  const get = (token?: string) => http.get('/plants?limit=1', { token: token ?? null });
  const post = (token: string, body: string, contentType = 'application/json') => http.post('/plants', { token, raw: body, contentType });
  afterEach(async () => {
    await server?.close(0);
    await store?.close();
  });

  it('a burst beyond the bucket gets 429 42901 with Retry-After and RateLimit headers', async () => {
    await start({ rateLimit: { perSecond: 0.5, burst: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await get(alice);
      statuses.push(response.status);
      expect(response.headers.get('ratelimit-limit')).to.equal('3');
      expect(response.headers.get('ratelimit-remaining')).to.equal(String(2 - i));
    }
    expect(statuses).to.deep.equal([200, 200, 200]);
    const refused = await get(alice);
    expect(refused.status).to.equal(429);
    expect(refused.body).to.deep.equal({ error: 42901, message: 'too many requests for this token; retry in 2 s' });
    expect(refused.headers.get('retry-after')).to.equal('2');
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it('tokens are limited independently', async () => {
    await start({ rateLimit: { perSecond: 0.5, burst: 2 } });
    expect([(await get(alice)).status, (await get(alice)).status, (await get(alice)).status]).to.deep.equal([200, 200, 429]);
    expect([(await get(bob)).status, (await get(bob)).status]).to.deep.equal([200, 200]);
  });

  it('repeated bad tokens from one address get 429 instead of more 401s, even for a good token', async () => {
    await start({ authFailuresPerMinute: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await get(`guess-${i}-0123456789abcdef`)).status);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
    const blocked = await get(alice);
    expect(blocked.status).to.equal(429);
    expect(blocked.body.error).to.equal(42901);
    expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 60);
    const missing = await get();
    expect(missing.status).to.equal(429);
  });

  it('the plant routes and the webhook delivery routes share one budget: per token, and per address for failed authentications', async () => {
    const withWebhooks = async (options: Partial<ServerOptions>) => {
      // Never called: no plant is created here. Its address only makes the delivery routes exist.
      store = await createPlantStore({ webhooks: { urls: ['http://127.0.0.1:9/hook'], secret: TEST_WEBHOOK_SECRET, allowPrivate: true } });
      server = await startServer({ store, tokens: [alice, bob], port: 0, ...options });
      http = await HttpClient.connect(server.url, [alice, bob]);
    };
    const deliveries = (token: string) => http.get('/webhooks/deliveries', { token });
    await withWebhooks({ rateLimit: { perSecond: 0.5, burst: 3 } });
    expect([(await get(alice)).status, (await deliveries(alice)).status, (await get(alice)).status]).to.deep.equal([200, 200, 200]);
    expect((await deliveries(alice)).status).to.equal(429);
    expect((await get(alice)).status).to.equal(429);
    await server.close(0);
    await store.close();

    await withWebhooks({ authFailuresPerMinute: 4 });
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await (i % 2 === 0 ? get : deliveries)(`guess-${i}-0123456789abcdef`)).status);
    expect(guesses).to.deep.equal([401, 401, 401, 401]);
    expect((await deliveries(alice)).status).to.equal(429);
    expect((await get(alice)).status).to.equal(429);
  });

  it('successful requests never count as failed authentications', async () => {
    await start({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 10; i++) expect((await get(alice)).status).to.equal(200);
  });

  it('a token out of requests gets 429 before its body is looked at: not 415, 413 or 400; routing still comes first', async () => {
    await start({ rateLimit: { perSecond: 0.5, burst: 1 } });
    expect((await get(alice)).status).to.equal(200);
    const bodies: [string, string, string | undefined][] = [
      ['text/plain (else 415)', 'hello', 'text/plain'],
      ['oversized (else 413)', JSON.stringify({ id: 1, name: 'Fern', padding: 'x'.repeat(17 * 1024) }), undefined],
      ['malformed JSON (else 400 40002)', '{"id":', undefined],
      ['an invalid plant (else 400 40001)', '{"id": 1, "name": ""}', undefined],
    ];
    for (const [what, body, contentType] of bodies) {
      const refused = await post(alice, body, contentType);
      expect(refused.status, what).to.equal(429);
      expect(refused.body.error, what).to.equal(42901);
      expect(refused.headers.get('retry-after'), what).to.match(/^[1-9]\d*$/);
    }
    expect((await http.get('/nope', { token: alice })).status).to.equal(404);
    expect((await http.request('PUT', '/plants/1', { token: alice })).status).to.equal(405);
    expect(await store.list()).to.deep.equal({ plants: [] });
  });

  it('off switch: with no limits configured, a long burst is all 200', async () => {
    await start({});
    const statuses = await Promise.all(Array.from({ length: 300 }, () => get(alice).then((r) => r.status)));
    expect(new Set(statuses)).to.deep.equal(new Set([200]));
  });
});

describe('rate limits switched off on the command', () => {
  // Beyond the defaults: a burst of 100 per token, 30 failed authentications per address.
  const requests = 150;
  const token = 'unlimited-token-0123456789abcdef';
  let server: CliServer | undefined;
  let http: HttpClient;
  const startWith = async (env: Record<string, string>, args: string[] = []) => {
    server = await startCli({ PLANT_STORE_TOKENS: token, ...env }, args);
    http = await HttpClient.connect(server.url, token);
  };
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  /** `total` GETs with `authorization`, 10 at a time, so the burst is real but gentle. */
  const burst = async (authorization: string, total = requests) => {
    const responses: HttpResponse[] = [];
    for (let sent = 0; sent < total; sent += 10) {
      responses.push(...(await Promise.all(Array.from({ length: 10 }, () => http.get('/plants?limit=1', { authorization })))));
    }
    return responses;
  };
  const limitHeaders = (responses: HttpResponse[]) => responses.filter((r) => rateLimitHeaders.some((name) => r.headers.has(name)));
  /** How many responses had each status, e.g. { 200: 140, 429: 10 }. */
  const count = (responses: HttpResponse[]) => {
    const counts: Record<number, number> = {};
    for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  };

  const switches: [string, Record<string, string>, string[]][] = [
    ['--rate-limit off --auth-failure-limit off', {}, ['--rate-limit', 'off', '--auth-failure-limit', 'off']],
    [
      'PLANT_STORE_RATE_LIMIT=off PLANT_STORE_AUTH_FAILURE_LIMIT=off',
      { PLANT_STORE_RATE_LIMIT: 'off', PLANT_STORE_AUTH_FAILURE_LIMIT: 'off' },
      [],
    ],
  ];
  for (const [how, env, args] of switches) {
    it(`${how}: ${requests} requests of one token are all 200 without RateLimit headers, ${requests} bad tokens from one address all 401`, async () => {
      await startWith(env, args);
      const good = await burst(`Bearer ${token}`);
      expect(count(good)).to.deep.equal({ 200: requests });
      expect(limitHeaders(good)).to.have.length(0);
      const bad = await burst('Bearer wrong-token-0123456789abcdef');
      expect(count(bad)).to.deep.equal({ 401: requests });
    });
  }

  it('by default such bursts meet both limits (so the tests above exceed them)', async () => {
    await startWith({});
    // Twice the burst, so that even a slow machine, refilling 50 a second, runs dry.
    const good = await burst(`Bearer ${token}`, 2 * requests);
    expect(count(good)).to.include.keys('200', '429');
    expect(good[0]!.headers.get('ratelimit-limit')).to.equal('100');
    const bad = await burst('Bearer wrong-token-0123456789abcdef');
    expect(count(bad)).to.include.keys('401', '429');
  });
});
