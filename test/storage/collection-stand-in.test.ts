import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { MongoBulkWriteError, MongoClient, MongoInvalidArgumentError, MongoServerError, type Collection, type Document, type Filter, type UpdateFilter } from 'mongodb';
import type { PendingDelivery } from '../../core/index.js';
import { insertEach } from '../../adapters/storage/mongo/insert-each.js';
import { MongoDeliveryOutbox, type EndpointDocument, type LeaseDocument } from '../../adapters/storage/mongo/mongo-delivery-outbox.js';
import { isDuplicateKey } from '../../adapters/storage/mongo/mongo-errors.js';
import { addWithDeliveries, removeWithDeliveries } from '../../adapters/storage/mongo/mongo-outbox-writes.js';
import { forgetCopied, type NewChange, type Pending, type Written } from '../../adapters/storage/mongo/pending-changes.js';
import type { PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { MongoSandboxRegistry, type GrantDocument } from '../../adapters/storage/mongo/mongo-sandbox-registry.js';
import { SandboxCounts, type SandboxCountDocument } from '../../adapters/storage/mongo/sandbox-counts.js';
import { CollectionStandIn } from '../support/collection-stand-in.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';

// About 15 ms a run on the test FerretDB; STAND_IN_RUNS asks for a longer search.
const RANDOM_RUNS = Number(process.env['STAND_IN_RUNS'] ?? 100);

interface Doc extends Document {
  _id: number;
}

type Call = (collection: Collection<Doc>) => Promise<unknown>;

/** An update as sent: the driver's types refuse `$push` on fields not declared as arrays, and some steps send what the server must refuse. */
const untyped = (update: Document) => update as UpdateFilter<Doc>;

/** What a call answered, in a form both sides can give: its value, or the refusal's code. */
async function answer(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() };
  } catch (error) {
    if (error instanceof MongoBulkWriteError) {
      const writeErrors = [error.writeErrors].flat().map(({ index, code }) => ({ index, code }));
      return { code: error.code, writeErrors, insertedIds: error.insertedIds };
    }
    if (error instanceof MongoServerError) return { code: error.code };
    if (error instanceof MongoInvalidArgumentError) return { refusedByDriver: error.message };
    throw error;
  }
}

const delivery = (id: string, dueAt: number, failed?: true): PendingDelivery => ({
  id,
  endpoint: 'https://hooks.example/plants',
  event: { type: 'plant.deleted', data: { id: 1 } },
  createdAt: 0,
  attempts: failed ? 3 : 0,
  dueAt,
  ...(failed && { failed }),
});

describe('CollectionStandIn answers as a MongoDB server does', () => {
  let database: TestDatabase | undefined;
  let client: MongoClient;
  const databaseName = `plant_store_stand_in_${randomBytes(4).toString('hex')}`;
  let real: Collection<Doc>;
  let standIn: CollectionStandIn<Doc>;

  before(async function () {
    database = await requireDatabase(this);
    client = new MongoClient(database.uri);
    real = client.db(databaseName).collection<Doc>('documents');
  });
  after(async () => {
    if (database === undefined) return;
    await dropDatabase(database.uri, databaseName);
    await client.close();
  });
  beforeEach(async () => {
    await real.deleteMany({});
    standIn = new CollectionStandIn<Doc>();
  });

  /** The call on the server, then on the stand-in: the same answer, field order included. */
  async function same(label: string, call: Call): Promise<void> {
    const expected = await answer(() => call(real));
    const actual = await answer(() => call(standIn as unknown as Collection<Doc>));
    expect(actual, label).to.deep.equal(expected);
    expect(JSON.stringify(actual), `${label}: field order`).to.equal(JSON.stringify(expected));
  }

  async function sameContents(label: string): Promise<void> {
    const expected = await real.find({}, { sort: { _id: 1 } }).toArray();
    // The adapters' outbox and pending-change versions are random: compared as "a version", not by value.
    const versionless = (documents: unknown[]) => JSON.stringify(documents, (key, value) => ((key === 'v' || key === 'fv') && typeof value === 'number' && value > 1_000 ? 'version' : value));
    expect(versionless(standIn.documents()), label).to.equal(versionless(expected));
  }

  it('a hand-written sequence of every supported operator and option', async () => {
    const steps: [string, Call][] = [
      ['insertOne', (c) => c.insertOne({ _id: 1, name: 'Fern', tag: 'green', v: 1, due: 30, outbox: [delivery('a', 30)] })],
      ['insertOne of a taken id', (c) => c.insertOne({ _id: 1, name: 'again' })],
      [
        'unordered insertMany with duplicates',
        (c) =>
          c.insertMany(
            [
              { _id: 2, name: 'Ivy', tag: null, due: 10 },
              { _id: 1, name: 'taken' },
              { _id: 3, name: 'Moss', gone: true, due: 50, outbox: [delivery('b', 5, true), delivery('c', 50)] },
              { _id: 2, name: 'repeated' },
              { _id: 4, name: 'Palm', v: 'abc', meta: { size: 3, pot: 'clay' }, nums: [1, 7] },
            ],
            { ordered: false },
          ),
      ],
      // Keys of a named sandbox beside the numeric ones (see PlantKey): each range keeps to its type.
      ['string _ids', (c) => c.insertMany([{ _id: 'a/0000000000000002' as unknown as number, name: 'Sage', due: 5 }, { _id: 'a0/0000000000000001' as unknown as number, name: 'Rue' }])],
      ['a numeric _id range: numbers only', (c) => c.find({ _id: { $gt: 0 } }, { sort: { _id: 1 }, projection: { _id: 1 } }).toArray()],
      ['a string _id range: strings only', (c) => c.find({ _id: { $gt: 'a/', $lt: 'a0' } } as unknown as Filter<Doc>, { sort: { _id: 1 }, projection: { _id: 1 } }).toArray()],
      ['sorted by _id: numbers before strings', (c) => c.find({}, { sort: { _id: -1 }, projection: { _id: 1 } }).toArray()],
      ['ordered insertMany stops at the first duplicate', (c) => c.insertMany([{ _id: 5, name: 'Cactus', due: 20 }, { _id: 5 }, { _id: 6 }])],
      ['empty insertMany', (c) => c.insertMany([])],
      // Reads, in the adapters' shapes first.
      ['due candidates', (c) => c.find({ due: { $lte: 30 } }, { sort: { due: 1 }, limit: 2, projection: { _id: 1 } }).toArray()],
      ['limit 0 is no limit', (c) => c.find({ due: { $lte: 30 } }, { sort: { due: -1 }, limit: 0 }).toArray()],
      ['failed deliveries', (c) => c.find({ 'outbox.failed': true }, { projection: { _id: 1 } }).toArray()],
      ['outboxes', (c) => c.find({ outbox: { $exists: true } }, { projection: { outbox: 1 } }).toArray()],
      ['by ids, unsorted: natural order', (c) => c.find({ _id: { $in: [4, 2, 9] } }).toArray()],
      ['no version', (c) => c.find({ v: { $exists: false } }, { projection: { _id: 1 } }).toArray()],
      ['findOne with projection', (c) => c.findOne({ _id: 3 }, { projection: { _id: 1, name: 1, tag: 1, gone: 1 } })],
      ['findOne of nothing', (c) => c.findOne({ _id: 99 })],
      ['exclusion projection', (c) => c.find({}, { projection: { outbox: 0, _id: 0 } }).toArray()],
      ['inclusion without _id', (c) => c.find({}, { projection: { name: 1, _id: 0 } }).toArray()],
      ['sort on two keys, missing first', (c) => c.find({}, { sort: { tag: 1, name: -1 }, projection: { tag: 1, name: 1 } }).toArray()],
      ['descending: missing last', (c) => c.find({}, { sort: { due: -1, _id: 1 }, projection: { due: 1 } }).toArray()],
      ['$eq', (c) => c.find({ name: { $eq: 'Ivy' } }).toArray()],
      ['$ne (a missing field is not equal)', (c) => c.find({ tag: { $ne: 'green' } }, { projection: { _id: 1 } }).toArray()],
      ['null matches null and missing', (c) => c.find({ tag: null }, { projection: { _id: 1 } }).toArray()],
      ['$ne null', (c) => c.find({ tag: { $ne: null } }, { projection: { _id: 1 } }).toArray()],
      ['$in with null', (c) => c.find({ tag: { $in: [null, 'green'] } }, { projection: { _id: 1 } }).toArray()],
      ['$nin', (c) => c.find({ _id: { $nin: [1, 2] } }, { projection: { _id: 1 } }).toArray()],
      ['$lt: numbers only', (c) => c.find({ v: { $lt: 5 } }, { projection: { _id: 1 } }).toArray()],
      ['$gte: strings only', (c) => c.find({ v: { $gte: 'a' } }, { projection: { _id: 1 } }).toArray()],
      ['$gt and $lt: a missing field matches neither', (c) => c.find({ due: { $gt: 0, $lt: 40 } }, { projection: { _id: 1 } }).toArray()],
      ['$lte null matches null and missing', (c) => c.countDocuments({ tag: { $lte: null } })],
      ['$lt null matches nothing', (c) => c.countDocuments({ tag: { $lt: null } })],
      ['dotted path through an array, compared', (c) => c.find({ 'outbox.dueAt': { $gt: 40 } }, { projection: { _id: 1 } }).toArray()],
      ['dotted path through an array, missing in some elements', (c) => c.find({ 'outbox.failed': { $exists: false } }, { projection: { _id: 1 } }).toArray()],
      ['array element equality', (c) => c.find({ nums: 7 }, { projection: { _id: 1 } }).toArray()],
      ['whole array equality', (c) => c.find({ nums: [1, 7] }, { projection: { _id: 1 } }).toArray()],
      ['array equality is order-sensitive', (c) => c.find({ nums: [7, 1] }, { projection: { _id: 1 } }).toArray()],
      ['subdocument equality', (c) => c.find({ meta: { size: 3, pot: 'clay' } }, { projection: { _id: 1 } }).toArray()],
      ['subdocument equality is order-sensitive', (c) => c.find({ meta: { pot: 'clay', size: 3 } }, { projection: { _id: 1 } }).toArray()],
      ['dotted path into a subdocument', (c) => c.find({ 'meta.size': { $gte: 3 } }, { projection: { _id: 1 } }).toArray()],
      ['dotted null: missing subdocument or field', (c) => c.find({ 'meta.pot': null }, { projection: { _id: 1 } }).toArray()],
      ['dotted $ne', (c) => c.find({ 'meta.size': { $ne: 3 } }, { projection: { _id: 1 } }).toArray()],
      ['numeric path part', (c) => c.find({ 'nums.1': 7 }, { projection: { _id: 1 } }).toArray()],
      // 'number' is missing from the driver's own list of aliases, though servers take it.
      ['$type number: numeric _ids only', (c) => c.find({ _id: { $type: 'number' } } as unknown as Filter<Doc>, { projection: { _id: 1 } }).toArray()],
      ['$type string, null, bool, object', (c) => c.find({ $or: [{ v: { $type: 'string' } }, { tag: { $type: 'null' } }, { gone: { $type: 'bool' } }, { meta: { $type: 'object' } }] }, { projection: { _id: 1 } }).toArray()],
      ['$type array, and an array of aliases', (c) => c.find({ nums: { $type: 'array' }, v: { $type: ['string', 'number'] } }, { projection: { _id: 1 } }).toArray()],
      ['$type through an array: its elements', (c) => c.find({ 'outbox.failed': { $type: 'bool' } }, { projection: { _id: 1 } }).toArray()],
      ['$elemMatch on array elements', (c) => c.find({ nums: { $elemMatch: { $gt: 5 } } }, { projection: { _id: 1 } }).toArray()],
      ['$or', (c) => c.find({ $or: [{ gone: true }, { v: 'abc' }] }, { projection: { _id: 1 } }).toArray()],
      ['$and', (c) => c.find({ $and: [{ due: { $gte: 10 } }, { due: { $lte: 30 } }] }, { projection: { _id: 1 } }).toArray()],
      ['$nor', (c) => c.find({ $nor: [{ gone: true }, { due: 10 }] }, { projection: { _id: 1 } }).toArray()],
      ['countDocuments of all', (c) => c.countDocuments()],
      ['countDocuments of some', (c) => c.countDocuments({ due: { $exists: true } })],
      // Writes, in the adapters' shapes first.
      [
        'revive a tombstone',
        (c) =>
          c.updateOne(
            { _id: 3, gone: true },
            untyped({ $set: { name: 'Moss again' }, $unset: { gone: '', tag: '' }, $inc: { v: 1 }, $push: { outbox: { $each: [delivery('d', 1)] } }, $min: { due: 1 } }),
          ),
      ],
      [
        'make a tombstone',
        (c) =>
          c.updateOne(
            { _id: 5, gone: { $exists: false } },
            untyped({ $set: { gone: true }, $unset: { name: '', tag: '' }, $inc: { v: 1 }, $push: { outbox: { $each: [delivery('e', 70)] } }, $min: { due: 70 } }),
          ),
      ],
      ['write on the version read', (c) => c.updateOne({ _id: 1, v: 1 }, { $inc: { v: 1 }, $set: { outbox: [delivery('a', 40)], due: 40 } })],
      ['the same write again: the version moved on', (c) => c.updateOne({ _id: 1, v: 1 }, { $inc: { v: 1 }, $set: { due: 50 } })],
      ['write on no version', (c) => c.updateOne({ _id: 2, v: { $exists: false } }, { $inc: { v: 1 }, $unset: { outbox: '', due: '' } })],
      ['delete on the version read', (c) => c.deleteOne({ _id: 2, v: 1 })],
      ['plain delete of a live plant without outbox', (c) => c.deleteOne({ _id: 2, gone: { $exists: false }, outbox: { $exists: false } })],
      ['$push of one value', (c) => c.updateOne({ _id: 4 }, untyped({ $push: { nums: 2 } }))],
      ['$min lower, $max higher', (c) => c.updateOne({ _id: 1 }, { $min: { due: 35 }, $max: { v: 9 } })],
      ['$min not lower: nothing modified', (c) => c.updateOne({ _id: 1 }, { $min: { due: 36 } })],
      ['$set of the same value: nothing modified', (c) => c.updateOne({ _id: 1 }, { $set: { name: 'Fern' } })],
      ['$unset of a missing field: nothing modified', (c) => c.updateOne({ _id: 1 }, { $unset: { nowhere: '' } })],
      ['dotted $set creates subdocuments; new fields in path order', (c) => c.updateOne({ _id: 4 }, { $set: { 'meta.light.hours': 6, zone: 'b', 'meta.light.aspect': 'east' } })],
      ['dotted $unset', (c) => c.updateOne({ _id: 4 }, { $unset: { 'meta.pot': '' } })],
      ['$inc of a missing field', (c) => c.updateOne({ _id: 4 }, { $inc: { count: 2 } })],
      ['upsert inserting: filter equalities, $setOnInsert', (c) => c.updateOne({ _id: 7, tag: 'new', v: { $exists: false }, rank: { $eq: 2 } }, { $set: { name: 'Aloe' }, $setOnInsert: { v: 1 } }, { upsert: true })],
      ['upsert on a taken id', (c) => c.updateOne({ _id: 7, v: { $exists: false } }, { $set: { name: 'x' } }, { upsert: true })],
      ['upsert matching: no $setOnInsert', (c) => c.updateOne({ _id: 7 }, { $set: { name: 'Aloe vera' }, $setOnInsert: { v: 5 } }, { upsert: true })],
      ['updateMany', (c) => c.updateMany({ due: { $gte: 0 } }, { $inc: { v: 1 } })],
      ['updateMany matching none', (c) => c.updateMany({ due: { $gt: 1000 } }, { $inc: { v: 1 } })],
      ['a replacement is refused', (c) => c.updateOne({ _id: 1 }, { name: 'replaced' })],
      ['two operators on one path', (c) => c.updateOne({ _id: 1 }, { $set: { v: 1 }, $inc: { v: 1 } })],
      ['a path inside another', (c) => c.updateOne({ _id: 4 }, { $set: { meta: {} }, $unset: { 'meta.size': '' } })],
      ['$inc of a string', (c) => c.updateOne({ _id: 1 }, { $inc: { name: 1 } })],
      ['$push onto a non-array', (c) => c.updateOne({ _id: 1 }, untyped({ $push: { name: 'x' } }))],
      ['changing _id', (c) => c.updateOne({ _id: 1 }, { $set: { _id: 11 } })],
      ['a field inside a scalar', (c) => c.updateOne({ _id: 1 }, { $set: { 'name.first': 'x' } })],
      ['a null field', (c) => c.updateOne({ _id: 1 }, { $set: { nothing: null } })],
      ['a field inside null', (c) => c.updateOne({ _id: 1 }, { $set: { 'nothing.first': 'x' } })],
      ['deleteOne matching none', (c) => c.deleteOne({ _id: 99 })],
      ['deleteMany', (c) => c.deleteMany({ _id: { $in: [1, 5, 8] }, due: { $lt: 100 } })],
      ['everything left', (c) => c.find().toArray()],
      ['createIndex', (c) => c.createIndex({ due: 1 }, { name: 'due_1' })],
      ['createIndex, name made up', (c) => c.createIndex({ tag: 1, _id: 1 })],
    ];
    for (const [label, call] of steps) await same(label, call);
    await sameContents('after the sequence');
  });

  it('the adapters write the same documents through it (insertEach, addWithDeliveries, removeWithDeliveries)', async () => {
    const plants = (c: Collection<Doc>) => c as unknown as Collection<PlantDocument>;
    const steps: [string, Call][] = [
      ['import', (c) => insertEach(plants(c), [{ _id: 1, name: 'Fern' }, { _id: 2, name: 'Ivy', tag: 'green' }, { _id: 1, name: 'again' }])],
      ['create with deliveries', (c) => addWithDeliveries(plants(c), { id: 3, name: 'Moss' }, [delivery('a', 10)])],
      ['create over a live plant', (c) => addWithDeliveries(plants(c), { id: 3, name: 'Moss' }, [delivery('b', 10)])],
      ['delete without deliveries', (c) => removeWithDeliveries(plants(c), 1, [])],
      ['delete with deliveries: a tombstone', (c) => removeWithDeliveries(plants(c), 2, [delivery('c', 5)])],
      ['delete a plant with an outbox: a tombstone', (c) => removeWithDeliveries(plants(c), 3, [])],
      ['revive a tombstone', (c) => addWithDeliveries(plants(c), { id: 2, name: 'Ivy again' }, [delivery('d', 3)])],
      ['delete a missing plant', (c) => removeWithDeliveries(plants(c), 9, [delivery('e', 1)])],
    ];
    for (const [label, call] of steps) await same(label, call);
    await sameContents('after the adapters wrote');
  });

  it('the change log writes and reads the same through it (pending changes in plant documents, the log\'s queries)', async () => {
    const plants = (c: Collection<Doc>) => c as unknown as Collection<PlantDocument>;
    const created = (e: string, id: number): NewChange => ({ change: { e, type: 'plant.created', data: { id, name: `p${id}` } }, now: 1000 + id });
    const deleted = (e: string, id: number): NewChange => ({ change: { e, type: 'plant.deleted', data: { id } }, now: 2000 + id });
    // What each side's write left to copy, its random version kept for the removal, shown without it.
    const written = new Map<unknown, Pending>();
    const kept = (c: unknown, result: Written) => {
      if (typeof result !== 'object') return result;
      written.set(c, result);
      return { key: result.key, changes: result.changes, bare: result.bare };
    };
    const log = (c: Collection<Doc>) => c as unknown as Collection<{ _id: string } & Document>;
    const steps: [string, Call][] = [
      ['a create with its change', async (c) => kept(c, await addWithDeliveries(plants(c), { id: 1, name: 'p1' }, [], 1, created('a1', 1)))],
      ['copied: taken out, the document as without a log', (c) => forgetCopied(plants(c), written.get(c)!)],
      ['a delete with a delivery: a tombstone holding both', async (c) => kept(c, await removeWithDeliveries(plants(c), 1, [delivery('x', 5)], 1, deleted('d1', 1)))],
      ['a second create, not yet copied', async (c) => kept(c, await addWithDeliveries(plants(c), { id: 2, name: 'p2' }, [], 2, created('a2', 2)))],
      ['its delete behind it, by the read: both pending', async (c) => kept(c, await removeWithDeliveries(plants(c), 2, [], 2, deleted('d2', 2)))],
      ['copied: a tombstone with nothing else goes', (c) => forgetCopied(plants(c), written.get(c)!)],
      ['revived with its change, behind the tombstone\'s', async (c) => kept(c, await addWithDeliveries(plants(c), { id: 1, name: 'again' }, [], 1, created('a3', 1)))],
      [
        'the stranded ones, as the sweeper finds them',
        async (c) => (await c.find({ feedSince: { $lt: 5000 } }, { limit: 10, projection: { _id: 1, feed: 1, fv: 1, gone: 1, outbox: 1 } }).toArray()).map(({ fv, ...rest }) => ({ ...rest, fv: typeof fv })),
      ],
      ['a removal by a stale version: nothing', (c) => forgetCopied(plants(c), { key: 1, changes: [], fv: 7, bare: false })],
      ['the log', (c) => log(c).insertMany(['k', 'm', 'n', 'p'].map((_id, i) => ({ _id, sb: i === 2 ? 'garden' : 'default', at: 100 + Math.min(i, 2), type: 'plant.deleted', data: { id: i } })))],
      ['a window', (c) => log(c).find({ sb: 'default', at: { $gte: 101 } }, { sort: { at: 1, _id: 1 }, limit: 2 }).toArray()],
      ['the next page, ties by id', (c) => log(c).find({ sb: 'default', at: { $gte: 101 }, $or: [{ at: { $gt: 101 } }, { _id: { $gt: 'm' } }] }, { sort: { at: 1, _id: 1 }, limit: 2, projection: { _id: 1, at: 1 } }).toArray()],
      ['a poll', (c) => log(c).find({ sb: { $in: ['default', 'garden'] }, at: { $gte: 101 } }, { projection: { _id: 1, sb: 1, at: 1 } }).toArray()],
      ['the retention mark', (c) => log(c).updateOne({ _id: '~retention' }, { $max: { before: 101 } }, { upsert: true })],
      ['a mark never moves back', (c) => log(c).updateOne({ _id: '~retention' }, { $max: { before: 50 } }, { upsert: true })],
      ['pruned: the oldest', (c) => log(c).find({ at: { $lt: 102 } }, { projection: { _id: 1 }, limit: 10 }).toArray()],
    ];
    for (const [label, call] of steps) await same(label, call);
    await sameContents('after the change log wrote');
  });

  it('the sandbox counts and the grants write the same documents through it (SandboxCounts, MongoSandboxRegistry)', async () => {
    const T0 = 1_800_000_000_000;
    let now = T0;
    const counts = (c: Collection<Doc>) => new SandboxCounts(c as unknown as Collection<SandboxCountDocument>, () => now, 1000);
    const registry = (c: Collection<Doc>) => new MongoSandboxRegistry(c as unknown as Collection<GrantDocument>, 5000);
    const grant = (name: string, lastUsedAt = T0) => ({ name, tokenDigest: `digest-of-${name}`, createdAt: T0, lastUsedAt });
    // Epochs are random: each side's is kept to count off under, and compared as "an epoch".
    const epochs = new Map<unknown, number | undefined>();
    const steps: [string, Call][] = [
      ['the first reservation makes the count', (c) => counts(c).reserve('box', 1, 2)],
      ['within the quota', (c) => counts(c).reserve('box', 1, 2)],
      ['at the quota: refused', (c) => counts(c).reserve('box', 1, 2)],
      ['more than the quota at once: refused', (c) => counts(c).reserve('box', 3, 2)],
      ['unbounded, as imports', (c) => counts(c).reserve('box', 3)],
      ['given back', (c) => counts(c).giveBack('box', 3)],
      ['the epoch read', async (c) => epochs.set(c, await counts(c).epochOf('box')).get(c) !== undefined],
      ['counted off under it', (c) => counts(c).countOff('box', 1, epochs.get(c))],
      ['a recount too soon', (c) => counts(c).recount('box', async () => 0)],
      [
        'a recount once quiet',
        (c) => {
          now = T0 + 1001;
          return counts(c).recount('box', async () => 0);
        },
      ],
      ['counted off under the epoch before it: nothing', (c) => counts(c).countOff('box', 1, epochs.get(c))],
      ['a sandbox never counted', (c) => counts(c).epochOf('other')],
      ['forgotten once empty', (c) => counts(c).forget('box')],
      ['a grant', (c) => registry(c).create(grant('sb-a'))],
      ['a taken name', (c) => registry(c).create({ ...grant('sb-a'), tokenDigest: 'other' })],
      ['another grant', (c) => registry(c).create(grant('sb-b', T0 + 5))],
      ['touched forward', (c) => registry(c).touch('sb-a', T0 + 9)],
      ['touched back: nothing', (c) => registry(c).touch('sb-a', T0 + 1)],
      ['by its digest', (c) => registry(c).byTokenDigest('digest-of-sb-a')],
      ['idle, oldest use first', (c) => registry(c).idleBefore(T0 + 10, 5)],
      ['idle, at most one', (c) => registry(c).idleBefore(T0 + 10, 1)],
      ['removed', (c) => registry(c).remove('sb-b')],
      ['listed', (c) => registry(c).list()],
    ];
    const epochless = (documents: unknown[]) => JSON.stringify(documents, (key, value) => (key === 'epoch' && typeof value === 'number' ? 'epoch' : value));
    for (const [label, call] of steps) {
      await same(label, call);
      expect(epochless(standIn.documents()), `${label}: documents`).to.equal(epochless(await real.find({}, { sort: { _id: 1 } }).toArray()));
    }
  });

  it('random sequences of writes and reads over a few ids', async function () {
    this.timeout(Math.max(60_000, RANDOM_RUNS * 500));
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 25, size: 'max' }), async (operations) => {
        await real.deleteMany({});
        standIn = new CollectionStandIn<Doc>();
        for (const { label, call } of operations) await same(label, call);
        await sameContents('after the sequence');
      }),
      { numRuns: RANDOM_RUNS },
    );
  });
});

describe('CollectionStandIn on its own', () => {
  const ids = (documents: readonly Doc[]) => documents.map((document) => document._id);
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('each operation waits at the gate, then applies whole; with gateReplies, an applied write can answer late', async () => {
    const held: { operation: string; open: () => void }[] = [];
    const standIn = new CollectionStandIn<Doc>({ gate: (operation) => new Promise<void>((open) => held.push({ operation, open })), gateReplies: true });
    const open = (operation: string) => held.find((entry) => entry.operation === operation)!.open();
    const inserted = standIn.insertOne({ _id: 1, v: 1 });
    const updated = standIn.updateOne({ _id: 1 }, { $inc: { v: 1 } });
    await settle();
    expect(held.map((entry) => entry.operation)).to.deep.equal(['insertOne', 'updateOne']);
    expect(standIn.documents()).to.deep.equal([]);
    // The later call goes first: it finds nothing yet.
    open('updateOne');
    await settle();
    open('updateOne:reply');
    expect(await updated).to.deep.include({ matchedCount: 0 });
    open('insertOne');
    await settle();
    // Applied, though its caller has not heard yet.
    expect(standIn.documents()).to.deep.equal([{ _id: 1, v: 1 }]);
    let answered = false;
    void inserted.then(() => (answered = true));
    await settle();
    expect(answered).to.equal(false);
    open('insertOne:reply');
    expect(await inserted).to.deep.equal({ acknowledged: true, insertedId: 1 });
  });

  it('copies documents in and out, as over the wire: an undefined field is dropped, a later change to an argument changes nothing', async () => {
    let open = () => {};
    const standIn = new CollectionStandIn<Doc>({ gate: () => new Promise<void>((resolve) => (open = resolve)) });
    const document = { _id: 1, tags: ['a'], note: undefined };
    const inserting = standIn.insertOne(document);
    document.tags.push('changed while waiting');
    open();
    await inserting;
    const filter = { _id: 1 };
    const reading = standIn.find(filter).toArray();
    filter._id = 2;
    await settle();
    open();
    const [read] = await reading;
    (read!['tags'] as string[]).push('changed by a reader');
    expect(standIn.documents()).to.deep.equal([{ _id: 1, tags: ['a'] }]);
  });

  it('refuses a taken id with the errors the adapters look for', async () => {
    const standIn = new CollectionStandIn<PlantDocument>();
    await standIn.insertOne({ _id: 1, name: 'Fern' });
    const error = await standIn.insertOne({ _id: 1, name: 'again' }).catch((e: unknown) => e);
    expect(isDuplicateKey(error)).to.equal(true);
    const plants = standIn as unknown as Collection<PlantDocument>;
    expect(await insertEach(plants, [{ _id: 2, name: 'Ivy' }, { _id: 1, name: 'taken' }, { _id: 2, name: 'repeated' }, { _id: 3, name: 'Moss' }])).to.deep.equal([true, false, false, true]);
  });

  it("serves the adapters' outbox: a due plant is claimed, and settling it clears its outbox", async () => {
    const plants = new CollectionStandIn<PlantDocument>();
    const leases = new CollectionStandIn<LeaseDocument>();
    const endpoints = new CollectionStandIn<EndpointDocument>() as unknown as Collection<EndpointDocument>;
    const outbox = new MongoDeliveryOutbox(plants as unknown as Collection<PlantDocument>, leases as unknown as Collection<LeaseDocument>, endpoints, 1000);
    await addWithDeliveries(plants as unknown as Collection<PlantDocument>, { id: 1, name: 'Fern' }, [delivery('a', 10)]);
    expect(await outbox.claim(5, 1000, 10)).to.deep.equal([]);
    const [claim] = await outbox.claim(10, 1000, 10);
    expect(claim).to.deep.include({ plantId: 1, leaseUntil: 1010 });
    expect(await outbox.claim(10, 1000, 10)).to.deep.equal([]);
    expect(await outbox.settle(claim!, [{ id: 'a', result: 'delivered' }])).to.equal(true);
    const [settled] = plants.documents();
    expect(settled).to.deep.equal({ _id: 1, name: 'Fern', v: settled!.v });
    expect(settled!.v).to.be.a('number');
    expect(leases.documents()).to.deep.equal([]);
  });

  // Where FerretDB 1.24 answers otherwise (so the differential test leaves these out), as MongoDB documents them.
  describe('MongoDB semantics FerretDB 1.24 does not follow', () => {
    async function loaded(documents: Doc[]): Promise<CollectionStandIn<Doc>> {
      const standIn = new CollectionStandIn<Doc>();
      await standIn.insertMany(documents);
      return standIn;
    }

    it('$elemMatch queries subdocument elements, all conditions on the same element', async () => {
      const standIn = await loaded([
        { _id: 1, outbox: [{ failed: true, dueAt: 9 }, { dueAt: 1 }] },
        { _id: 2, outbox: [{ failed: true, dueAt: 1 }] },
        { _id: 3, outbox: [1, 2] },
      ]);
      expect(ids(await standIn.find({ outbox: { $elemMatch: { failed: true, dueAt: { $lte: 5 } } } }).toArray())).to.deep.equal([2]);
      expect(ids(await standIn.find({ outbox: { $elemMatch: { failed: true } } }).toArray())).to.deep.equal([1, 2]);
    });

    it('null through an array matches an element without the field, not an empty array or scalars', async () => {
      // MongoDB's own test (jstests/core dotted_path_in_null) has the answer [2, 4].
      const standIn = await loaded([{ _id: 1, a: [{ b: 5 }] }, { _id: 2, a: [{}] }, { _id: 3, a: [] }, { _id: 4, a: [{}, { b: 5 }] }, { _id: 5, a: [5, { b: 5 }] }]);
      expect(ids(await standIn.find({ 'a.b': { $in: [null] } }).toArray())).to.deep.equal([2, 4]);
      expect(ids(await standIn.find({ 'a.b': null }).toArray())).to.deep.equal([2, 4]);
      expect(ids(await standIn.find({ 'a.b': { $exists: false } }).toArray())).to.deep.equal([2, 3]);
    });

    it('$ne and $nin through an array refuse a document any of whose elements matches', async () => {
      const standIn = await loaded([{ _id: 1, o: [{ d: 1 }, { d: 0 }] }, { _id: 2, o: [{ d: 1 }] }]);
      expect(ids(await standIn.find({ 'o.d': { $ne: 0 } }).toArray())).to.deep.equal([2]);
      expect(ids(await standIn.find({ 'o.d': { $nin: [0] } }).toArray())).to.deep.equal([2]);
    });

    it('sorts by a dotted path through arrays, by the least element ascending and the greatest descending; an empty array first', async () => {
      const standIn = await loaded([{ _id: 1, o: [{ d: 5 }, { d: 1 }] }, { _id: 2, o: [{ d: 3 }] }, { _id: 3 }]);
      expect(ids(await standIn.find({}, { sort: { 'o.d': 1 } }).toArray())).to.deep.equal([3, 1, 2]);
      expect(ids(await standIn.find({}, { sort: { 'o.d': -1 } }).toArray())).to.deep.equal([1, 2, 3]);
      // The example of MongoDB's DOCS-2760: an empty array sorts below a missing field both ways.
      const arrays = await loaded([{ _id: 1 }, { _id: 2, a: 1 }, { _id: 3, a: [] }, { _id: 4, a: [1] }, { _id: 5, a: [0, 1] }]);
      expect(ids(await arrays.find({}, { sort: { a: 1 } }).toArray())).to.deep.equal([3, 1, 5, 2, 4]);
      expect(ids(await arrays.find({}, { sort: { a: -1 } }).toArray())).to.deep.equal([2, 4, 5, 1, 3]);
    });

    it('an update that changes nothing modifies nothing: $inc by 0', async () => {
      const standIn = await loaded([{ _id: 1, v: 1 }]);
      expect(await standIn.updateOne({ _id: 1 }, { $inc: { v: 0 } })).to.deep.include({ matchedCount: 1, modifiedCount: 0 });
    });

    it('an upsert takes the equalities inside a top-level $and, and $setOnInsert may set null', async () => {
      const standIn = new CollectionStandIn<Doc>();
      await standIn.updateOne({ $and: [{ _id: 1 }, { tag: 'a' }] }, { $setOnInsert: { v: null } }, { upsert: true });
      expect(standIn.documents()).to.deep.equal([{ _id: 1, tag: 'a', v: null }]);
    });

    it('$push of an empty $each makes a missing field an empty array', async () => {
      const standIn = await loaded([{ _id: 1 }]);
      expect(await standIn.updateOne({ _id: 1 }, { $push: { a: { $each: [] } } })).to.deep.include({ modifiedCount: 1 });
      expect(standIn.documents()).to.deep.equal([{ _id: 1, a: [] }]);
    });
  });

  it('refuses loudly what it does not implement, rather than answer wrongly', async () => {
    const standIn = new CollectionStandIn<Doc>();
    await standIn.insertOne({ _id: 1, a: { b: 1 } });
    const refusal = (call: () => Promise<unknown>) => call().then(() => 'answered', (error: Error) => error.message);
    expect(await refusal(() => standIn.find({ a: { $regex: 'x' } }).toArray())).to.match(/\$regex is not supported/);
    expect(await refusal(() => standIn.find({ $where: 'true' }).toArray())).to.match(/\$where is not supported/);
    expect(await refusal(() => standIn.find({ a: { $type: 'int' } }).toArray())).to.match(/\$type "int" is not supported/);
    expect(await refusal(() => standIn.updateOne({ _id: 1 }, { $rename: { a: 'c' } }))).to.match(/\$rename is not supported/);
    expect(await refusal(() => standIn.find({}, { projection: { 'a.b': 1 } }).toArray())).to.match(/projections/);
    expect(await refusal(() => standIn.updateOne({ v: 1 }, { $set: { w: 1 } }, { upsert: true }))).to.match(/needs an _id/);
  });
});

// ---- Random operations: a small id space and small values, so they often meet. ----

// Strings too, as a named sandbox's keys are beside the default one's numbers.
const id = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom('a/1', 'b/1')) as fc.Arbitrary<number>;
// Numbers, strings, null and booleans side by side, so type bracketing and BSON order are exercised.
const scalar = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b'), fc.constant(null), fc.boolean());
const document = fc.record(
  {
    _id: id,
    v: scalar,
    due: fc.integer({ min: 0, max: 3 }),
    tag: scalar,
    gone: fc.constant(true),
    outbox: fc.array(fc.record({ dueAt: fc.integer({ min: 0, max: 3 }), failed: fc.constant(true) }, { requiredKeys: ['dueAt'] }), { maxLength: 2 }),
    nums: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
    meta: fc.record({ a: scalar, b: scalar }, { requiredKeys: [] }),
  },
  { requiredKeys: ['_id'] },
) as fc.Arbitrary<Doc>;

const field = fc.constantFrom('_id', 'v', 'due', 'tag', 'gone', 'outbox', 'outbox.failed', 'outbox.dueAt', 'nums', 'nums.1', 'meta', 'meta.a');
const condition = fc.oneof(
  scalar,
  fc.constantFrom([], [1, 2], { a: 1 }, { a: 'a', b: null }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $type: fc.constantFrom('number', 'string', 'null', 'bool', 'object', 'array') }),
  fc.tuple(fc.constantFrom('$eq', '$ne', '$lt', '$lte', '$gt', '$gte'), scalar).map(([operator, operand]) => ({ [operator]: operand })),
  fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(scalar, { maxLength: 3 })).map(([operator, operand]) => ({ [operator]: operand })),
  // Only the form on scalar elements: FerretDB 1.24 matches nothing with `$elemMatch: { field: … }`.
  fc.record({ $elemMatch: fc.record({ $gte: fc.integer({ min: 0, max: 3 }) }) }),
);
// No null and no negation on dotted paths, which may cross an array (an upsert can make `meta`
// one): FerretDB 1.24 matches `{ 'a.b': null }` on `a: []` and `a: [5]` but not on
// `a: [{}, { b: 5 }]`, the opposite of MongoDB, and `{ 'a.b': { $ne: 0 } }` (or `$nin: [0]`) on
// `a: [{ b: 1 }, { b: 0 }]`, where MongoDB negates the match of any element.
const clause = fc
  .tuple(field, condition)
  .filter(([path, test]) => !(path.includes('.') && /null|\$ne|\$nin/.test(JSON.stringify(test))))
  .map(([path, test]) => ({ [path]: test }));
const filter = fc.oneof(
  fc.array(clause, { maxLength: 2 }).map((clauses) => Object.assign({}, ...clauses) as object),
  fc.tuple(fc.constantFrom('$or', '$and', '$nor'), fc.array(clause, { minLength: 1, maxLength: 3 })).map(([operator, clauses]) => ({ [operator]: clauses })),
);

const change = fc.oneof(
  fc.tuple(fc.constantFrom('$set', '$min', '$max'), scalar),
  // Not null: FerretDB 1.24 leaves a field `$setOnInsert` sets to null out of the new document.
  fc.tuple(fc.constant('$setOnInsert'), scalar.filter((value) => value !== null)),
  fc.tuple(fc.constant('$unset'), fc.constant('')),
  // Not 0: FerretDB 1.24 counts `$inc` by 0 as a modification, MongoDB does not.
  fc.tuple(fc.constant('$inc'), fc.constantFrom(1, -1, 2)),
  // `$each` not empty: FerretDB 1.24 does not create the missing field from an empty one (MongoDB makes it []).
  fc.tuple(fc.constant('$push'), fc.oneof(scalar, fc.record({ $each: fc.array(scalar, { minLength: 1, maxLength: 2 }) }))),
);
const update = fc
  .uniqueArray(fc.tuple(fc.constantFrom('v', 'due', 'tag', 'gone', 'outbox', 'nums', 'meta.a', 'meta.b'), change), { minLength: 1, maxLength: 3, selector: ([path]) => path })
  .map((changes) => {
    const operators: Record<string, Record<string, unknown>> = {};
    for (const [path, [operator, operand]] of changes) (operators[operator] ??= {})[path] = operand;
    return operators;
  });

// Sorted by one field, then `_id`, so ties do not leave the order to the server. No dotted
// keys: FerretDB 1.24 ignores them in a sort.
const findOptions = fc.record(
  {
    sort: fc.tuple(fc.constantFrom('v', 'due', 'tag', 'gone', 'nums', 'meta'), fc.constantFrom(1, -1), fc.constantFrom(1, -1)).map(([key, direction, byId]) => ({ [key]: direction, _id: byId }) as Record<string, 1 | -1>),
    limit: fc.integer({ min: 0, max: 3 }),
    projection: fc.constantFrom({ _id: 1 }, { v: 1, tag: 1 }, { v: 1, _id: 0 }, { outbox: 0 }, { _id: 0 }),
  },
  { requiredKeys: [] },
);

/** An operation for both sides, shown by its label when fast-check reports a counterexample. */
const named = (label: string, call: Call) => ({ label, call, [fc.toStringMethod]: () => label });
const text = (value: unknown) => JSON.stringify(value);

const operation = fc.oneof(
  document.map((d) => named(`insertOne(${text(d)})`, (c) => c.insertOne(d))),
  fc.array(document, { minLength: 1, maxLength: 3 }).map((ds) => named(`insertMany(${text(ds)})`, (c) => c.insertMany(ds, { ordered: false }))),
  fc.tuple(filter, update).map(([f, u]) => named(`updateOne(${text(f)}, ${text(u)})`, (c) => c.updateOne(f, u))),
  fc.tuple(filter, update).map(([f, u]) => named(`updateMany(${text(f)}, ${text(u)})`, (c) => c.updateMany(f, u))),
  // Upserts by `_id` and one clause at the top: FerretDB 1.24 leaves `$and` equalities out of the new document.
  fc.tuple(id, fc.option(clause, { nil: {} }), update).map(([_id, extra, u]) => {
    const f = { ...extra, _id };
    return named(`upsert(${text(f)}, ${text(u)})`, (c) => c.updateOne(f, u, { upsert: true }));
  }),
  filter.map((f) => named(`deleteOne(${text(f)})`, (c) => c.deleteOne(f))),
  filter.map((f) => named(`deleteMany(${text(f)})`, (c) => c.deleteMany(f))),
  fc.tuple(filter, findOptions).map(([f, o]) => named(`find(${text(f)}, ${text(o)})`, (c) => c.find(f, o).toArray())),
  fc.tuple(filter, fc.constantFrom({}, { projection: { _id: 1, v: 1 } })).map(([f, o]) => named(`findOne(${text(f)}, ${text(o)})`, (c) => c.findOne(f, o))),
  filter.map((f) => named(`countDocuments(${text(f)})`, (c) => c.countDocuments(f))),
);
