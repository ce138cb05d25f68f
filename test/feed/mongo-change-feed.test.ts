import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';
import { mongoStorageFactory, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { changeFeedSuite } from './change-feed-suite.js';

describe('change feed on MongoDB storage', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });
  // At least once: a resumed follower reads the window before its cursor again.
  changeFeedSuite('mongodb', mongoStorageFactory(() => database.uri), false);

  describe('retention', () => {
    const token = randomToken();
    let server: HttpServer | undefined;
    const clients: FeedClient[] = [];
    const follow = (lastEventId?: string) => {
      const client = new FeedClient(`${server!.url}/plants/changes`, token, lastEventId === undefined ? {} : { lastEventId });
      clients.push(client);
      return client.open();
    };
    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      await server?.close();
    });

    it('a cursor older than retention starts with feed.reset, then follows live', async () => {
      // The shortest retention: the store prunes every 250 ms what is older than 1 s.
      server = await startHttpServer(mongoStorageFactory(() => database.uri), { tokens: [token], env: { PLANT_STORE_FEED_RETENTION: '1s' } });
      const first = await follow();
      await server.http.create(1, 'one');
      const [created] = await first.received(1);
      first.close();
      const fresh = await follow(created!.id);
      await server.http.create(2, 'two');
      await eventually(() => fresh.changes.some((event) => event.data.id === 2), { what: 'within retention: resumed' });
      expect(fresh.events.filter((event) => event.type === 'feed.reset')).to.deep.equal([]);
      fresh.close();

      await new Promise((resolve) => setTimeout(resolve, 1600));
      const stale = await follow(created!.id);
      await eventually(() => stale.events.length >= 1, { what: 'the first event' });
      expect(stale.events[0]!.type).to.equal('feed.reset');
      await server.http.create(3, 'three');
      expect((await stale.received(1)).map((event) => event.data.id), 'then live, from now').to.deep.equal([3]);
    });
  });
});
