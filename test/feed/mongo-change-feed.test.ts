import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { openStorage } from '../../composition/store/storage.js';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';
import { mongoStorageFactory, requireDatabase, uniqueCollectionName, dropCollection, testDatabaseName, type TestDatabase } from '../support/test-database.js';
import { changeFeedSuite } from './change-feed-suite.js';

describe('change feed on MongoDB storage', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });
  // At least once: a resumed follower reads the window before its cursor again.
  changeFeedSuite('mongodb', mongoStorageFactory(() => database.uri), false);

  it('with the change log off: a create or delete is one write of the plant alone, nothing goes to <collection>_changes, and the storage has no feed', async () => {
    const collectionName = uniqueCollectionName();
    const storage = await openStorage({ mongodbUri: database.uri, databaseName: testDatabaseName(database.uri), collectionName, changeLog: false });
    const client = new MongoClient(database.uri);
    try {
      expect(storage.repository.changes).to.equal(undefined);
      expect(await storage.repository.add({ id: 1, name: 'one' })).to.equal(true);
      expect(await storage.repository.add({ id: 2, name: 'two' })).to.equal(true);
      expect(await storage.repository.remove(1)).to.equal(true);
      const db = client.db(testDatabaseName(database.uri));
      expect(await db.collection(collectionName).find({}).toArray()).to.deep.equal([{ _id: 2, name: 'two' }]);
      expect(await db.collection(`${collectionName}_changes`).countDocuments()).to.equal(0);
      // Served over HTTP, the feed is no route.
      const server = await startHttpServer(async () => ({ repository: storage.repository, close: async () => {} }));
      try {
        const answer = await fetch(`${server.url}/plants/changes`, { headers: { Authorization: `Bearer ${server.token}` } });
        expect([answer.status, ((await answer.json()) as { error: number }).error]).to.deep.equal([404, 40400]);
      } finally {
        await server.close();
      }
    } finally {
      await storage.close();
      await client.close();
      await dropCollection(database.uri, collectionName);
      await dropCollection(database.uri, `${collectionName}_changes`);
    }
  });

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
