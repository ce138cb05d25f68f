import { expect } from 'chai';
import { FeedClient } from '../support/feed-client.js';
import { eventually } from '../support/eventually.js';
import { randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { RawConnection } from '../support/raw-http.js';

/**
 * The change feed over HTTP, driven by a real EventSource client: live order, resuming
 * after a disconnect, resets, sandboxes, scopes. `exactly`: resuming yields each later
 * change once (memory, disk); otherwise at least once (MongoDB), repeats told apart by id.
 */
export function changeFeedSuite(storageName: string, storage: StorageFactory, exactly: boolean): void {
  describe(`change feed on ${storageName} storage`, function () {
    this.timeout(60_000);
    let server: HttpServer;
    const tokens = { operator: randomToken(), reader: randomToken(), writer: randomToken(), a: randomToken(), b: randomToken() };
    const clients: FeedClient[] = [];
    const feedUrl = () => `${server.url}/plants/changes`;
    const follow = (token: string | undefined, options: { lastEventId?: string; query?: string } = {}) => {
      const client = new FeedClient(`${feedUrl()}${options.query ?? ''}`, token, options);
      clients.push(client);
      return client.open();
    };

    beforeEach(async () => {
      server = await startHttpServer(storage, {
        tokens: [tokens.operator, `${tokens.reader} plants:read`, `${tokens.writer} plants:write`, `${tokens.a} sandbox=garden-a`, `${tokens.b} sandbox=garden-b`],
      });
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      await server?.close();
    });

    it('live: creates and deletes arrive in commit order, each with its cursor as id', async () => {
      const feed = await follow(tokens.reader);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const http = server.http;
      for (const id of [3, 1, 2]) expect((await http.post('/plants', { json: { id, name: `plant ${id}`, ...(id === 1 && { tag: 'tropical' }) } })).status).to.equal(200);
      expect((await http.delete('/plants/3')).status).to.equal(204);
      const events = await feed.received(4);
      expect(events.map((event) => [event.type, event.data])).to.deep.equal([
        ['plant.created', { id: 3, name: 'plant 3' }],
        ['plant.created', { id: 1, name: 'plant 1', tag: 'tropical' }],
        ['plant.created', { id: 2, name: 'plant 2' }],
        ['plant.deleted', { id: 3 }],
      ]);
      expect(new Set(events.map((event) => event.id)).size, 'every cursor distinct').to.equal(4);
      expect(feed.events.filter((event) => event.type === 'feed.reset')).to.deep.equal([]);
    });

    it(`disconnect, 100 changes, reconnect with the last id: ${exactly ? 'exactly' : 'at least'} those 100`, async () => {
      const http = server.http;
      const first = await follow(tokens.operator);
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let id = 1; id <= 5; id++) await http.create(id, `before ${id}`);
      const seen = await first.received(5);
      const last = seen.at(-1)!.id;
      first.close();
      // 100 changes while nobody follows: creates, and deletes of some of them.
      for (let id = 6; id <= 85; id++) await http.create(id, `while away ${id}`);
      for (let id = 6; id <= 25; id++) await http.delete(`/plants/${id}`);
      const again = await follow(tokens.operator, { lastEventId: last });
      await again.received(100);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const expected = [...Array.from({ length: 80 }, (_, i) => `plant.created ${i + 6}`), ...Array.from({ length: 20 }, (_, i) => `plant.deleted ${i + 6}`)];
      const received = again.changes.map((event) => `${event.type} ${event.data.id}`);
      // Exactly: each once, in commit order, nothing from before the cursor. At least once:
      // every one of them, a repeat carrying the id it had.
      if (exactly) expect(received, 'each once, in commit order').to.deep.equal(expected);
      else expect([...new Map(again.changes.map((event) => [event.id, `${event.type} ${event.data.id}`])).values()]).to.include.members(expected);
      expect(again.events.filter((event) => event.type === 'feed.reset')).to.deep.equal([]);
    });

    it('a malformed, forged or foreign cursor starts with feed.reset (never an error), then follows live', async () => {
      await server.http.create(1, 'one');
      for (const cursor of ['nonsense', 'ffffffff-1', `${'x'.repeat(500)}`, '-', '0', '{"a":1}']) {
        const feed = await follow(tokens.operator, { lastEventId: cursor });
        await eventually(() => feed.events.length >= 1, { what: `the reset for ${cursor}` });
        expect(feed.events[0]!.type, cursor).to.equal('feed.reset');
        expect(feed.events[0]!.data).to.deep.equal({});
        feed.close();
      }
      const viaQuery = await follow(tokens.operator, { query: '?after=garbage' });
      await eventually(() => viaQuery.events.length >= 1);
      expect(viaQuery.events[0]!.type).to.equal('feed.reset');
      await server.http.create(2, 'two');
      expect((await viaQuery.received(1)).map((event) => event.data.id)).to.deep.equal([2]);
    });

    it('each sandbox follows its own changes only, with the same ids in both', async () => {
      const [a, b] = [await follow(tokens.a), await follow(tokens.b)];
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [httpA, httpB] = [server.http.withToken(tokens.a), server.http.withToken(tokens.b)];
      await httpA.create(1, 'a one');
      await httpB.create(1, 'b one');
      await httpB.delete('/plants/1');
      await httpA.create(2, 'a two');
      expect((await a.received(2)).map((event) => [event.type, event.data.name ?? null])).to.deep.equal([
        ['plant.created', 'a one'],
        ['plant.created', 'a two'],
      ]);
      expect((await b.received(2)).map((event) => [event.type, event.data.name ?? null])).to.deep.equal([
        ['plant.created', 'b one'],
        ['plant.deleted', null],
      ]);
      // A cursor of one sandbox's stream used in another: it shows nothing of the first.
      const crossed = await follow(tokens.b, { lastEventId: a.changes[0]!.id });
      await server.http.withToken(tokens.b).create(7, 'b seven');
      const events = await crossed.received(1);
      expect(events.every((event) => event.data.name === undefined || event.data.name.startsWith('b'))).to.equal(true);
    });

    // Memory and disk number every sandbox's changes in one sequence: in the clear, a cursor
    // would show a sandbox how much the others write (MongoDB's are times and random ids).
    if (exactly) {
      it('a stream\'s first id tells a sandbox nothing of another\'s writes: sealed, and made afresh on every open', async () => {
        const firstId = async (token: string): Promise<string> => {
          const controller = new AbortController();
          const answer = await fetch(feedUrl(), { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
          const reader = answer.body!.getReader();
          let text = '';
          try {
            while (!/^id: ?.*\n/m.test(text)) {
              const { value, done } = await reader.read();
              if (done) break;
              text += Buffer.from(value).toString();
            }
          } finally {
            controller.abort();
          }
          return /^id: ?(.*)\n/m.exec(text)![1]!;
        };
        const start = await firstId(tokens.a);
        for (let id = 1; id <= 10; id++) await server.http.withToken(tokens.b).create(id, `b ${id}`);
        const [next, nextAgain] = [await firstId(tokens.a), await firstId(tokens.a)];
        for (const id of [start, next, nextAgain]) expect(id).to.match(/^[0-9a-f]{8}-[A-Za-z0-9_-]{22}$/);
        expect(nextAgain, 'nothing written between the two: a different id all the same').to.not.equal(next);
        // Resumed from the first, after b's ten: a's next create, and nothing else.
        const resumed = await follow(tokens.a, { lastEventId: start });
        await server.http.withToken(tokens.a).create(1, 'a one');
        expect((await resumed.received(1)).map((event) => [event.type, event.data.name])).to.deep.equal([['plant.created', 'a one']]);
        expect(resumed.events.map((event) => event.type)).to.deep.equal(['plant.created']);
      });
    }

    it('15 streams at once raise no warning (each listens for the server closing)', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on('warning', onWarning);
      try {
        await Promise.all(Array.from({ length: 15 }, () => follow(tokens.reader)));
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).to.deep.equal([]);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('needs a token with plants:read: 401 without, 403 for a write-only token; the token may come as access_token', async () => {
      const none = await fetch(feedUrl());
      expect([none.status, ((await none.json()) as { error: number }).error]).to.deep.equal([401, 40101]);
      const writeOnly = await fetch(feedUrl(), { headers: { Authorization: `Bearer ${tokens.writer}` } });
      expect([writeOnly.status, ((await writeOnly.json()) as { error: number }).error]).to.deep.equal([403, 40301]);
      const forged = await fetch(`${feedUrl()}?access_token=${randomToken()}`);
      expect(forged.status).to.equal(401);
      const viaQuery = new AbortController();
      const answer = await fetch(`${feedUrl()}?access_token=${tokens.reader}`, { signal: viaQuery.signal });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
      expect(answer.headers.get('cache-control')).to.equal('no-store');
      viaQuery.abort();
      // The 401s and the 403 above are logged at once; the stream's line (200) when it ends.
      const streamLines = () => server.log().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request' && line['path'] === '/plants/changes' && line['status'] === 200);
      await eventually(() => streamLines().length === 1, { what: 'the request line of the ended stream' });
      expect(server.log()).not.to.include(tokens.reader);
    });

    it('HEAD answers the stream\'s headers at once, without a body, behind the same token check', async () => {
      const head = await fetch(feedUrl(), { method: 'HEAD', headers: { Authorization: `Bearer ${tokens.reader}` }, signal: AbortSignal.timeout(5000) });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
      expect(head.headers.get('cache-control')).to.equal('no-store');
      expect(await head.text()).to.equal('');
      const none = await fetch(feedUrl(), { method: 'HEAD', signal: AbortSignal.timeout(5000) });
      expect(none.status).to.equal(401);
    });

    it('any other method (CONNECT too) is 405 40501 with Allow: HEAD, GET, token or not (not a plant route with the id "changes"); OPTIONS lists them', async () => {
      for (const method of ['POST', 'DELETE', 'PUT', 'PATCH', 'PROPFIND']) {
        for (const headers of [{}, { Authorization: `Bearer ${tokens.operator}` }] as Record<string, string>[]) {
          const answer = await fetch(feedUrl(), { method, headers, signal: AbortSignal.timeout(5000) });
          expect([answer.status, ((await answer.json()) as { error: number }).error], method).to.deep.equal([405, 40501]);
          expect(answer.headers.get('allow'), method).to.equal('HEAD, GET');
        }
      }
      // CONNECT, which fetch cannot send, on a socket of its own: this server answers it like any method.
      const raw = await RawConnection.open(server);
      try {
        raw.write('CONNECT /plants/changes HTTP/1.1\r\nHost: x\r\n\r\n');
        const connect = await raw.nextResponse('CONNECT /plants/changes');
        expect([connect.status, (connect.body as { error: number }).error, connect.headers.get('allow')]).to.deep.equal([405, 40501, 'HEAD, GET']);
      } finally {
        raw.destroy();
      }
      const options = await fetch(feedUrl(), { method: 'OPTIONS', signal: AbortSignal.timeout(5000) });
      expect([options.status, options.headers.get('allow'), await options.text()]).to.deep.equal([200, 'HEAD, GET', '']);
      // A plant path's answers are as they were.
      const plant = await fetch(`${server.url}/plants/1`, { method: 'POST', signal: AbortSignal.timeout(5000) });
      expect([plant.status, plant.headers.get('allow')]).to.deep.equal([405, 'HEAD, GET, DELETE']);
    });

    it('closing the server ends open streams at once', async () => {
      const feeds = await Promise.all([follow(tokens.operator), follow(tokens.a)]);
      const started = performance.now();
      await server.close();
      expect(performance.now() - started, 'ms to close with two streams open').to.be.below(1000);
      for (const feed of feeds) feed.close();
    });
  });
}
