import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { MongoClient, type Collection } from 'mongodb';
import { Subscriptions, withDeliveries, type OutboxClaim, type Plant, type PlantEvent } from '../../core/index.js';
import { DEFAULT_COLLECTION_NAME, MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { removeWithDeliveries } from '../../adapters/storage/mongo/mongo-outbox-writes.js';
import type { PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { withDatabase } from '../support/mongo-uri.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';

// The outbox of the MongoDB storage when a delivery worker pauses between sending and
// settling for longer than its lease, and the plant changes meanwhile. Every step runs in
// strict sequence: no concurrency is needed. The workers are played by hand: "time" is the
// `now` given to claim, so a pause past the lease is a later claim whose `now` is beyond the
// first claim's `leaseUntil`. Two servers are two repositories on the same collection, each
// with its own outbox, as two processes would have.

const ENDPOINT = 'https://hooks.example.com/plants';
const T0 = 1_800_000_000_000;
const LEASE_MS = 10_000;
/** Far enough that nothing retried to it falls due within a test. */
const FAR = T0 + 24 * 3600_000;

const created = (plant: Plant): PlantEvent => ({ type: 'plant.created', data: plant });
const deleted = (id: number): PlantEvent => ({ type: 'plant.deleted', data: { id } });

/** Deliveries as the application makes them, stamped with the time the test sets. */
class Clock {
  now = T0;
  subscribedTo(...types: PlantEvent['type'][]): Subscriptions {
    return new Subscriptions([ENDPOINT], types, () => this.now);
  }
}

/** The `due` a document must carry: the earliest dueAt among its heads, none when there is none. */
function expectedDue(document: PlantDocument): number | undefined {
  // The core's own rule (per endpoint the oldest delivery, unless failed), recomputed.
  return withDeliveries({ deliveries: document.outbox ?? [] }, [])?.dueAt;
}

const deliveryIds = (claims: readonly OutboxClaim[], plantId: number) => claims.filter((claim) => claim.plantId === plantId).map((claim) => claim.deliveries.map((delivery) => delivery.id));

describe('mongo outbox: a worker pausing past its lease, in strict sequence', function () {
  this.timeout(10_000);
  let database: TestDatabase;
  let name: string;
  let uri: string;
  const opened: { close(): Promise<void> }[] = [];
  let raw: MongoClient;
  /** The collection the repositories use (the default name), read and written behind their back. */
  const plants = (): Collection<PlantDocument> => raw.db(name).collection<PlantDocument>(DEFAULT_COLLECTION_NAME);
  const server = async () => {
    const repository = await MongoPlantRepository.connect(uri);
    opened.push(repository);
    return repository;
  };

  before(async function () {
    database = await requireDatabase(this);
  });
  beforeEach(async () => {
    name = `plant_store_outbox_scenario_${randomBytes(4).toString('hex')}`;
    uri = withDatabase(database.uri, name);
    raw = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    opened.push(raw);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.close()));
    await dropDatabase(database.uri, name);
  });

  it("a stale settle must not erase a re-created plant's pending delivery", async () => {
    const clock = new Clock();
    const hooks = clock.subscribedTo('plant.created');
    const [a, b] = [await server(), await server()];
    const first = { id: 7, name: 'Fern' };
    const [c1] = hooks.deliveriesFor(created(first));
    expect(await a.add(first, [c1!])).to.equal(true);

    // A claims and sends c1, then pauses past its lease.
    const [claimA] = await a.outbox.claim(T0, LEASE_MS, 2);
    expect(claimA?.deliveries.map((delivery) => delivery.id)).to.deep.equal([c1!.id]);
    // B finds the lease lapsed, sends c1 again and settles it.
    const claimsB = await b.outbox.claim(claimA!.leaseUntil + 1, LEASE_MS, 2);
    expect(deliveryIds(claimsB, 7)).to.deep.equal([[c1!.id]]);
    expect(await b.outbox.settle(claimsB[0]!, [{ id: c1!.id, result: 'delivered' }])).to.equal(true);

    // Deleted (plant.deleted is not subscribed: nothing recorded), then created again: a new document.
    clock.now = claimA!.leaseUntil + 2;
    expect(await b.remove(7, hooks.deliveriesFor(deleted(7)))).to.equal(true);
    const again = { id: 7, name: 'Fern again' };
    const [c2] = hooks.deliveriesFor(created(again));
    expect(await b.add(again, [c2!])).to.equal(true);

    // A resumes and settles its old claim: it must not touch the new document's outbox.
    await a.outbox.settle(claimA!, [{ id: c1!.id, result: 'delivered' }]);

    expect((await b.outbox.state()).pending, 'pending deliveries after the stale settle (c2 must still wait)').to.equal(1);
    const later = await b.outbox.claim(clock.now + 2 * LEASE_MS, LEASE_MS, 2);
    expect(deliveryIds(later, 7), 'a later claim of plant 7').to.deep.equal([[c2!.id]]);
  });

  it('a stale settle must not delete a re-created live plant', async () => {
    const clock = new Clock();
    const hooks = clock.subscribedTo('plant.created', 'plant.deleted');
    const [a, b] = [await server(), await server()];
    // Added without deliveries (an import, or a create before webhooks were set up): the
    // document has no version. When versions counted up, the deletion's tombstone got
    // `v: 1` from `$inc`, and a create with deliveries inserted a fresh document with
    // `v: 1` as well: A's settle of the done tombstone, `deleteOne({_id, v})`, matched the
    // re-created plant.
    expect(await a.addMany([{ id: 7, name: 'Fern' }])).to.deep.equal([true]);
    const [d1] = hooks.deliveriesFor(deleted(7));
    expect(await a.remove(7, [d1!])).to.equal(true);

    const [claimA] = await a.outbox.claim(T0, LEASE_MS, 2);
    expect(claimA?.deliveries.map((delivery) => delivery.id)).to.deep.equal([d1!.id]);
    const claimsB = await b.outbox.claim(claimA!.leaseUntil + 1, LEASE_MS, 2);
    expect(deliveryIds(claimsB, 7)).to.deep.equal([[d1!.id]]);
    expect(await b.outbox.settle(claimsB[0]!, [{ id: d1!.id, result: 'delivered' }])).to.equal(true);

    clock.now = claimA!.leaseUntil + 2;
    const again = { id: 7, name: 'Fern again' };
    const [c2] = hooks.deliveriesFor(created(again));
    expect(await b.add(again, [c2!])).to.equal(true);

    // A resumes: its claim was on the tombstone, which is long gone.
    await a.outbox.settle(claimA!, [{ id: d1!.id, result: 'delivered' }]);

    expect(await b.findById(7), 'the re-created plant after the stale settle').to.deep.equal(again);
    expect((await b.outbox.state()).pending, 'pending deliveries after the stale settle (c2 must still wait)').to.equal(1);
    const later = await b.outbox.claim(clock.now + 2 * LEASE_MS, LEASE_MS, 2);
    expect(deliveryIds(later, 7), 'a later claim of plant 7').to.deep.equal([[c2!.id]]);
  });

  it("a stale due must not starve other plants: a deletion waiting behind a failing delivery is not due", async () => {
    const LIMIT = 2;
    const N = 2 * LIMIT + 1;
    const clock = new Clock();
    const hooks = clock.subscribedTo('plant.created', 'plant.deleted');
    const repository = await server();
    // The endpoint fails: each plant's creation is tried and put off far into the future.
    for (let id = 1; id <= N; id++) {
      const plant = { id, name: `plant ${id}` };
      expect(await repository.add(plant, hooks.deliveriesFor(created(plant)))).to.equal(true);
      const claims = await repository.outbox.claim(clock.now, LEASE_MS, LIMIT);
      expect(claims.map((claim) => claim.plantId)).to.deep.equal([id]);
      expect(await repository.outbox.settle(claims[0]!, [{ id: claims[0]!.deliveries[0]!.id, result: 'retry', dueAt: FAR }])).to.equal(true);
    }
    // Each deletion queues behind its plant's creation (same endpoint): nothing of these may go before FAR.
    clock.now = T0 + 1;
    for (let id = 1; id <= N; id++) expect(await repository.remove(id, hooks.deliveriesFor(deleted(id)))).to.equal(true);
    // An unrelated plant whose creation is due now.
    clock.now = T0 + 2;
    const q = { id: 100, name: 'q' };
    const [cq] = hooks.deliveriesFor(created(q));
    expect(await repository.add(q, [cq!])).to.equal(true);

    // Successive claims at the same time, settling nothing: q must come.
    const claimedPlants: number[][] = [];
    for (let round = 0; round < 3 && !claimedPlants.flat().includes(q.id); round++) {
      claimedPlants.push((await repository.outbox.claim(clock.now, LEASE_MS, LIMIT)).map((claim) => claim.plantId));
    }
    const wrongDue = (await plants().find().sort({ _id: 1 }).toArray())
      .filter((document) => document.due !== expectedDue(document))
      .map((document) => ({ _id: document._id, due: document.due ?? 'absent', expected: expectedDue(document) ?? 'absent' }));
    // Both checked at once, so a failure shows the starvation and its cause together.
    expect(
      { qClaimed: claimedPlants.flat().includes(q.id), wrongDue },
      `q claimed within 3 claims of ${LIMIT} (plants claimed: ${JSON.stringify(claimedPlants)}), and every document's due the earliest dueAt among the deliveries that may go`,
    ).to.deep.equal({ qClaimed: true, wrongDue: [] });
  });

  it('a delete racing the worker must not leave an orphan tombstone', async () => {
    const clock = new Clock();
    const hooks = clock.subscribedTo('plant.created');
    const repository = await server();
    const p = { id: 3, name: 'Ivy' };
    const [c1] = hooks.deliveriesFor(created(p));
    expect(await repository.add(p, [c1!])).to.equal(true);
    const [claimA] = await repository.outbox.claim(T0, LEASE_MS, 2);
    expect(claimA?.deliveries.map((delivery) => delivery.id)).to.deep.equal([c1!.id]);

    // The worker's settle lands right after the deletion's first write (the delete that
    // applies when no delivery waits) and before its next one.
    let settledInBetween: boolean | undefined;
    const collection = plants();
    const wrapped = new Proxy(collection, {
      get(target, property) {
        if (property === 'deleteOne') {
          return async (...args: Parameters<Collection<PlantDocument>['deleteOne']>) => {
            const result = await target.deleteOne(...args);
            if (settledInBetween === undefined) settledInBetween = await repository.outbox.settle(claimA!, [{ id: c1!.id, result: 'delivered' }]);
            return result;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(await removeWithDeliveries(wrapped, p.id, []), 'the removal').to.equal(true);
    expect(settledInBetween, "the worker's settle ran between the removal's writes").to.equal(true);

    expect(await plants().findOne({ _id: p.id }), `the document of plant ${p.id} after its removal`).to.equal(null);
    expect(await repository.findById(p.id)).to.equal(undefined);
    expect(await repository.addMany([{ id: p.id, name: 'x' }]), 'an import of the freed id').to.deep.equal([true]);
  });
});
