import { expect } from 'chai';
import { plantCreated, plantDeleted, Subscriptions, type DeliveryOutbox, type DeliveryOutcome, type OutboxClaim, type PlantRepository } from '../../core/index.js';

/** One instance of a storage: the repository records changes with their deliveries, the outbox hands them out. */
export interface OutboxInstance {
  readonly repository: PlantRepository;
  readonly outbox: DeliveryOutbox;
}

/** A storage on fresh, empty data, and what else it can open on that data. */
export interface OutboxFixture {
  readonly first: OutboxInstance;
  /** Another instance on the same data, as a second server has (`severalProcesses`). */
  another?(): Promise<OutboxInstance>;
  /** Closes every instance and opens the data again (`durable`). */
  reopen?(): Promise<OutboxInstance>;
  /** Closes every instance and removes the data. */
  close(): Promise<void>;
}

/** What differs between storages; a test of a capability runs only where it is claimed. */
export interface OutboxSupports {
  /** Several instances (processes) share the data. */
  readonly severalProcesses: boolean;
  /** The data outlives closing and reopening. */
  readonly durable: boolean;
  /** The repository keeps sandboxes (`repository.sandbox(name)`), whose plants share the outbox. */
  readonly sandboxes: boolean;
}

const T0 = 1_800_000_000_000;
const LEASE_MS = 10_000;
const A = 'https://a.example/hook';
const B = 'https://b.example/hook';

/**
 * The behaviour every DeliveryOutbox promises (see core/ports/delivery-outbox.ts and the
 * outbox rules in core/outbox/): each storage's test file calls this with a factory. Time
 * is only the `now` given to each call; nothing here waits.
 */
export function outboxContract(name: string, factory: () => Promise<OutboxFixture>, supports: OutboxSupports): void {
  describe(`${name} outbox contract`, () => {
    let fixture: OutboxFixture;
    let first: OutboxInstance;
    let now: number;
    const toA = new Subscriptions([A], ['plant.created', 'plant.deleted'], () => now);
    const toBoth = new Subscriptions([A, B], ['plant.created', 'plant.deleted'], () => now);
    beforeEach(async () => {
      now = T0;
      fixture = await factory();
      first = fixture.first;
    });
    afterEach(async () => fixture?.close());

    const create = (at: OutboxInstance, id: number, to = toA) => {
      const plant = { id, name: `plant ${id}` };
      return at.repository.add(plant, to.deliveriesFor({ type: 'plant.created', data: plant }));
    };
    const remove = (at: OutboxInstance, id: number, to = toA) => at.repository.remove(id, to.deliveriesFor({ type: 'plant.deleted', data: { id } }));
    /** Claims at `time`, in plant order (a storage may hand them out in any). */
    const claim = async (instance: OutboxInstance, time: number, leaseMs = LEASE_MS, limit = 100) =>
      (await instance.outbox.claim(time, leaseMs, limit)).sort((x, y) => x.plantId - y.plantId);
    /** Each claimed plant with its deliveries as `type→endpoint`, endpoints in order. */
    const shown = (claims: readonly OutboxClaim[]) =>
      claims.map((c) => [c.plantId, c.deliveries.map((d) => `${d.event.type}→${d.endpoint === A ? 'A' : 'B'}`).sort()]);
    const all = (c: OutboxClaim, result: DeliveryOutcome['result'], more: Partial<DeliveryOutcome> = {}) => c.deliveries.map((d) => ({ id: d.id, result, ...more }));

    it('deliveries recorded with add and remove are claimed once due, never before; a refused change records none', async () => {
      expect(await create(first, 1)).to.equal(true);
      expect(await create(first, 1), 'id taken').to.equal(false);
      expect(await remove(first, 2), 'no such plant').to.equal(false);
      expect(await claim(first, T0 - 1)).to.deep.equal([]);
      const [created] = await claim(first, T0);
      expect(shown([created!])).to.deep.equal([[1, ['plant.created→A']]]);
      expect(created!.leaseUntil).to.equal(T0 + LEASE_MS);
      expect(created!.deliveries[0]).to.deep.include({ endpoint: A, event: { type: 'plant.created', data: { id: 1, name: 'plant 1' } }, createdAt: T0, attempts: 0, dueAt: T0 });
      expect(await first.outbox.settle(created!, all(created!, 'delivered', { status: 200 }))).to.equal(true);
      now = T0 + 5;
      expect(await remove(first, 1)).to.equal(true);
      const deleted = await claim(first, now);
      expect(shown(deleted)).to.deep.equal([[1, ['plant.deleted→A']]]);
      expect(await first.outbox.settle(deleted[0]!, all(deleted[0]!, 'delivered'))).to.equal(true);
      expect(await first.outbox.state()).to.deep.equal({ pending: 0, failed: [] });
    });

    it('a claim takes at most `limit` plants; further claims take the rest', async () => {
      for (const id of [1, 2, 3]) await create(first, id);
      const taken = await claim(first, T0, LEASE_MS, 2);
      expect(taken).to.have.length(2);
      // MongoDB picks at random among twice `limit` due plants, held ones included: a claim
      // may come back short while other claims hold plants.
      for (let round = 0; round < 50 && taken.length < 3; round++) taken.push(...(await claim(first, T0, LEASE_MS, 2)));
      expect(taken.map((c) => c.plantId).sort()).to.deep.equal([1, 2, 3]);
      expect(await claim(first, T0)).to.deep.equal([]);
    });

    it('one claim at a time holds a plant, until its lease lapses', async () => {
      await create(first, 1);
      const [held] = await claim(first, T0);
      expect(await claim(first, T0 + LEASE_MS), 'held up to leaseUntil').to.deep.equal([]);
      const [again] = await claim(first, T0 + LEASE_MS + 1);
      expect(again!.deliveries.map((d) => d.id)).to.deep.equal(held!.deliveries.map((d) => d.id));
    });

    it('a lapsed claim can be taken over; its late settle then writes nothing and answers false', async () => {
      await create(first, 1);
      const [stale] = await claim(first, T0, 1_000);
      const [fresh] = await claim(first, T0 + 1_001);
      expect(await first.outbox.settle(stale!, all(stale!, 'delivered'))).to.equal(false);
      expect((await first.outbox.state()).pending).to.equal(1);
      expect(await first.outbox.settle(fresh!, all(fresh!, 'delivered'))).to.equal(true);
      expect((await first.outbox.state()).pending).to.equal(0);
    });

    it('a lapsed claim that nobody took over still settles', async () => {
      await create(first, 1);
      const [late] = await claim(first, T0, 1_000);
      expect(await first.outbox.settle(late!, all(late!, 'delivered'))).to.equal(true);
      expect(await first.outbox.state()).to.deep.equal({ pending: 0, failed: [] });
    });

    it('settle: delivered removes the delivery, retry makes it due at the given time, failed keeps it to be seen; state() counts them', async () => {
      for (const id of [1, 2, 3]) await create(first, id);
      const [one, two, three] = await claim(first, T0);
      await first.outbox.settle(one!, all(one!, 'delivered', { status: 200 }));
      await first.outbox.settle(two!, all(two!, 'retry', { dueAt: T0 + 5_000, status: 500 }));
      await first.outbox.settle(three!, all(three!, 'failed', { error: 'no answer within 10000 ms' }));
      const state = await first.outbox.state();
      expect(state).to.deep.include({ pending: 1, oldestPendingAt: T0 });
      expect(state.failed).to.deep.equal([
        { id: three!.deliveries[0]!.id, plantId: 3, endpoint: A, type: 'plant.created', createdAt: T0, attempts: 1, lastError: 'no answer within 10000 ms' },
      ]);
      expect(await claim(first, T0 + 4_999)).to.deep.equal([]);
      const [retried] = await claim(first, T0 + 5_000);
      expect(retried!.plantId).to.equal(2);
      expect(retried!.deliveries[0]).to.deep.include({ attempts: 1, lastStatus: 500, dueAt: T0 + 5_000 });
      await first.outbox.settle(retried!, all(retried!, 'delivered', { status: 204 }));
      expect(await first.outbox.state()).to.deep.include({ pending: 0 });
    });

    it('per endpoint only the oldest delivery is claimed; each endpoint goes at its own pace', async () => {
      await create(first, 1, toBoth);
      await remove(first, 1, toBoth);
      const [c1] = await claim(first, T0);
      expect(shown([c1!])).to.deep.equal([[1, ['plant.created→A', 'plant.created→B']]]);
      await first.outbox.settle(c1!, c1!.deliveries.map((d) => (d.endpoint === A ? { id: d.id, result: 'delivered' } : { id: d.id, result: 'retry', dueAt: T0 + 5_000 })));
      const c2 = await claim(first, T0 + 1);
      expect(shown(c2)).to.deep.equal([[1, ['plant.deleted→A']]]);
      await first.outbox.settle(c2[0]!, all(c2[0]!, 'delivered'));
      const c3 = await claim(first, T0 + 5_000);
      expect(shown(c3)).to.deep.equal([[1, ['plant.created→B']]]);
      await first.outbox.settle(c3[0]!, all(c3[0]!, 'delivered'));
      expect(shown(await claim(first, T0 + 5_000))).to.deep.equal([[1, ['plant.deleted→B']]]);
    });

    it("a deletion recorded while its plant's creation is claimed is queued behind it, and a re-creation behind that", async () => {
      await create(first, 1);
      const [creation] = await claim(first, T0);
      now = T0 + 1;
      expect(await remove(first, 1)).to.equal(true);
      expect(await create(first, 1)).to.equal(true);
      expect(await claim(first, now), 'still held by the claim out').to.deep.equal([]);
      expect(await first.outbox.settle(creation!, all(creation!, 'delivered'))).to.equal(true);
      for (const type of ['plant.deleted', 'plant.created']) {
        const [next] = await claim(first, now);
        expect(shown([next!])).to.deep.equal([[1, [`${type}→A`]]]);
        await first.outbox.settle(next!, all(next!, 'delivered'));
      }
      expect(await first.outbox.state()).to.deep.equal({ pending: 0, failed: [] });
    });

    it('a failed delivery holds back the younger ones to its endpoint until failed deliveries are retried', async () => {
      await create(first, 1);
      await remove(first, 1);
      const [creation] = await claim(first, T0);
      await first.outbox.settle(creation!, all(creation!, 'failed', { status: 503 }));
      expect(await claim(first, T0 + 365 * 86_400_000), 'nothing due, ever').to.deep.equal([]);
      expect(await first.outbox.state()).to.deep.include({ pending: 1 });
      expect(await first.outbox.retryFailed(T0 + 60_000)).to.equal(1);
      const [again] = await claim(first, T0 + 60_000);
      expect(shown([again!])).to.deep.equal([[1, ['plant.created→A']]]);
      expect(again!.deliveries[0]).to.deep.include({ id: creation!.deliveries[0]!.id, attempts: 0, dueAt: T0 + 60_000 });
      await first.outbox.settle(again!, all(again!, 'delivered'));
      expect(shown(await claim(first, T0 + 60_000))).to.deep.equal([[1, ['plant.deleted→A']]]);
    });

    it('markGone is remembered by goneEndpoints until retryFailed, which clears them all and answers how many deliveries it made pending', async () => {
      expect([...(await first.outbox.goneEndpoints())]).to.deep.equal([]);
      await first.outbox.markGone(A, T0);
      await first.outbox.markGone(B, T0);
      await first.outbox.markGone(A, T0 + 1);
      expect([...(await first.outbox.goneEndpoints())].sort()).to.deep.equal([A, B]);
      for (const id of [1, 2]) await create(first, id);
      for (const c of await claim(first, T0)) await first.outbox.settle(c, all(c, 'failed', { status: 410 }));
      expect(await first.outbox.retryFailed(T0 + 100)).to.equal(2);
      expect([...(await first.outbox.goneEndpoints())]).to.deep.equal([]);
      expect(await first.outbox.retryFailed(T0 + 200), 'nothing failed any more').to.equal(0);
      expect((await claim(first, T0 + 100)).map((c) => c.plantId)).to.deep.equal([1, 2]);
    });

    if (supports.severalProcesses) {
      it('a second instance skips plants the first holds, takes over its lapsed claims, and shares outcomes and gone endpoints', async () => {
        const second = await fixture.another!();
        for (const id of [1, 2]) await create(first, id);
        const [held] = await claim(first, T0, 1_000, 1);
        const [other] = await claim(second, T0);
        expect(other!.plantId).to.not.equal(held!.plantId);
        expect(await claim(second, T0 + 500), 'both held').to.deep.equal([]);
        await second.outbox.settle(other!, all(other!, 'delivered'));
        const [taken] = await claim(second, T0 + 1_001);
        expect(taken!.plantId).to.equal(held!.plantId);
        expect(await first.outbox.settle(held!, all(held!, 'delivered'))).to.equal(false);
        expect(await second.outbox.settle(taken!, all(taken!, 'failed', { status: 410 }))).to.equal(true);
        expect((await first.outbox.state()).failed.map((f) => f.plantId)).to.deep.equal([held!.plantId]);
        await first.outbox.markGone(A, T0 + 1_001);
        expect([...(await second.outbox.goneEndpoints())]).to.deep.equal([A]);
        expect(await second.outbox.retryFailed(T0 + 2_000)).to.equal(1);
        expect([...(await first.outbox.goneEndpoints())]).to.deep.equal([]);
        expect((await claim(first, T0 + 2_000)).map((c) => c.plantId)).to.deep.equal([held!.plantId]);
      });
    }

    if (supports.durable) {
      it('after reopening, pending and failed deliveries and gone endpoints are still there', async () => {
        for (const id of [1, 2]) await create(first, id);
        const [one, two] = await claim(first, T0);
        await first.outbox.settle(one!, all(one!, 'retry', { dueAt: T0 + 5_000, status: 500 }));
        await first.outbox.settle(two!, all(two!, 'failed', { status: 503 }));
        await first.outbox.markGone(B, T0);
        const reopened = await fixture.reopen!();
        expect(await reopened.outbox.state()).to.deep.include({ pending: 1, oldestPendingAt: T0 });
        expect((await reopened.outbox.state()).failed.map((f) => [f.plantId, f.lastStatus])).to.deep.equal([[2, 503]]);
        expect([...(await reopened.outbox.goneEndpoints())]).to.deep.equal([B]);
        expect(shown(await claim(reopened, T0 + 5_000))).to.deep.equal([[1, ['plant.created→A']]]);
      });
    }

    if (supports.sandboxes) {
      it('the same id in two sandboxes is two plants: claimed apart, carrying their sandbox, settled alone, each state its own', async () => {
        const garden = first.repository.sandbox!('garden');
        const plant = { id: 1, name: 'plant 1' };
        expect(await first.repository.add(plant, toA.deliveriesFor(plantCreated(plant)))).to.equal(true);
        expect(await garden.add(plant, toA.deliveriesFor(plantCreated(plant, 'garden')))).to.equal(true);
        const claims = await claim(first, T0);
        expect(claims.map((c) => [c.plantId, c.sandbox ?? 'default']).sort()).to.deep.equal([[1, 'default'], [1, 'garden']]);
        const gardens = claims.find((c) => c.sandbox === 'garden')!;
        expect(gardens.deliveries[0]!.event).to.deep.equal({ type: 'plant.created', data: plant, sandbox: 'garden' });
        expect(claims.find((c) => c.sandbox === undefined)!.deliveries[0]!.event, 'the default sandbox\'s events carry no sandbox').to.deep.equal({ type: 'plant.created', data: plant });
        expect(await first.outbox.settle(gardens, all(gardens, 'failed', { status: 500 }))).to.equal(true);
        const garden2 = await first.outbox.state('garden');
        expect(garden2.pending).to.equal(0);
        expect(garden2.failed.map((f) => [f.plantId, f.sandbox])).to.deep.equal([[1, 'garden']]);
        const defaults = await first.outbox.state('default');
        expect([defaults.pending, defaults.failed.length]).to.deep.equal([1, 0]);
        expect(await first.outbox.state('other')).to.deep.equal({ pending: 0, failed: [] });
        const everything = await first.outbox.state();
        expect([everything.pending, everything.failed.length]).to.deep.equal([1, 1]);
        now = T0 + 5;
        expect(await garden.remove(1, toA.deliveriesFor(plantDeleted(1, 'garden')))).to.equal(true);
        expect(await first.repository.findById(1), 'the default sandbox\'s plant stays').to.deep.equal(plant);
        expect(await first.outbox.retryFailed(now)).to.equal(1);
        const again = (await claim(first, now)).find((c) => c.sandbox === 'garden')!;
        expect(again.deliveries.map((d) => d.event.type)).to.deep.equal(['plant.created']);
      });
    }

  });
}
