import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';

describe('change streams open at once: bounded per token and per server', function () {
  this.timeout(30_000);
  let server: HttpServer;
  const tokens = { a: randomToken(), b: randomToken() };
  const clients: FeedClient[] = [];
  beforeEach(async () => {
    server = await startHttpServer(undefined, { tokens: [tokens.a, tokens.b], env: { PLANT_STORE_FEED_STREAMS: '3', PLANT_STORE_FEED_STREAMS_PER_TOKEN: '2' } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server.close();
  });
  const follow = async (token: string) => {
    const client = new FeedClient(`${server.url}/plants/changes`, token);
    clients.push(client);
    return client.open();
  };
  const refusal = async (token: string) => {
    const answer = await fetch(`${server.url}/plants/changes`, { headers: { authorization: `Bearer ${token}` } });
    return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.json() };
  };

  it('past the token\'s 2, 429 42901 with Retry-After; past the server\'s 3, the same for any token; a stream that ends makes room', async () => {
    const [first] = [await follow(tokens.a), await follow(tokens.a)];
    expect(await refusal(tokens.a)).to.deep.equal({ status: 429, retryAfter: '5', body: { error: 42901, message: '2 change streams are open for this token, the most it may have; retry in 5 s' } });
    await follow(tokens.b);
    expect(await refusal(tokens.b)).to.deep.equal({ status: 429, retryAfter: '5', body: { error: 42901, message: '3 change streams are open on this server, the most it keeps; retry in 5 s' } });
    // The refused ones took nothing: one ended, one more opens, and it follows.
    first!.close();
    await eventually(async () => (await fetch(`${server.url}/healthz`)).ok && server.log().includes('"path":"/plants/changes","status":200'), { what: 'the ended stream logged' });
    const again = await follow(tokens.b);
    await server.http.create(1, 'one');
    expect((await again.received(1)).map((event) => event.data.id)).to.deep.equal([1]);
  });
});
