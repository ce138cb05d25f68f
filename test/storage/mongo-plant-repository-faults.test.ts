import { expect } from 'chai';
import { ErrorCode, PlantStoreError } from '../../core/index.js';
import { MongoPlantRepository, PING_TIMEOUT_MS } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { expectStoreError } from '../support/expect-error.js';
import type { FerretDb } from '../support/ferretdb.js';
import { TEST_DATABASE_NAME, requireDedicatedFerretDb, uniqueCollectionName } from '../support/test-database.js';

const TIMEOUT_MS = 1000;
// What a failing call may take beyond its timeout: timers, scheduling, a loaded machine.
const SLACK_MS = 750;

/** Every port call, as the core makes them. */
const calls = (repo: MongoPlantRepository) => ({
  page: () => repo.page({ limit: 10 }),
  pageByTag: () => repo.page({ limit: 10, tags: ['fern'] }),
  add: () => repo.add({ id: 99, name: 'late' }),
  findById: () => repo.findById(1),
  remove: () => repo.remove(2),
  ping: () => repo.ping(),
});

async function expectUnavailableInTime(name: string, call: () => Promise<unknown>, message: string | RegExp = 'storage is unavailable'): Promise<void> {
  const started = performance.now();
  const error = await expectStoreError(call(), ErrorCode.StorageUnavailable);
  const elapsed = performance.now() - started;
  expect(elapsed, `${name} took ${Math.round(elapsed)} ms`).to.be.below(TIMEOUT_MS + SLACK_MS);
  if (typeof message === 'string') expect(error.message, name).to.equal(message);
  else expect(error.message, name).to.match(message);
}

describe('mongo adapter when the database fails', () => {
  let server: FerretDb;
  let repo: MongoPlantRepository;

  before(async function () {
    server = await requireDedicatedFerretDb(this);
  });
  after(async () => server?.dispose());

  beforeEach(async () => {
    if (!server.running) await server.start();
    repo = await MongoPlantRepository.connect(server.uri, { databaseName: TEST_DATABASE_NAME, collectionName: uniqueCollectionName(), timeoutMS: TIMEOUT_MS });
    await repo.add({ id: 1, name: 'Monstera', tag: 'fern' });
    await repo.add({ id: 2, name: 'Pilea' });
  });
  afterEach(async () => {
    if (!server.running) await server.start();
    server.resume();
    await repo.close();
  });

  it('a stopped database: every call fails as storage unavailable within the timeout; after a restart the same instance works and nothing was lost', async () => {
    await server.stop();
    for (const [name, call] of Object.entries(calls(repo))) await expectUnavailableInTime(name, call);

    await server.start();
    await repo.ping();
    expect(await repo.page({ limit: 10 })).to.deep.equal([
      { id: 1, name: 'Monstera', tag: 'fern' },
      { id: 2, name: 'Pilea' },
    ]);
    expect(await repo.add({ id: 3, name: 'Fittonia' })).to.equal(true);
    expect(await repo.remove(3)).to.equal(true);
  });

  it('a database that stops answering (process frozen) fails calls within the timeout, and they succeed once it answers again', async () => {
    await server.pause();
    // Concurrently too: no call may wait for another's connection beyond its own timeout.
    const started = performance.now();
    const outcomes = await Promise.allSettled(Object.values(calls(repo)).map((call) => call()));
    expect(performance.now() - started).to.be.below(TIMEOUT_MS + SLACK_MS);
    for (const outcome of outcomes) {
      expect(outcome.status).to.equal('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as unknown;
      expect(reason).to.be.instanceOf(PlantStoreError);
      expect((reason as PlantStoreError).code).to.equal(ErrorCode.StorageUnavailable);
    }

    server.resume();
    await repo.ping();
    expect(await repo.findById(1)).to.deep.equal({ id: 1, name: 'Monstera', tag: 'fern' });
  });

  it('an acknowledged add survives a SIGKILL of the database', async () => {
    expect(await repo.add({ id: 7, name: 'Calathea', tag: 'prayer' })).to.equal(true);
    await server.kill();
    await server.start();
    expect(await repo.findById(7)).to.deep.equal({ id: 7, name: 'Calathea', tag: 'prayer' });
  });

  it('a readiness ping gives up after PING_TIMEOUT_MS even when calls may wait longer', async () => {
    const patient = await MongoPlantRepository.connect(server.uri, { databaseName: TEST_DATABASE_NAME, collectionName: uniqueCollectionName(), timeoutMS: 5000 });
    try {
      await server.pause();
      const started = performance.now();
      await expectStoreError(patient.ping(), ErrorCode.StorageUnavailable);
      expect(performance.now() - started).to.be.below(PING_TIMEOUT_MS + SLACK_MS);
    } finally {
      server.resume();
      await patient.close();
    }
  });

  it('connecting while the database is down fails as storage unavailable within the timeout, naming host:port and the cause', async () => {
    await server.stop();
    const hostPort = new URL(server.uri).host;
    await expectUnavailableInTime('connect', () => MongoPlantRepository.connect(server.uri, { timeoutMS: TIMEOUT_MS }), new RegExp(`^cannot reach MongoDB at ${hostPort}: connection refused$`));
  });

  it('connecting while the database is frozen names the timeout as the cause', async () => {
    await server.pause();
    try {
      await expectUnavailableInTime('connect', () => MongoPlantRepository.connect(server.uri, { timeoutMS: TIMEOUT_MS }), /: no answer within 1000 ms$/);
    } finally {
      server.resume();
    }
  });
});
