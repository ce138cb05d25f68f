import { expect } from 'chai';
import type { Collection } from 'mongodb';
import { plantCreated, Subscriptions, type ChangeLog, type OutboxClaim, type PlantChange } from '../../core/index.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import type { EndpointDocument, LeaseDocument } from '../../adapters/storage/mongo/mongo-delivery-outbox.js';
import { FEED_WINDOW_MS, type ChangeDocument } from '../../adapters/storage/mongo/mongo-change-reader.js';
import type { PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { CollectionStandIn } from '../support/collection-stand-in.js';
import { eventually } from '../support/eventually.js';
import { failingInserts } from '../support/failing-inserts.js';

// The MongoDB change log's own rules, on stand-in collections (each operation whole, as
// MongoDB applies it): servers whose clocks disagree, pages of changes stamped alike, which
// cursors reset, changes a writer left behind, a purged sandbox. The feed over HTTP, on a
// real database, is test/feed/mongo-*.test.ts.

const TIMEOUT_MS = 1000;
const changes = (list: PlantChange[]) => list.map(({ event }) => `${event.type === 'plant.created' ? '+' : '-'}${event.data.id}`);

describe('MongoDB change log', () => {
  let plants: CollectionStandIn<PlantDocument>;
  let log: CollectionStandIn<ChangeDocument>;
  let leases: CollectionStandIn<LeaseDocument>;
  /** A server on the shared collections, reading `changes` for the log and its clock from `now`. */
  const serverOn = (changes: object, now: () => number) =>
    MongoPlantRepository.over(
      {
        plants: plants as unknown as Collection<PlantDocument>,
        leases: leases as unknown as Collection<LeaseDocument>,
        endpoints: new CollectionStandIn<EndpointDocument>() as unknown as Collection<EndpointDocument>,
        changes: changes as Collection<ChangeDocument>,
      },
      { timeoutMS: TIMEOUT_MS, now },
    );
  /** A server whose clock is `skewMs` off this process's; `dying`: its inserts into the log fail. */
  const server = (skewMs = 0, dying = false) => serverOn(dying ? failingInserts(log) : log, () => Date.now() + skewMs);
  const open = (changeLog: ChangeLog, cursor?: string) => changeLog.open(cursor);
  beforeEach(() => {
    plants = new CollectionStandIn<PlantDocument>();
    log = new CollectionStandIn<ChangeDocument>();
    leases = new CollectionStandIn<LeaseDocument>();
  });

  it('a follower gets the changes of a server whose clock is behind, within the window, each once', async () => {
    const [ahead, behind] = [server(), server(-FEED_WINDOW_MS + 500)];
    const { reader } = await open(ahead.changes!);
    await ahead.add({ id: 1, name: 'one' });
    const first = await reader.next(10);
    expect(changes(first)).to.deep.equal(['+1']);
    // Stamped seconds before the follower's place by the lagging clock: still read, once.
    await behind.add({ id: 2, name: 'two' });
    await behind.remove(1);
    expect(changes(await reader.next(10))).to.deep.equal(['+2', '-1']);
    await ahead.add({ id: 3, name: 'three' });
    expect(changes(await reader.next(10))).to.deep.equal(['+3']);
    expect(await reader.next(10)).to.deep.equal([]);
    // Resumed from the first change's cursor: everything after it (and the window before it again).
    const { reader: resumed, reset } = await open(ahead.changes!, first[0]!.cursor);
    expect(reset).to.equal(false);
    expect(changes(await resumed.next(10))).to.include.members(['+2', '-1', '+3']);
  });

  it('a change stamped further behind a live follower than the window is not read live, but a follower resuming from before it gets it', async () => {
    const [ahead, farBehind] = [server(), server(-(FEED_WINDOW_MS + TIMEOUT_MS) - 5_000)];
    const { reader } = await open(ahead.changes!);
    await farBehind.add({ id: 2, name: 'two' });
    expect(await reader.next(10), 'live: the documented limit of the window').to.deep.equal([]);
    const { reader: resumed } = await open(ahead.changes!, `m${((Date.now() - 60_000) * 1000).toString(36)}.`);
    expect(changes(await resumed.next(10))).to.deep.equal(['+2']);
  });

  it('more than a page of changes stamped alike (servers whose clocks tie) are read once each, in id order', async () => {
    const repository = server();
    const at = Date.now() * 1000;
    const ids = Array.from({ length: 1_300 }, (_, i) => `e${String(i).padStart(5, '0')}`);
    await log.insertMany(ids.map((_id, i) => ({ _id, sb: 'default', at, type: 'plant.created', data: { id: i, name: `p${i}` } })));
    const { reader } = await open(repository.changes!, `m${(at - 1).toString(36)}.`);
    const read: PlantChange[] = [];
    for (let batch = await reader.next(256); batch.length > 0; batch = await reader.next(256)) read.push(...batch);
    expect(read.map((change) => change.cursor.split('.')[1])).to.deep.equal(ids);
  });

  it('a scan that passed a plant\'s change before it became readable, then met the plant\'s next change, hands out the first before the second (also when that takes it past its limit)', async () => {
    // 25: the read ends short of its limit; 21: it reaches it on the delete, which the create then pushes to the next read.
    for (const limit of [25, 21]) {
      let pagesLeft: number | undefined;
      let landed: () => Promise<void> = async () => {};
      const racingLog = new CollectionStandIn<ChangeDocument>({
        gate: async (operation) => {
          if (operation !== 'find' || pagesLeft === undefined || --pagesLeft > 0) return;
          pagesLeft = undefined;
          await landed();
        },
      });
      [log, plants] = [racingLog, new CollectionStandIn<PlantDocument>()];
      const repository = serverOn(racingLog, Date.now);
      const { reader } = await open(repository.changes!);
      for (let id = 1; id <= 30; id++) await repository.add({ id, name: `p${id}` });
      const stamps = (await racingLog.find({}, { sort: { at: 1 } }).toArray()).map((change) => change.at);
      const first = await reader.next(10);
      // No follower, so each read goes over its window: the next skips the 10 it handed out, and
      // between its first page (limit + 1 changes) and its second, plant 500's create lands behind
      // where the first page got to (stamped before, readable only now), and its delete, written
      // once the create was acknowledged, lands ahead.
      landed = async () => {
        await racingLog.insertOne({ _id: 'late-create', sb: 'default', at: stamps[15]! + 1, type: 'plant.created', data: { id: 500, name: 'late' } });
        await racingLog.insertOne({ _id: 'then-delete', sb: 'default', at: stamps[stamps.length - 1]! + 1000, type: 'plant.deleted', data: { id: 500 } });
      };
      pagesLeft = 2;
      const raced = changes(await reader.next(limit));
      expect(pagesLeft, `limit ${limit}: the changes landed between the pages`).to.equal(undefined);
      expect(raced.includes('-500'), 'the delete came in the same read').to.equal(limit === 25);
      const rest = [...(await reader.next(limit)), ...(await reader.next(limit))];
      const order = [...changes(first), ...raced, ...changes(rest)];
      expect(order.filter((change) => change.endsWith('500')), `limit ${limit}`).to.deep.equal(['+500', '-500']);
      expect(order.filter((change) => change.startsWith('+'))).to.have.length(31);
      expect(new Set(order).size, 'each once').to.equal(order.length);
      expect(order).to.have.length(32);
    }
  });

  it('a followed reader handed more late changes than its limit takes, gets the rest next, from the last it handed out', async () => {
    let pagesLeft: number | undefined;
    const at = Date.now() * 1000;
    const change = (_id: string, stamp: number, type: 'plant.created' | 'plant.deleted', id: number) =>
      ({ _id, sb: 'default', at: stamp, type, data: type === 'plant.created' ? { id, name: `p${id}` } : { id } }) as ChangeDocument;
    const racingLog = new CollectionStandIn<ChangeDocument>({
      gate: async (operation) => {
        if (operation !== 'find' || pagesLeft === undefined || --pagesLeft > 0) return;
        pagesLeft = undefined;
        // Between the pages: plants 500 and 501's creates land behind, their deletes ahead.
        for (const id of [500, 501]) await racingLog.insertOne(change(`late-${id}`, at - 10 + id - 500, 'plant.created', id));
        for (const id of [500, 501]) await racingLog.insertOne(change(`then-${id}`, at + 10 + id - 500, 'plant.deleted', id));
      },
    });
    log = racingLog;
    // 30 changes stamped alike (servers whose clocks tie), so a read resuming at their `at` meets those it handed out again.
    await racingLog.insertMany(Array.from({ length: 30 }, (_, i) => change(`e${String(i + 1).padStart(2, '0')}`, at, 'plant.created', i + 1)));
    const repository = serverOn(racingLog, Date.now);
    const { reader } = await open(repository.changes!, `m${(at - 1).toString(36)}.`);
    // Followed: a read goes on from where the last one stopped, not over its whole window.
    const unwatch = repository.changes!.watch(() => {});
    try {
      const first = changes(await reader.next(10));
      expect(first).to.deep.equal(Array.from({ length: 10 }, (_, i) => `+${i + 1}`));
      // The next read's first page holds the 10 handed out and 13 more; its second, the other 7
      // and the two deletes: 22, its limit. The two creates found behind come first, and push
      // the two deletes past the limit.
      pagesLeft = 2;
      const second = changes(await reader.next(22));
      expect(pagesLeft, 'the changes landed between the pages').to.equal(undefined);
      expect(second).to.deep.equal(['+500', '+501', ...Array.from({ length: 20 }, (_, i) => `+${i + 11}`)]);
      expect(changes(await reader.next(22))).to.deep.equal(['-500', '-501']);
      expect(await reader.next(22)).to.deep.equal([]);
    } finally {
      unwatch();
    }
  });

  it('a followed reader reads what is new, not its window again: catching up 5,000 changes reads each about once; a lagging server\'s change is still read, once the poll notes it', async () => {
    let read = 0;
    // Counts what readers fetch (the poll asks for fewer fields, and is not counted).
    const counted = new Proxy(log, {
      get: (target, property, receiver) =>
        property === 'find'
          ? (filter: object, options: { projection?: object } = {}) => {
              const cursor = target.find(filter as never, options as never);
              if (options.projection !== undefined) return cursor;
              const toArray = cursor.toArray.bind(cursor);
              return Object.assign(cursor, { toArray: async () => { const found = await toArray(); read += found.length; return found; } });
            }
          : Reflect.get(target, property, receiver),
    });
    const follower = serverOn(counted, Date.now);
    const at = Date.now() * 1000;
    const N = 5_000;
    await log.insertMany(Array.from({ length: N }, (_, i) => ({ _id: `e${String(i).padStart(5, '0')}`, sb: 'default', at: at + i, type: 'plant.created' as const, data: { id: i + 1, name: `p${i}` } })));
    let woken = 0;
    const unwatch = follower.changes!.watch(() => woken++);
    try {
      const { reader } = await open(follower.changes!, `m${(at - 1).toString(36)}.`);
      let handed = 0;
      for (let batch = await reader.next(256); batch.length > 0; batch = await reader.next(256)) handed += batch.length;
      expect(handed).to.equal(N);
      expect(read, 'documents fetched').to.be.below(1.1 * N);
      await eventually(() => woken > 0, { timeoutMs: 2000, what: 'the first poll' });
      await reader.next(256);
      woken = 0;
      await server(-FEED_WINDOW_MS + 500).add({ id: N + 1, name: 'late' });
      await eventually(() => woken > 0, { timeoutMs: 2000, what: 'a wake from the poll' });
      expect(changes(await reader.next(256))).to.deep.equal([`+${N + 1}`]);
    } finally {
      unwatch();
    }
  });

  it('a copy acknowledged later than a call may take is stamped again: a follower that read past its first stamp still gets it', async () => {
    let offset = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let hold = false;
    let arrived: () => void = () => {};
    const atGate = new Promise<void>((resolve) => (arrived = resolve));
    const slowLog = new CollectionStandIn<ChangeDocument>({
      gate: async (operation) => {
        if (operation !== 'insertOne' || !hold) return;
        hold = false;
        arrived();
        await held;
      },
    });
    log = slowLog;
    const clock = () => Date.now() + offset;
    const [writer, other] = [serverOn(slowLog, clock), serverOn(slowLog, clock)];
    const { reader } = await open(other.changes!);
    hold = true;
    const stalled = writer.add({ id: 1, name: 'stalled' }).then(() => 'acknowledged', (error: { code?: number }) => error.code);
    // Its change is stamped, then its insert waits while the clocks move on past the window.
    await atGate;
    offset += FEED_WINDOW_MS + 2 * TIMEOUT_MS + 1000;
    await other.add({ id: 2, name: 'later' });
    expect(changes(await reader.next(10))).to.deep.equal(['+2']);
    expect(await stalled, 'the call times out, its copy still on its way').to.equal(50301);
    release();
    await eventually(() => plants.documents().find((document) => document._id === 1)?.feed === undefined, { timeoutMs: 2000, what: 'the copy to end' });
    expect(changes(await reader.next(10))).to.deep.equal(['+1']);
  });

  it('a server whose clock stepped ahead and back reads as its clock reads now: other servers\' changes reach its followers', async () => {
    let offset = 0;
    const [stepped, steady] = [serverOn(log, () => Date.now() + offset), server()];
    // A step ahead (an NTP step, a resumed VM) while the log is used, then back.
    offset = 3_600_000;
    await open(stepped.changes!);
    offset = 0;
    const { reader } = await open(stepped.changes!);
    await steady.add({ id: 7, name: 'seven' });
    expect(changes(await reader.next(10))).to.deep.equal(['+7']);
  });

  it('a malformed, foreign or future cursor resets; so does one older than retention, once pruned; a retained one resumes', async () => {
    const repository = server();
    await repository.add({ id: 1, name: 'one' });
    const { reader } = await open(repository.changes!, `m${((Date.now() - 1000) * 1000).toString(36)}.`);
    const [first] = await reader.next(10);
    for (const cursor of ['x', 'm.', 'mzzzzzzzzzzzz.a', 'ab12cd34-5', `m${((Date.now() + FEED_WINDOW_MS + 60_000) * 1000).toString(36)}.`]) {
      expect((await open(repository.changes!, cursor)).reset, cursor).to.equal(true);
    }
    expect((await open(repository.changes!, first!.cursor)).reset).to.equal(false);
    expect(await repository.changeRetention!.pruneBefore(Date.now() + 1, 10)).to.equal(1);
    expect((await open(repository.changes!, first!.cursor)).reset, 'pruned past it').to.equal(true);
    expect((await open(repository.changes!, `m${(Date.now() * 1000 + 2000).toString(36)}.`)).reset, 'after the prune').to.equal(false);
  });

  it('pruning deletes at most `limit` of the oldest changes per call, every sandbox\'s', async () => {
    const repository = server();
    for (let id = 1; id <= 5; id++) await repository.add({ id, name: `p${id}` });
    for (let id = 1; id <= 3; id++) await repository.sandbox('garden').add({ id, name: `g${id}` });
    const retention = repository.changeRetention!;
    expect([await retention.pruneBefore(Date.now() + 1, 5), await retention.pruneBefore(Date.now() + 1, 5), await retention.pruneBefore(Date.now() + 1, 5)]).to.deep.equal([5, 3, 0]);
    expect(log.documents().filter((document) => document.sb !== undefined)).to.deep.equal([]);
  });

  it('changes a writer left in documents are copied by the sweeper once its call is surely over, a tombstone then deleted', async () => {
    const repository = server();
    // What a writer that stopped after its plant write leaves: a tombstone holding its changes.
    const stranded = (since: number): PlantDocument => ({
      _id: 4,
      name: '',
      gone: true,
      feed: [
        { e: 'created4', type: 'plant.created', data: { id: 4, name: 'four' } },
        { e: 'deleted4', type: 'plant.deleted', data: { id: 4 } },
      ],
      fv: 42,
      feedSince: since,
    });
    const { name: _, ...tombstone } = stranded(Date.now());
    await plants.insertOne(tombstone as PlantDocument);
    expect(await repository.changeRetention!.recoverStranded!(10), 'its writer may still be at it').to.equal(0);
    await plants.deleteOne({ _id: 4 });
    const { name: __, ...old } = stranded(Date.now() - TIMEOUT_MS - 1);
    await plants.insertOne(old as PlantDocument);
    const { reader } = await open(repository.changes!, `m${((Date.now() - 100) * 1000).toString(36)}.`);
    expect(await repository.changeRetention!.recoverStranded!(10)).to.equal(1);
    expect(changes(await reader.next(10))).to.deep.equal(['+4', '-4']);
    expect(plants.documents(), 'nothing left to keep the tombstone').to.deep.equal([]);
    expect(await repository.changeRetention!.recoverStranded!(10)).to.equal(0);
  });

  it('a plant whose change is not in the log yet waits for it: its deliveries are not claimed, and a tombstone whose deliveries are done stays, until the sweeper copies the change', async () => {
    const [live, dying] = [server(), server(0, true)];
    const hooks = new Subscriptions(['https://hooks.example/plants'], ['plant.created', 'plant.deleted'], Date.now);
    const delivered = (claim: OutboxClaim) => live.outbox.settle(claim, claim.deliveries.map((delivery) => ({ id: delivery.id, result: 'delivered' as const })));
    const six = { id: 6, name: 'six' };
    await dying.add(six, hooks.deliveriesFor(plantCreated(six))).catch(() => {});
    expect(await live.outbox.claim(Date.now(), 10_000, 10), 'created, not logged: not claimed').to.deep.equal([]);
    // A claim taken before the delete left its change behind: settling it empties the outbox.
    const five = { id: 5, name: 'five' };
    await live.add(five, hooks.deliveriesFor(plantCreated(five)));
    const [claim] = await live.outbox.claim(Date.now(), 10_000, 10);
    await dying.remove(5).catch(() => {});
    expect(await delivered(claim!)).to.equal(true);
    const tombstone = plants.documents().find((document) => document._id === 5);
    expect([tombstone?.gone, tombstone?.outbox, tombstone?.feed?.map((change) => change.type)], 'delivered, not logged').to.deep.equal([true, undefined, ['plant.deleted']]);
    const { reader } = await open(live.changes!, `m${((Date.now() - 100) * 1000).toString(36)}.`);
    expect(await server(TIMEOUT_MS + 1).changeRetention!.recoverStranded!(10)).to.equal(2);
    expect(changes(await reader.next(10)).sort()).to.deep.equal(['+5', '+6', '-5']);
    expect(plants.documents().map((document) => document._id), 'the tombstone gone').to.deep.equal([6]);
    const [late] = await live.outbox.claim(Date.now(), 10_000, 10);
    expect(late?.plantId, 'logged: claimed').to.equal(6);
  });

  it('another server\'s change wakes this one\'s followers of its sandbox within a poll; its own, at once', async () => {
    const [here, there] = [server(), server()];
    const woken: string[] = [];
    const stop = [here.changes!.watch(() => woken.push('default')), here.sandbox('garden').changes!.watch(() => woken.push('garden'))];
    try {
      await here.sandbox('garden').add({ id: 1, name: 'here' });
      expect(woken, 'at once').to.deep.equal(['garden']);
      await there.add({ id: 1, name: 'there' });
      await eventually(() => woken.includes('default'), { timeoutMs: 2000, what: 'a wake from the poll' });
    } finally {
      for (const unwatch of stop) unwatch();
    }
  });

  it('a purge takes a sandbox\'s changes with its plants, and marks when (retention prunes the mark with them); other sandboxes\' stay', async () => {
    const repository = server();
    for (const id of [1, 2]) await repository.sandbox('gone').add({ id, name: `g${id}` });
    await repository.sandbox('kept').add({ id: 1, name: 'k1' });
    while ((await repository.sandbox('gone').purge(10)) > 0);
    expect(log.documents().map((document) => document.sb ?? document._id)).to.deep.equal(['kept', '~purged/gone']);
    await repository.changeRetention!.pruneBefore(Date.now() + 1, 10);
    expect(log.documents().map((document) => document._id)).to.deep.equal(['~retention']);
  });
});
