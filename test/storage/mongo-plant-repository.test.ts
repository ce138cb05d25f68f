import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import type { Plant } from '../../core/index.js';
import { MongoPlantRepository, TAG_INDEX, databaseNameIn } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { storageContract } from './storage-contract.js';
import {
  TEST_DATABASE_NAME,
  dropCollection,
  mongoStorageFactory,
  requireDatabase,
  testDatabaseName,
  uniqueCollectionName,
  type TestDatabase,
} from '../support/test-database.js';

describe('MongoDB storage', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });

  storageContract('mongo', mongoStorageFactory(() => database.uri), { sandboxes: true });

  describe('mongo adapter specifics', () => {
    let collectionName: string;
    let repo: MongoPlantRepository;
    let raw: MongoClient;
    const collection = () => raw.db(testDatabaseName(database.uri)).collection<{ _id: number }>(collectionName);
    const storedDocuments = () => collection().find().sort({ _id: 1 }).toArray();

    beforeEach(async () => {
      collectionName = uniqueCollectionName();
      repo = await MongoPlantRepository.connect(database.uri, { databaseName: TEST_DATABASE_NAME, collectionName });
      raw = new MongoClient(database.uri);
    });
    afterEach(async () => {
      await dropCollection(database.uri, collectionName);
      await Promise.all([repo.close(), raw.close()]);
    });

    it('connect creates the tag index, and creating it again is harmless', async () => {
      await repo.ensureIndexes();
      await repo.ensureIndexes();
      const indexes = await collection().indexes();
      expect(indexes.map((index) => index.key)).to.deep.include(TAG_INDEX.key);
      expect(indexes.filter((index) => index.name === TAG_INDEX.name)).to.have.length(1);
    });

    it('a document is { _id: id, name, tag? } and nothing else', async () => {
      await repo.add({ id: 2, name: 'bare', tag: undefined } as Plant);
      await repo.add({ id: 1, name: 'Monstera', tag: 'tropical', colour: 'green', _id: 99 } as Plant);
      expect(await storedDocuments()).to.deep.equal([
        { _id: 1, name: 'Monstera', tag: 'tropical' },
        { _id: 2, name: 'bare' },
      ]);
    });

    it('fields added to a document by hand never reach the caller', async () => {
      await collection().insertOne({ _id: 3, name: 'by hand', tag: null, note: 'x' } as { _id: number });
      expect(await repo.findById(3)).to.deep.equal({ id: 3, name: 'by hand' });
      expect(await repo.page({ limit: 10 })).to.deep.equal([{ id: 3, name: 'by hand' }]);
    });

    it('the description names the hosts, database and collection (and nothing from the URI beyond the hosts)', async () => {
      expect(repo.description).to.match(/^mongodb [^\s@/]+\//);
      expect(repo.description.endsWith(`/${testDatabaseName(database.uri)}.${collectionName}`)).to.equal(true);
    });
  });
});

describe('mongo adapter: connection strings and options', () => {
  it('the database name comes from the URI path when there is one', () => {
    expect(databaseNameIn('mongodb://localhost:27017/plants')).to.equal('plants');
    expect(databaseNameIn('mongodb://u:p%2F@h1:1,h2:2/my%20db?replicaSet=rs')).to.equal('my db');
    expect(databaseNameIn('mongodb+srv://cluster.example.net/shop?retryWrites=true')).to.equal('shop');
    expect(databaseNameIn('mongodb://localhost:27017/')).to.equal(undefined);
    expect(databaseNameIn('mongodb://localhost:27017')).to.equal(undefined);
    expect(databaseNameIn('mongodb://localhost/?authSource=admin')).to.equal(undefined);
  });

  it('a malformed URI is a configuration error that does not repeat the URI', async () => {
    const error = await MongoPlantRepository.connect('mongodb://user:s3cret@', { timeoutMS: 1000 }).then(
      () => expect.fail('connected'),
      (e: unknown) => e as Error,
    );
    expect(error).to.be.instanceOf(TypeError);
    expect(error.message).to.match(/^invalid MongoDB connection string/);
    expect(error.message).not.to.contain('s3cret');
  });

  it('rejects a timeout that is not a positive integer', async () => {
    for (const timeoutMS of [0, -1, 1.5, Number.NaN]) {
      await MongoPlantRepository.connect('mongodb://127.0.0.1:1/', { timeoutMS }).then(
        () => expect.fail('connected'),
        (error: unknown) => expect(error).to.be.instanceOf(RangeError),
      );
    }
  });
});
