import { expect } from 'chai';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { plantCreated, plantDeleted, Subscriptions, type Plant } from '../../core/index.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import type { EndpointDocument, LeaseDocument } from '../../adapters/storage/mongo/mongo-delivery-outbox.js';
import { LAST_USED_INDEX, TOKEN_DIGEST_INDEX, type GrantDocument } from '../../adapters/storage/mongo/mongo-sandbox-registry.js';
import { keysOf, type PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { RECOUNT_QUIET_MS, type SandboxCountDocument } from '../../adapters/storage/mongo/sandbox-counts.js';
import { TEST_DATABASE_NAME, dropCollection, requireDatabase, testDatabaseName, uniqueCollectionName, type TestDatabase } from '../support/test-database.js';

// What the MongoDB storage keeps for self-service sandboxes, beside the contracts: the count
// of each named sandbox, the grants' collection and indexes, and what a purge removes.

const T0 = 1_800_000_000_000;
const ENDPOINT = 'https://hooks.example/plants';
const LEASE_MS = 10_000;
const plant = (id: number, name = `p${id}`): Plant => ({ id, name });

describe('MongoDB storage: self-service sandboxes', () => {
  let database: TestDatabase;
  let collectionName: string;
  let repo: MongoPlantRepository;
  let raw: MongoClient;
  let db: Db;
  const suffixes = ['', '_delivery_leases', '_webhook_endpoints', '_sandbox_counts', '_sandbox_grants'];
  const plants = () => db.collection<PlantDocument>(collectionName);
  const leases = () => db.collection<LeaseDocument>(`${collectionName}_delivery_leases`);
  const counts = () => db.collection<SandboxCountDocument>(`${collectionName}_sandbox_counts`);
  const grants = () => db.collection<GrantDocument>(`${collectionName}_sandbox_grants`);

  before(async function () {
    database = await requireDatabase(this);
  });
  beforeEach(async () => {
    collectionName = uniqueCollectionName();
    repo = await MongoPlantRepository.connect(database.uri, { databaseName: TEST_DATABASE_NAME, collectionName });
    raw = new MongoClient(database.uri);
    db = raw.db(testDatabaseName(database.uri));
  });
  afterEach(async () => {
    for (const suffix of suffixes) await dropCollection(database.uri, `${collectionName}${suffix}`).catch(() => {});
    await Promise.all([repo.close(), raw.close()]);
  });

  it("a named sandbox's count is { _id: name, plants, added, at, epoch }, kept by adds, imports and removes; the default sandbox has none", async () => {
    const garden = repo.sandbox('garden');
    expect(await garden.add(plant(1), [], { maxPlants: 5 })).to.equal(true);
    expect(await garden.add(plant(1), [], { maxPlants: 5 }), 'a taken id gives its room back').to.equal(false);
    expect(await garden.add(plant(2))).to.equal(true);
    expect(await garden.addMany([plant(3), plant(2), plant(4)])).to.deep.equal([true, false, true]);
    expect(await garden.remove(4)).to.equal(true);
    expect(await garden.remove(4)).to.equal(false);
    await repo.add(plant(1));
    await repo.remove(1);
    const [count, ...others] = await counts().find().toArray();
    expect(others).to.deep.equal([]);
    expect(Object.keys(count!).sort()).to.deep.equal(['_id', 'added', 'at', 'epoch', 'plants']);
    expect(count).to.include({ _id: 'garden', plants: 3, added: 4 });
    expect(count!.at).to.be.closeTo(Date.now(), 60_000);
  });

  it('a quota on the default sandbox is a caller\'s bug: a RangeError, nothing written', async () => {
    const refusal = await repo.add(plant(1), [], { maxPlants: 5 }).then(() => 'answered', (error: Error) => error.constructor.name);
    expect(refusal).to.equal('RangeError');
    expect(await plants().countDocuments()).to.equal(0);
  });

  it("purge removes a sandbox's plants, tombstones, pending deliveries and leases, and its count; other sandboxes' stay", async () => {
    let now = T0;
    const hooks = new Subscriptions([ENDPOINT], ['plant.created', 'plant.deleted'], () => now);
    const write = async (sandbox: string | undefined, id: number) => {
      const repository = sandbox === undefined ? repo : repo.sandbox(sandbox);
      expect(await repository.add(plant(id), hooks.deliveriesFor(plantCreated(plant(id), sandbox)))).to.equal(true);
    };
    for (const sandbox of ['gone', 'kept', undefined]) for (const id of [1, 2, 3]) await write(sandbox, id);
    // A tombstone whose deletion waits, and claims holding plants of each sandbox.
    expect(await repo.sandbox('gone').remove(3, hooks.deliveriesFor(plantDeleted(3, 'gone')))).to.equal(true);
    now += 1;
    const claims = await repo.outbox.claim(now, LEASE_MS, 100);
    expect(claims).to.have.length(9);
    const before = { kept: await repo.outbox.state('kept'), default: await repo.outbox.state('default') };
    expect((await repo.outbox.state('gone')).pending).to.equal(4);

    const gone = repo.sandbox('gone');
    const batches: number[] = [];
    for (let n = await gone.purge(2); n > 0; n = await gone.purge(2)) batches.push(n);
    expect(batches).to.deep.equal([2, 1]);

    expect(await repo.outbox.state('gone')).to.deep.equal({ pending: 0, failed: [] });
    expect(await plants().countDocuments({ _id: keysOf('gone') } as object)).to.equal(0);
    expect((await leases().find().toArray()).map((lease) => lease._id).sort()).to.deep.equal([1, 2, 3, ...[1, 2, 3].map((id) => `kept/${String(id).padStart(16, '0')}`)].sort());
    expect((await counts().find().toArray()).map((count) => count._id)).to.deep.equal(['kept']);
    expect(await repo.outbox.state('kept')).to.deep.equal(before.kept);
    expect(await repo.outbox.state('default')).to.deep.equal(before.default);
    // A claim on a purged plant finds it gone when it settles; the others settle.
    for (const claim of claims) {
      const settled = await repo.outbox.settle(claim, claim.deliveries.map((delivery) => ({ id: delivery.id, result: 'delivered' as const })));
      expect(settled, `${claim.sandbox ?? 'default'}/${claim.plantId}`).to.equal(claim.sandbox !== 'gone');
    }
    expect(await leases().countDocuments()).to.equal(0);
    expect(await repo.sandbox('kept').findById(1)).to.deep.equal(plant(1));
    expect(await repo.findById(1)).to.deep.equal(plant(1));
  });

  it('on the database itself: a count left high by an add that died is set right by the first add refused once the sandbox is quiet', async () => {
    const clock = { now: T0 };
    const over = MongoPlantRepository.over(
      {
        plants: plants(),
        leases: leases(),
        endpoints: db.collection<EndpointDocument>(`${collectionName}_webhook_endpoints`),
        sandboxCounts: counts() as Collection<SandboxCountDocument>,
      },
      { now: () => clock.now },
    );
    const box = over.sandbox('box');
    for (let id = 1; id <= 3; id++) expect(await box.add(plant(id), [], { maxPlants: 4 })).to.equal(true);
    // What an add that reserved and died leaves: the room taken, no plant.
    await counts().updateOne({ _id: 'box' }, { $inc: { plants: 1, added: 1 } });
    const full = () => box.add(plant(9), [], { maxPlants: 4 }).then(String, (error: { code?: number }) => String(error.code));
    expect(await full(), 'within the quiet period').to.equal('40303');
    clock.now += RECOUNT_QUIET_MS + 1;
    expect(await full(), 'once quiet').to.equal('true');
    expect((await counts().findOne({ _id: 'box' }))!.plants).to.equal(4);
    clock.now += RECOUNT_QUIET_MS + 1;
    expect(await box.add(plant(10), [], { maxPlants: 4 }).then(String, (error: { code?: number }) => String(error.code)), 'truly full').to.equal('40303');
    expect((await counts().findOne({ _id: 'box' }))!.plants).to.equal(4);
  });

  it('opening creates the grants\' indexes, once; a grant is { _id: name, tokenDigest, createdAt, lastUsedAt }; a repeated digest is an error, not a taken name', async () => {
    await repo.ensureIndexes();
    const indexes = (await grants().indexes()).map((index) => ({ name: index.name, key: index.key, unique: index.unique ?? false }));
    expect(indexes).to.have.deep.members([
      { name: '_id_', key: { _id: 1 }, unique: false },
      { name: TOKEN_DIGEST_INDEX.name, key: TOKEN_DIGEST_INDEX.key, unique: true },
      { name: LAST_USED_INDEX.name, key: LAST_USED_INDEX.key, unique: false },
    ]);
    const registry = repo.sandboxes!;
    expect(repo.sandbox('garden').sandboxes, 'every view has the same registry').to.equal(registry);
    expect(await registry.create({ name: 'sb-1', tokenDigest: 'd1', createdAt: T0, lastUsedAt: T0 + 1 })).to.equal(true);
    expect(await grants().find().toArray()).to.deep.equal([{ _id: 'sb-1', tokenDigest: 'd1', createdAt: T0, lastUsedAt: T0 + 1 }]);
    const repeated = await registry.create({ name: 'sb-2', tokenDigest: 'd1', createdAt: T0, lastUsedAt: T0 }).then(String, (error: { code?: number }) => `code ${error.code}`);
    expect(repeated).to.equal('code 50301');
    expect(await registry.list()).to.have.length(1);
  });
});
