import { expect } from 'chai';
import { createPlantStore, startServer, type PlantStore, type RunningServer, type ServerOptions } from '../../composition/index.js';

const alice = 'alice-token-0123456789abcdef';
const bob = 'bob-token-0123456789abcdef';

describe('rate limits', () => {
  let store: PlantStore;
  let server: RunningServer;
  const start = async (options: Partial<ServerOptions>) => {
    store = await createPlantStore();
    server = await startServer({ store, tokens: [alice, bob], port: 0, ...options });
  };
  const get = (token?: string) =>
    fetch(`${server.url}/plants?limit=1`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
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
    expect(await refused.json()).to.deep.equal({ error: 42901, message: 'too many requests for this token; retry in 2 s' });
    expect(refused.headers.get('retry-after')).to.equal('2');
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it('tokens are limited independently', async () => {
    await start({ rateLimit: { perSecond: 0.5, burst: 2 } });
    expect([(await get(alice)).status, (await get(alice)).status, (await get(alice)).status]).to.deep.equal([200, 200, 429]);
    expect([(await get(bob)).status, (await get(bob)).status]).to.deep.equal([200, 200]);
  });

  it('the bucket refills at the configured rate', async () => {
    await start({ rateLimit: { perSecond: 20, burst: 1 } });
    expect((await get(alice)).status).to.equal(200);
    expect((await get(alice)).status).to.equal(429);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await get(alice)).status).to.equal(200);
  });

  it('repeated bad tokens from one address get 429 instead of more 401s, even for a good token', async () => {
    await start({ authFailuresPerMinute: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await get(`guess-${i}-0123456789abcdef`)).status);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
    const blocked = await get(alice);
    expect(blocked.status).to.equal(429);
    expect((await blocked.json()).error).to.equal(42901);
    expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 60);
    const missing = await get();
    expect(missing.status).to.equal(429);
  });

  it('successful requests never count as failed authentications', async () => {
    await start({ authFailuresPerMinute: 2 });
    for (let i = 0; i < 10; i++) expect((await get(alice)).status).to.equal(200);
  });

  it('off switch: with no limits configured, a long burst is all 200', async () => {
    await start({});
    const statuses = await Promise.all(Array.from({ length: 300 }, () => get(alice).then((r) => r.status)));
    expect(new Set(statuses)).to.deep.equal(new Set([200]));
  });
});
