import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

describe('change feed: a follower that stops reading', function () {
  this.timeout(90_000);
  let server: HttpServer;
  let reader: FeedClient | undefined;
  let stalled: Socket | undefined;
  afterEach(async () => {
    reader?.close();
    stalled?.destroy();
    await server?.close();
  });

  it('is ended by the server once its unread buffer is full and stays so for 10 s; a reading follower gets every change meanwhile', async () => {
    server = await startHttpServer();
    reader = await new FeedClient(`${server.url}/plants/changes`, server.token).open();
    // A raw client that sends the request and never reads a byte of the answer.
    stalled = connect(server.port, '127.0.0.1');
    stalled.on('error', () => {});
    await new Promise((resolve) => stalled!.once('connect', resolve));
    stalled.write(`GET /plants/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    stalled.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Past what the kernel's socket buffers take on loopback (a few MB): about 5 MB of events.
    const count = 60_000;
    for (let id = 1; id <= count; id++) await server.store.create({ id, name: `plant number ${id} with a longer name` });
    await reader.received(count, 30_000);
    // A paused socket never reads the end, so the server's side says it: the stream's request
    // line is logged when it ends, and the reading follower's is still open.
    await eventually(() => server.log().includes('/plants/changes'), { timeoutMs: 30_000, what: 'the server to end the stalled stream' });
    expect(reader.opened, 'the reading follower was never cut (it would have reconnected)').to.equal(1);
    expect(reader.changes.length, 'the reading follower, each change once').to.equal(count);
    expect(reader.changes.at(-1)!.data.id).to.equal(count);
    expect((await server.http.get('/plants?limit=1')).status, 'other requests served').to.equal(200);
  });
});
