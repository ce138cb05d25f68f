import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { collectionsOf } from '../../adapters/storage/mongo/mongo-collections.js';
import type { PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { ErrorCode } from '../../core/index.js';
import { expectStoreError } from '../support/expect-error.js';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';
import { dropCollection, requireDatabase, testDatabaseName, uniqueCollectionName, type TestDatabase } from '../support/test-database.js';
import { failingInserts } from '../support/failing-inserts.js';

// A server that stops between the two steps of a write: its plant write lands, its copy into
// the change log does not. Played here by a repository whose every insert into the log fails
// (as if the process died there), beside a real server on the same collections, whose store's
// sweeper must copy the stranded changes so that its followers get them, in order.

/** Longest call of the serving repository: past it, a change left in a document is stranded. */
const TIMEOUT_MS = 1000;

describe('change feed on MongoDB: a writer that stops between writing a change and logging it', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let client: MongoClient | undefined;
  let server: HttpServer | undefined;
  let feed: FeedClient | undefined;
  const collectionName = uniqueCollectionName();
  const token = randomToken();
  before(async function () {
    database = await requireDatabase(this);
  });
  after(async () => {
    feed?.close();
    await server?.close();
    await client?.close();
    if (database) for (const name of [collectionName, `${collectionName}_changes`]) await dropCollection(database.uri, name);
  });

  it('the plant write lands, the copy does not: the sweeper copies the changes later, and a follower gets them in order', async () => {
    const databaseName = testDatabaseName(database.uri);
    const serving = async () => {
      const repository = await MongoPlantRepository.connect(database.uri, { databaseName, collectionName, timeoutMS: TIMEOUT_MS });
      return { repository, close: () => repository.close() };
    };
    server = await startHttpServer(serving, { tokens: [token] });
    feed = await new FeedClient(`${server.url}/plants/changes`, token).open();
    client = new MongoClient(database.uri);
    const collections = collectionsOf(client, databaseName, collectionName, 5000);
    const dying = MongoPlantRepository.over({ ...collections, changes: failingInserts(collections.changes!) });
    const plants = client.db(databaseName).collection<PlantDocument>(collectionName);

    await expectStoreError(dying.add({ id: 7, name: 'Fern' }), ErrorCode.StorageUnavailable);
    expect((await server.http.get('/plants/7')).status, 'the plant write landed').to.equal(200);
    expect((await plants.findOne({ _id: 7 }))?.feed?.map((change) => change.type), 'its change, left in the document').to.deep.equal(['plant.created']);
    await expectStoreError(dying.remove(7), ErrorCode.StorageUnavailable);
    expect((await server.http.get('/plants/7')).status, 'the delete landed').to.equal(404);
    expect((await plants.findOne({ _id: 7 }))?.feed?.map((change) => change.type), 'a tombstone holds both').to.deep.equal(['plant.created', 'plant.deleted']);
    expect(feed.changes, 'nothing logged yet').to.deep.equal([]);

    const events = await feed.received(2, 20_000);
    expect(events.map((event) => [event.type, event.data])).to.deep.equal([
      ['plant.created', { id: 7, name: 'Fern' }],
      ['plant.deleted', { id: 7 }],
    ]);
    // Nothing left to keep the tombstone: it went once its changes were copied.
    await eventually(async () => (await plants.findOne({ _id: 7 })) === null, { what: 'the tombstone gone' });
    // A plant written whole by the live server meanwhile arrives as ever.
    expect((await server.http.create(8, 'Ivy')).status).to.equal(200);
    expect((await feed.received(3)).at(-1)!.data).to.deep.equal({ id: 8, name: 'Ivy' });
  });
});
