import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BSON, MongoClient, type Db, type Document } from 'mongodb';
import { MAX_PLANT_ID, plantCreated, plantDeleted, Subscriptions, type OutboxClaim } from '../../core/index.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { PENDING_INDEX } from '../../adapters/storage/mongo/mongo-change-log.js';
import { withDatabase } from '../support/mongo-uri.js';
import { projectRoot } from '../support/project-root.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';

// A database the release before sandboxes wrote (test/fixtures/mongo-previous-release.json,
// its "about" says how) must open unchanged as the default sandbox: its plants, tags,
// deliveries, claims and gone endpoints read as before, and what this release writes to the
// default sandbox has the shape that release wrote, so it can still read it too.

interface Fixture {
  readonly collections: Record<string, { readonly documents: Document[]; readonly indexes: { key: Document; name: string }[] }>;
}
const fixtureText = readFileSync(join(projectRoot, 'test', 'fixtures', 'mongo-previous-release.json'), 'utf8');
/** The fixture as plain JSON: documents in Canonical Extended JSON, as compared below. */
const fixture = JSON.parse(fixtureText) as Fixture;
/** The same, with BSON values (Int32, Double…) for inserting the exact types. */
const typedFixture = BSON.EJSON.parse(fixtureText, { relaxed: false }) as Fixture;

const T0 = 1_800_000_000_000;
const A = 'https://a.example/hooks/plants';
const B = 'https://b.example/hooks/plants';
const LEASE_MS = 10_000;

/** Every document of a collection as stored, in Canonical Extended JSON (BSON types spelled out), by `_id`. */
async function stored(db: Db, collection: string): Promise<Document[]> {
  const documents = await db.collection(collection).find({}, { sort: { _id: 1 }, promoteValues: false }).toArray();
  return documents.map((document) => BSON.EJSON.serialize(document, { relaxed: false }));
}

/** A stored document's types in place of its values ('int', 'double', 'string'…), arrays and subdocuments kept. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value !== 'object' || value === null) return typeof value;
  const [first] = Object.keys(value);
  if (first?.startsWith('$number')) return first.slice('$number'.length).toLowerCase();
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shapeOf(field)]));
}

const plantsOf = (name: string) => fixture.collections[name]!.documents;
const fixtureDocument = (id: number) => plantsOf('plants').find((document) => Number(Object.values(document['_id'] as object)[0]) === id)!;

describe('MongoDB storage: a database written by the release before sandboxes', function () {
  this.timeout(20_000);
  let database: TestDatabase;
  let name: string;
  let raw: MongoClient;
  let db: Db;
  let repo: MongoPlantRepository;

  before(async function () {
    database = await requireDatabase(this);
  });
  beforeEach(async () => {
    name = `plant_store_previous_${randomBytes(4).toString('hex')}`;
    raw = new MongoClient(withDatabase(database.uri, name), { serverSelectionTimeoutMS: 5000 });
    db = raw.db(name);
    for (const [collection, { documents, indexes }] of Object.entries(typedFixture.collections)) {
      await db.createCollection(collection);
      if (documents.length > 0) await db.collection(collection).insertMany(documents);
      for (const index of indexes.filter((index) => index.name !== '_id_')) await db.collection(collection).createIndex(index.key, { name: index.name });
    }
    repo = await MongoPlantRepository.connect(withDatabase(database.uri, name));
  });
  afterEach(async () => {
    await Promise.all([repo?.close(), raw?.close()]);
    await dropDatabase(database.uri, name);
  });

  it('opens unchanged: nothing rewritten, one index added (of changes on their way to the log), the plants and tags read as the default sandbox', async () => {
    // The one index added to that release's collections: the plants with changes not yet in the
    // change log, sparse (empty until this release writes), which that release never uses.
    const added: Record<string, { name: string; key: Document }[]> = { plants: [{ name: PENDING_INDEX.name, key: PENDING_INDEX.key }] };
    for (const collection of Object.keys(fixture.collections)) {
      expect(await stored(db, collection), `${collection} after opening`).to.deep.equal(plantsOf(collection));
      const indexes = (await db.collection(collection).indexes()).map((index) => ({ name: index.name, key: index.key }));
      const expected = fixture.collections[collection]!.indexes.map((index) => ({ name: index.name, key: BSON.EJSON.deserialize(index.key) }));
      expect(indexes, `${collection} indexes`).to.have.deep.members([...expected, ...(added[collection] ?? [])]);
    }
    // The other additions: the self-service sandboxes' grants and the change log (its mark of
    // when it began alone), each in a collection of its own (with its indexes, made at opening
    // like the plants' were), which that release never reads.
    const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name);
    expect(collections).to.have.members([...Object.keys(fixture.collections), 'plants_sandbox_grants', 'plants_changes']);
    expect(await stored(db, 'plants_sandbox_grants')).to.deep.equal([]);
    expect((await stored(db, 'plants_changes')).map((document) => document['_id'])).to.deep.equal(['~retention']);
    expect(await repo.page({ limit: 100 })).to.deep.equal([
      { id: 1, name: 'Fern', tag: 'green' },
      { id: 2, name: 'Ivy' },
      { id: 3, name: 'Moss', tag: 'green' },
      { id: 4, name: 'Palm', tag: 'tropical' },
      { id: 6, name: 'Aloe', tag: 'desert' },
      { id: 8, name: 'Orchid' },
      { id: MAX_PLANT_ID, name: 'Largest', tag: 'green' },
    ]);
    expect((await repo.page({ limit: 2, after: 3, tags: ['green', 'desert'] })).map((plant) => plant.id)).to.deep.equal([6, MAX_PLANT_ID]);
    expect(await repo.findById(MAX_PLANT_ID)).to.deep.equal({ id: MAX_PLANT_ID, name: 'Largest', tag: 'green' });
    expect(await repo.findById(5), 'deleted: a tombstone until its deletion is delivered').to.equal(undefined);
    expect(repo.sandbox('default')).to.equal(repo);

    const garden = repo.sandbox('garden');
    expect(await garden.page({ limit: 100 })).to.deep.equal([]);
    expect(await garden.page({ limit: 100, tags: ['green'] })).to.deep.equal([]);
    expect(await garden.findById(1)).to.equal(undefined);
  });

  it('its deliveries, failed one, held claim and gone endpoint are the default sandbox\'s; a named sandbox has none', async () => {
    const failed = fixtureDocument(4)['outbox'][0];
    const everything = await repo.outbox.state();
    expect(everything).to.deep.equal({
      pending: 4,
      oldestPendingAt: T0,
      failed: [{ id: failed.id, plantId: 4, endpoint: A, type: 'plant.created', createdAt: T0, attempts: 1, lastStatus: 503 }],
    });
    expect(await repo.outbox.state('default')).to.deep.equal(everything);
    expect(await repo.outbox.state('garden')).to.deep.equal({ pending: 0, failed: [] });
    expect([...(await repo.outbox.goneEndpoints())]).to.deep.equal([B]);

    const ids = (claims: readonly OutboxClaim[]) => claims.map((claim) => claim.plantId).sort((x, y) => x - y);
    // Plant 6 is held by the dead worker's lease until T0 + 10000; 8 is due at T0 + 60000.
    const early = await repo.outbox.claim(T0 + 5_000, LEASE_MS, 100);
    expect(ids(early)).to.deep.equal([3, 5]);
    for (const claim of early) expect(claim, 'a claim of the default sandbox names none').not.to.have.property('sandbox');
    expect(early.find((claim) => claim.plantId === 5)!.deliveries.map((delivery) => delivery.event)).to.deep.equal([plantDeleted(5)]);
    const lapsed = await repo.outbox.claim(T0 + 10_001, LEASE_MS, 100);
    expect(ids(lapsed), "the dead worker's lease lapsed").to.deep.equal([6]);
    for (const claim of [...early, ...lapsed]) {
      expect(await repo.outbox.settle(claim, claim.deliveries.map((delivery) => ({ id: delivery.id, result: 'delivered' as const })))).to.equal(true);
    }
    expect(await stored(db, 'plants_delivery_leases'), 'lease documents after settling').to.deep.equal([]);
    expect(await db.collection<{ _id: number }>('plants').findOne({ _id: 5 }), 'the tombstone, its deletion delivered').to.equal(null);
    expect((await repo.outbox.state()).pending).to.equal(1);
    expect(await repo.outbox.retryFailed(T0 + 20_000)).to.equal(1);
    expect([...(await repo.outbox.goneEndpoints())]).to.deep.equal([]);
    expect(ids(await repo.outbox.claim(T0 + 60_000, LEASE_MS, 100))).to.deep.equal([4, 8]);
  });

  it('writes to both sandboxes: the default sandbox\'s documents keep the shape that release wrote, the named one\'s stay apart', async () => {
    let now = T0 + 100_000;
    const toA = new Subscriptions([A], ['plant.created', 'plant.deleted'], () => now);
    const basil = { id: 10, name: 'Basil', tag: 'green' };
    expect(await repo.add(basil, toA.deliveriesFor(plantCreated(basil)))).to.equal(true);
    expect(await repo.addMany([{ id: 11, name: 'Mint' }])).to.deep.equal([true]);
    const gardenFern = { id: 1, name: 'Garden fern', tag: 'green' };
    const garden = repo.sandbox('garden');
    expect(await garden.add(gardenFern, toA.deliveriesFor(plantCreated(gardenFern, 'garden')))).to.equal(true);
    expect(await garden.add({ id: 10, name: 'Garden basil' })).to.equal(true);
    now += 1;
    expect(await repo.remove(2, toA.deliveriesFor(plantDeleted(2)))).to.equal(true);

    const documents = await stored(db, 'plants');
    const byKey = (key: unknown) => documents.find((document) => JSON.stringify(document['_id']) === JSON.stringify(key));
    // As that release wrote a created plant with its delivery (plant 3, less what its attempt added).
    const created = structuredClone(fixtureDocument(3));
    delete created['outbox'][0].lastError;
    created['outbox'][0].attempts = { $numberInt: '0' };
    expect(shapeOf(byKey({ $numberInt: '10' })), 'a plant created in the default sandbox').to.deep.equal(shapeOf(created));
    expect(byKey({ $numberInt: '10' })!['outbox'][0].event, 'its event names no sandbox').to.deep.equal({
      type: 'plant.created',
      data: { id: { $numberInt: '10' }, name: 'Basil', tag: 'green' },
    });
    expect(byKey({ $numberInt: '11' }), 'an imported plant').to.deep.equal({ _id: { $numberInt: '11' }, name: 'Mint' });
    // As that release made a tombstone (plant 5): the deletion waits, name and tag gone.
    expect(shapeOf(byKey({ $numberInt: '2' })), 'a deleted plant with a delivery').to.deep.equal(shapeOf(fixtureDocument(5)));
    expect(byKey('garden/0000000000000010'), "a named sandbox's plant").to.deep.equal({ _id: 'garden/0000000000000010', name: 'Garden basil' });
    expect(byKey('garden/0000000000000001')!['name']).to.equal('Garden fern');
    // The fixture's other documents are as they were.
    for (const id of [1, 3, 4, 5, 6, 8, MAX_PLANT_ID]) expect(documents, `plant ${id}`).to.deep.include(fixtureDocument(id));

    expect(await repo.findById(1)).to.deep.equal({ id: 1, name: 'Fern', tag: 'green' });
    expect(await garden.findById(1)).to.deep.equal(gardenFern);
    expect((await repo.page({ limit: 100, tags: ['green'] })).map((plant) => plant.id)).to.deep.equal([1, 3, 10, MAX_PLANT_ID]);
    expect(await garden.page({ limit: 100 })).to.deep.equal([gardenFern, { id: 10, name: 'Garden basil' }]);
    expect((await repo.outbox.state('garden')).pending).to.equal(1);
    expect((await repo.outbox.state('default')).pending).to.equal(6);
    const claims = await repo.outbox.claim(now, LEASE_MS, 100);
    expect(claims.filter((claim) => claim.sandbox === 'garden').map((claim) => claim.plantId)).to.deep.equal([1]);
    expect(claims.filter((claim) => claim.sandbox === undefined).map((claim) => claim.plantId).sort((x, y) => x - y)).to.deep.equal([2, 3, 5, 6, 8, 10]);
  });
});
