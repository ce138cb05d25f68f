import { expect } from 'chai';
import { createPlantStore, ErrorCode, MemoryPlantRepository, startServer, type PlantEvent, type PlantStore } from '../../composition/index.js';
import { expectStoreError } from '../support/expect-error.js';

describe('embedded use: createPlantStore() without HTTP', () => {
  let store: PlantStore;
  beforeEach(async () => {
    store = await createPlantStore();
  });
  afterEach(() => store.close());

  it('creates, lists, gets and deletes plants in memory by default', async () => {
    expect(store.storageDescription).to.equal('memory');
    expect(await store.create({ id: 2, name: 'Monstera', tag: 'tropical' })).to.deep.equal({ id: 2, name: 'Monstera', tag: 'tropical' });
    await store.create({ id: 1, name: 'Fern' });
    expect((await store.list()).plants).to.deep.equal([
      { id: 1, name: 'Fern' },
      { id: 2, name: 'Monstera', tag: 'tropical' },
    ]);
    expect(await store.get(2)).to.deep.equal({ id: 2, name: 'Monstera', tag: 'tropical' });
    await store.delete(2);
    await expectStoreError(store.get(2), ErrorCode.PlantNotFound);
    await store.ping();
  });

  it('throws the same numeric codes as the HTTP API', async () => {
    await store.create({ id: 1, name: 'Fern' });
    // What a JavaScript caller, unchecked by the compiler, may pass.
    const untyped = store as unknown as { create(plant: unknown): Promise<unknown>; list(query: unknown): Promise<unknown> };
    const cases: [Promise<unknown>, number][] = [
      [untyped.create({ id: '12', name: 'x' }), 40001],
      [store.create({ id: 1.5, name: 'x' }), 40001],
      [store.create({ id: 3, name: '   ' }), 40001],
      [store.create({ id: 3, name: 'x', tag: '' }), 40001],
      [untyped.create('not a plant'), 40002],
      [store.create({ id: 1, name: 'again' }), 40901],
      [store.list({ limit: 0 }), 40003],
      [untyped.list({ limit: 'ten' }), 40003],
      [untyped.list('limit=10'), 40003],
      [store.get(0), 40003],
      [store.get(99), 40401],
      [store.delete(99), 40401],
    ];
    for (const [call, code] of cases) await expectStoreError(call, code);
  });

  it('pages with limit / after / tag and hands back the next query', async () => {
    for (let id = 1; id <= 5; id++) await store.create({ id, name: `p${id}`, tag: id % 2 ? 'odd' : 'even' });
    const first = await store.list({ limit: 2, tags: ['odd'] });
    expect(first.plants.map((p) => p.id)).to.deep.equal([1, 3]);
    expect(first.next).to.deep.equal({ limit: 2, after: 3, tags: ['odd'] });
    // `next` is passed back as it is: the tag filter must survive (page 2 holds no even id).
    const second = await store.list(first.next);
    expect(second.plants.map((p) => p.id)).to.deep.equal([5]);
    expect(second.next).to.equal(undefined);
  });

  it('subscribers receive plant.created and plant.deleted; a failing one harms nothing', async () => {
    const seen: PlantEvent[] = [];
    const failures: unknown[] = [];
    await store.close();
    store = await createPlantStore({ onListenerError: (error) => failures.push(error) });
    store.subscribe(() => {
      throw new Error('listener bug');
    });
    const unsubscribe = store.subscribe((event) => {
      seen.push(event);
    });
    await store.create({ id: 9, name: 'Aloe', tag: 'succulent' });
    await store.delete(9);
    expect(seen).to.deep.equal([
      { type: 'plant.created', data: { id: 9, name: 'Aloe', tag: 'succulent' } },
      { type: 'plant.deleted', data: { id: 9 } },
    ]);
    expect(failures).to.have.length(2);
    unsubscribe();
    await store.create({ id: 10, name: 'Ivy' });
    expect(seen).to.have.length(2);
  });

  it('two stores share nothing, and a swapped storage backend is used as given', async () => {
    const repository = new MemoryPlantRepository();
    const other = await createPlantStore({ storage: { repository, description: 'test repository' } });
    try {
      await store.create({ id: 1, name: 'mine' });
      expect((await other.list()).plants).to.deep.equal([]);
      await other.create({ id: 1, name: 'theirs' });
      expect(repository.size).to.equal(1);
      expect(other.storageDescription).to.equal('test repository');
      expect(await store.get(1)).to.deep.equal({ id: 1, name: 'mine' });
    } finally {
      await other.close();
    }
  });
});

describe('serving an embedded store', () => {
  it('startServer given a token from an unset or empty variable says the token is missing or empty', async () => {
    const store = await createPlantStore();
    const unset = 'PLANT_STORE_TEST_VARIABLE_NEVER_SET';
    expect(process.env[unset]).to.equal(undefined);
    try {
      for (const [tokens, message] of [
        [[process.env[unset]], /^token #1 is missing \(undefined\) — is the variable that should hold it set\?$/],
        [[''], /^token #1 is empty — is the variable that should hold it set\?$/],
      ] as const) {
        const error = await startServer({ store, tokens: tokens as never, port: 0 }).then(
          (running) => running.close(0).then(() => expect.fail('started')),
          (e: Error) => e,
        );
        expect(error.message).to.match(message);
      }
    } finally {
      await store.close();
    }
  });

  it('startServer refuses a short or malformed token, naming its position and never the token', async () => {
    const store = await createPlantStore();
    try {
      for (const [tokens, message] of [
        [['x'], /token #1 is shorter than 16 characters/],
        [['a-good-token-0123456789', 'has a space in it, 0123456789'], /token #2 has characters a bearer token cannot carry/],
        [[], /at least one token/],
      ] as const) {
        const error = await startServer({ store, tokens, port: 0 }).then(
          () => expect.fail('started'),
          (e: Error) => e,
        );
        expect(error.message).to.match(message);
        for (const token of tokens) expect(error.message).not.to.include(token);
      }
    } finally {
      await store.close();
    }
  });
});

describe('embedded use: store.changes()', () => {
  it('iterates every later change with its cursor, resumes after one, resets on an unknown one, and ends when the loop leaves or the store closes', async () => {
    const store = await createPlantStore();
    try {
      const seen: string[] = [];
      const cursors: string[] = [];
      const following = (async () => {
        for await (const change of store.changes()) {
          seen.push(`${change.type} ${JSON.stringify(change.data)}`);
          cursors.push(change.cursor);
          if (seen.length === 3) break;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.create({ id: 1, name: 'one', tag: 'green' });
      await store.create({ id: 2, name: 'two' });
      await store.delete(1);
      await following;
      expect(seen).to.deep.equal(['plant.created {"id":1,"name":"one","tag":"green"}', 'plant.created {"id":2,"name":"two"}', 'plant.deleted {"id":1}']);
      // Resumed after the first: the two after it, then (leaving) nothing more.
      const resumed: string[] = [];
      for await (const change of store.changes({ after: cursors[0] })) {
        resumed.push(change.cursor);
        if (resumed.length === 2) break;
      }
      expect(resumed).to.deep.equal(cursors.slice(1));
      const reset = store.changes({ after: 'not-a-cursor' })[Symbol.asyncIterator]();
      expect((await reset.next()).value).to.include({ type: 'feed.reset' });
      await reset.return?.(undefined);
      // A sandbox's changes only; an open iteration ends when the store closes.
      const sandbox = store.sandbox('garden-a');
      const inSandbox = sandbox.changes()[Symbol.asyncIterator]();
      const next = inSandbox.next();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.create({ id: 3, name: 'default three' });
      await sandbox.create({ id: 3, name: 'sandbox three' });
      expect((await next).value).to.deep.include({ type: 'plant.created', data: { id: 3, name: 'sandbox three' } });
      const pending = inSandbox.next();
      await store.close();
      expect((await pending).done).to.equal(true);
    } finally {
      await store.close();
    }
  });
});
