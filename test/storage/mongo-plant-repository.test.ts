import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { MAX_PLANT_ID, type Plant } from '../../core/index.js';
import { MongoPlantRepository, TAG_INDEX, databaseNameIn } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { keysAfter, keysOf } from '../../adapters/storage/mongo/plant-document.js';
import { storageContract } from './storage-contract.js';
import { changeLogContract } from './change-log-contract.js';
import { isFerretDb } from './mongo-server-kind.js';
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
  let ferretDb = false;
  before(async function () {
    database = await requireDatabase(this);
    ferretDb = await isFerretDb(database.uri);
  });

  // The quota is one conditional update per add, atomic on MongoDB: raced there, and on the
  // stand-ins in mongo-sandbox-quota.test.ts; on FerretDB the adds at the edge go one by one.
  storageContract('mongo', mongoStorageFactory(() => database.uri), { sandboxes: true, selfService: true, atomicQuota: () => !ferretDb });
  // At least once: a reader resumed from a cursor reads the window before it again. FerretDB
  // reads the whole collection for a conditional write or a range of `at` (docs/storage.md):
  // 300 writes at once beside a reader reading all along take longer than 5 s there.
  changeLogContract('mongo', mongoStorageFactory(() => database.uri, { timeoutMS: 30_000 }), false);

  describe('mongo adapter specifics', () => {
    let collectionName: string;
    let repo: MongoPlantRepository;
    let raw: MongoClient;
    const collection = () => raw.db(testDatabaseName(database.uri)).collection<{ _id: number | string }>(collectionName);
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

    it("a named sandbox's document is { _id: '<sandbox>/<id in 16 digits>', name, tag? }; the default's keep the plant id", async () => {
      await repo.sandbox('garden').add({ id: 7, name: 'Fern', tag: 'green' });
      await repo.sandbox('garden').addMany([{ id: MAX_PLANT_ID, name: 'Largest' }]);
      await repo.add({ id: 7, name: 'Default fern' });
      expect(await storedDocuments()).to.deep.equal([
        { _id: 7, name: 'Default fern' },
        { _id: 'garden/0000000000000007', name: 'Fern', tag: 'green' },
        { _id: `garden/${MAX_PLANT_ID}`, name: 'Largest' },
      ]);
    });

    // What keeps sandboxes apart (see PlantKey): a range or `$type` only matches `_id`s of its
    // own type, and a sandbox's string range holds its own keys only, on the database under test.
    it("the default sandbox's queries match numeric _ids only, a named sandbox's its own string range only", async () => {
      const keys = [1, 5, MAX_PLANT_ID, 'a/0000000000000001', 'a/0000000000000009', 'a-b/0000000000000003', 'a0/0000000000000002', 'b/0000000000000004', 'ab/0000000000000001'];
      await collection().insertMany(keys.map((key, i) => ({ _id: key, name: `p${i}`, tag: 'fern', outbox: [], due: 0 })) as unknown as { _id: number }[]);
      const matched = async (condition: object, tag = false) => {
        const filter = { _id: condition, ...(tag && { tag: { $in: ['fern'] } }) };
        const options = { sort: { _id: 1 as const }, projection: { _id: 1 }, ...(tag && { hint: TAG_INDEX.key }) };
        return (await collection().find(filter as object, options).toArray()).map((document) => document._id);
      };
      for (const tag of [false, true]) {
        expect(await matched(keysAfter(0, undefined), tag), `default page, tag ${tag}`).to.deep.equal([1, 5, MAX_PLANT_ID]);
        expect(await matched(keysAfter(MAX_PLANT_ID, undefined), tag)).to.deep.equal([]);
        expect(await matched(keysAfter(0, 'a'), tag), `named page, tag ${tag}`).to.deep.equal(['a/0000000000000001', 'a/0000000000000009']);
        expect(await matched(keysAfter(1, 'a'), tag)).to.deep.equal(['a/0000000000000009']);
        expect(await matched(keysAfter(MAX_PLANT_ID, 'a'), tag)).to.deep.equal([]);
      }
      expect(await matched(keysOf(undefined))).to.deep.equal([1, 5, MAX_PLANT_ID]);
      expect(await matched(keysOf('a'))).to.deep.equal(['a/0000000000000001', 'a/0000000000000009']);
      expect(await matched(keysOf('a-b'))).to.deep.equal(['a-b/0000000000000003']);
      expect(await matched(keysOf('a0'))).to.deep.equal(['a0/0000000000000002']);
      // And through the repository: each sandbox sees its own.
      expect((await repo.page({ limit: 10 })).map((plant) => plant.id)).to.deep.equal([1, 5, MAX_PLANT_ID]);
      expect((await repo.sandbox('a').page({ limit: 10, tags: ['fern'] })).map((plant) => plant.id)).to.deep.equal([1, 9]);
      expect(await repo.sandbox('a').findById(5)).to.equal(undefined);
      expect(await repo.findById(9)).to.equal(undefined);
    });

    it('sandbox(): the same view for the same name, the repository itself for default, names outside the rule refused', async () => {
      const garden = repo.sandbox('garden');
      expect(repo.sandbox('garden')).to.equal(garden);
      expect(garden.sandbox('garden')).to.equal(garden);
      expect(garden.sandbox('default')).to.equal(repo);
      expect(repo.sandbox('default')).to.equal(repo);
      expect(garden.outbox).to.equal(repo.outbox);
      for (const name of ['', 'a/b', 'A', 'a'.repeat(65), 'a.b', 'a0/0000000000000001']) expect(() => repo.sandbox(name), name).to.throw(RangeError);
      // An id no key can hold is a bug in the caller, and says so (the default sandbox's keys are any number).
      for (const id of [-1, 1.5, MAX_PLANT_ID + 2]) {
        const refused = (call: Promise<unknown>) => call.then(() => 'answered', (error: Error) => error.constructor.name);
        expect(await refused(garden.findById(id)), `findById(${id})`).to.equal('RangeError');
        expect(await refused(garden.add({ id, name: 'x' })), `add(${id})`).to.equal('RangeError');
        expect(await refused(garden.page({ limit: 1, after: id })), `page after ${id}`).to.equal('RangeError');
      }
      // A view leaves the connection to the repository it came from.
      await garden.close();
      await repo.ping();
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
