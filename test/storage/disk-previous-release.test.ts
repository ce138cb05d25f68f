import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { DATABASE_FILE_NAME, DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { MAX_PLANT_ID, plantCreated, Subscriptions, type OutboxClaim } from '../../core/index.js';
import { projectRoot } from '../support/project-root.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

// A data directory written by release 1.0.x's disk adapter, before sandboxes existed, must
// open unchanged as the default sandbox. The fixture (test/fixtures/disk-release-1.0/, the
// LMDB file alone: LMDB makes its lock file again) was written by that release's
// DiskPlantRepository, with its clock at T0:
//   add 1 "Monstera" (tropical); addMany 5 "Ivy" (fern) and MAX_PLANT_ID "The largest id"
//   (tropical); add 4 "Removed" (fern), then remove 4;
//   add 2 "Boston fern" (fern) with a plant.created delivery to HOOK, claimed at T0 and
//   settled failed with status 503;
//   add 3 "Echeveria" (no tag) with a plant.created delivery to HOOK, left pending;
//   markGone(GONE, T0 + 1).
// The delivery ids below are the ones that release drew.

const FIXTURE = join(projectRoot, 'test', 'fixtures', 'disk-release-1.0', DATABASE_FILE_NAME);
const T0 = 1_800_000_000_000;
const HOOK = 'https://hooks.example.org/plants';
const GONE = 'https://gone.example.org/hook';
const FAILED_ID = 'msg_99dbfc0eb29c4472bc06caa7984bb881';
const PENDING_ID = 'msg_73d415992ba24deba526e028f9c473dd';

const PLANTS = [
  { id: 1, name: 'Monstera', tag: 'tropical' },
  { id: 2, name: 'Boston fern', tag: 'fern' },
  { id: 3, name: 'Echeveria' },
  { id: 5, name: 'Ivy', tag: 'fern' },
  { id: MAX_PLANT_ID, name: 'The largest id', tag: 'tropical' },
];
const FAILED = { id: FAILED_ID, plantId: 2, endpoint: HOOK, type: 'plant.created', createdAt: T0, attempts: 1, lastStatus: 503 };
const PENDING = { id: PENDING_ID, endpoint: HOOK, event: { type: 'plant.created', data: { id: 3, name: 'Echeveria' } }, createdAt: T0, attempts: 0, dueAt: T0 };

/** The databases release 1.0 wrote, entry by entry as stored bytes. */
const RELEASE_DATABASES = ['plants', 'plants-by-tag', 'outbox', 'gone-endpoints'];

/** Every stored entry of the release's databases, as hex, read straight from LMDB. */
async function storedBytes(directory: string): Promise<Record<string, string[]>> {
  const root: RootDatabase = open({ path: join(directory, DATABASE_FILE_NAME), readOnly: true });
  try {
    const entries: Record<string, string[]> = {};
    for (const name of RELEASE_DATABASES) {
      const database = root.openDB<Buffer, Buffer>({ name, keyEncoding: 'binary', encoding: 'binary' });
      entries[name] = [...database.getRange()].map(({ key, value }) => `${key.toString('hex')}=${value.toString('hex')}`);
    }
    return entries;
  } finally {
    await root.close();
  }
}

const withoutLeases = (claims: OutboxClaim[]) => claims.map(({ lease: _lease, leaseUntil: _until, ...rest }) => rest);

describe('disk storage: a data directory of release 1.0 (before sandboxes)', () => {
  let made: TempDir;
  let repository: DiskPlantRepository | undefined;
  beforeEach(() => {
    made = tempDir('plant-store-release-1.0-');
    copyFileSync(FIXTURE, join(made.path, DATABASE_FILE_NAME));
  });
  afterEach(async () => {
    await repository?.close();
    repository = undefined;
    made.remove();
  });

  it('opens as the default sandbox: plants, tags, the pending and the failed delivery, the gone endpoint; a named sandbox starts empty', async () => {
    repository = DiskPlantRepository.open(made.path);
    expect(await repository.page({ limit: 100 })).to.deep.equal(PLANTS);
    expect(await repository.page({ limit: 100, tags: ['fern'] })).to.deep.equal([PLANTS[1], PLANTS[3]]);
    expect(await repository.page({ limit: 100, tags: ['tropical', 'fern'], after: 2 })).to.deep.equal([PLANTS[3], PLANTS[4]]);
    expect(await repository.findById(4), 'removed by that release').to.equal(undefined);
    expect(await repository.findById(MAX_PLANT_ID)).to.deep.equal(PLANTS[4]);

    const state = { pending: 1, oldestPendingAt: T0, failed: [FAILED] };
    expect(await repository.outbox.state()).to.deep.equal(state);
    expect(await repository.outbox.state('default')).to.deep.equal(state);
    expect([...(await repository.outbox.goneEndpoints())]).to.deep.equal([GONE]);
    const claims = await repository.outbox.claim(T0, 10_000, 10);
    expect(withoutLeases(claims), 'a default plant: no sandbox on the claim').to.deep.equal([{ plantId: 3, deliveries: [PENDING] }]);

    const garden = repository.sandbox('garden');
    expect(await garden.page({ limit: 100 })).to.deep.equal([]);
    expect(await garden.page({ limit: 100, tags: ['fern'] })).to.deep.equal([]);
    expect(await garden.findById(1)).to.equal(undefined);
    expect(await repository.outbox.state('garden')).to.deep.equal({ pending: 0, failed: [] });
  });

  it("writing to a named sandbox leaves every stored byte of the release's databases as it was", async () => {
    const before = await storedBytes(made.path);
    expect(before.plants, 'the fixture holds the plants (and the shared structures)').to.have.length.above(PLANTS.length - 1);
    repository = DiskPlantRepository.open(made.path);
    const garden = repository.sandbox('garden');
    const subscriptions = new Subscriptions([HOOK], ['plant.created', 'plant.deleted'], () => T0);
    const plant = { id: 1, name: 'Garden monstera', tag: 'tropical' };
    expect(await garden.add(plant, subscriptions.deliveriesFor(plantCreated(plant, 'garden')))).to.equal(true);
    expect(await garden.addMany!([{ id: 2, name: 'Garden fern', tag: 'fern' }])).to.deep.equal([true]);
    expect(await garden.remove(2)).to.equal(true);
    await repository.close();
    repository = undefined;
    expect(await storedBytes(made.path)).to.deep.equal(before);
  });

  it('after writing to both sandboxes and reopening, each holds its own plants and deliveries', async () => {
    repository = DiskPlantRepository.open(made.path);
    const subscriptions = new Subscriptions([HOOK], ['plant.created', 'plant.deleted'], () => T0 + 10);
    const mine = { id: 6, name: 'Maidenhair', tag: 'fern' };
    const theirs = { id: 1, name: 'Garden monstera', tag: 'fern' };
    expect(await repository.add(mine, subscriptions.deliveriesFor(plantCreated(mine)))).to.equal(true);
    expect(await repository.sandbox('garden').add(theirs, subscriptions.deliveriesFor(plantCreated(theirs, 'garden')))).to.equal(true);
    expect(await repository.sandbox('garden').add({ id: 1, name: 'again' }), 'taken in its own sandbox').to.equal(false);
    expect(await repository.add({ id: 1, name: 'again' }), 'taken in the default').to.equal(false);
    // The release's pending delivery goes out and is settled before the restart.
    const [pending] = await repository.outbox.claim(T0, 10_000, 10);
    expect(pending!.plantId).to.equal(3);
    expect(await repository.outbox.settle(pending!, [{ id: PENDING_ID, result: 'delivered', status: 200 }])).to.equal(true);
    await repository.close();

    repository = DiskPlantRepository.open(made.path);
    const garden = repository.sandbox('garden');
    expect(await repository.page({ limit: 100, tags: ['fern'] })).to.deep.equal([PLANTS[1], PLANTS[3], mine]);
    expect(await repository.page({ limit: 3, after: 3 })).to.deep.equal([PLANTS[3], mine, PLANTS[4]]);
    expect(await garden.page({ limit: 100 })).to.deep.equal([theirs]);
    expect(await garden.page({ limit: 100, tags: ['fern'] })).to.deep.equal([theirs]);
    expect(await repository.findById(1)).to.deep.equal(PLANTS[0]);

    expect(await repository.outbox.state('default')).to.deep.equal({ pending: 1, oldestPendingAt: T0 + 10, failed: [FAILED] });
    expect(await repository.outbox.state('garden')).to.deep.equal({ pending: 1, oldestPendingAt: T0 + 10, failed: [] });
    expect([...(await repository.outbox.goneEndpoints())]).to.deep.equal([GONE]);
    const claims = await repository.outbox.claim(T0 + 10, 10_000, 10);
    const shown = claims.map((claim) => [claim.plantId, claim.sandbox ?? 'default', claim.deliveries.map((delivery) => delivery.event)]);
    expect(shown.sort()).to.deep.equal([
      [1, 'garden', [{ type: 'plant.created', data: theirs, sandbox: 'garden' }]],
      [6, 'default', [{ type: 'plant.created', data: mine }]],
    ]);
    expect(claims.find((claim) => claim.plantId === 6), 'a default plant: no sandbox on the claim').to.not.have.property('sandbox');
    // The release's failed delivery is retried like any other.
    expect(await repository.outbox.retryFailed(T0 + 20)).to.equal(1);
    expect([...(await repository.outbox.goneEndpoints())]).to.deep.equal([]);
    const [retried] = await repository.outbox.claim(T0 + 20, 10_000, 10);
    expect(retried).to.deep.include({ plantId: 2 });
    expect(retried!.deliveries.map((delivery) => delivery.id)).to.deep.equal([FAILED_ID]);
  });

  it("a directory holding every later database still opens as release 1.0 opens it (lmdb-js's defaults, its four databases)", async () => {
    repository = DiskPlantRepository.open(made.path);
    // A write to each database added since: sandboxes' plants, tags, outbox and counts, and the grants.
    const garden = repository.sandbox('garden');
    const subscriptions = new Subscriptions([HOOK], ['plant.created'], () => T0);
    const plant = { id: 1, name: 'Garden monstera', tag: 'tropical' };
    expect(await garden.add(plant, subscriptions.deliveriesFor(plantCreated(plant, 'garden')), { maxPlants: 10 })).to.equal(true);
    expect(await repository.sandboxes.create({ name: 'garden', tokenDigest: 'digest', createdAt: T0, lastUsedAt: T0 })).to.equal(true);
    await repository.close();
    repository = undefined;

    // As that release opened it: no maxDbs, so lmdb-js's default of 12 handles.
    const root: RootDatabase = open({ path: join(made.path, DATABASE_FILE_NAME) });
    try {
      const plants = root.openDB<{ name: string; tag?: string }, number>({ name: 'plants', sharedStructuresKey: Symbol.for('structures') });
      root.openDB({ name: 'plants-by-tag' });
      root.openDB({ name: 'outbox' });
      root.openDB({ name: 'gone-endpoints' });
      expect(plants.get(1)).to.deep.equal({ name: 'Monstera', tag: 'tropical' });
      await plants.put(6, { name: 'Written by 1.0' });
    } finally {
      await root.close();
    }
    repository = DiskPlantRepository.open(made.path);
    expect(await repository.findById(6)).to.deep.equal({ id: 6, name: 'Written by 1.0' });
    expect(await repository.sandbox('garden').findById(1)).to.deep.equal(plant);
    expect(await repository.sandboxes.byTokenDigest('digest')).to.deep.include({ name: 'garden' });
  });

  it('a read-only open (exports, backups) reads the default sandbox, and named sandboxes as empty', async () => {
    repository = DiskPlantRepository.open(made.path, { readOnly: true });
    expect(await repository.page({ limit: 100 })).to.deep.equal(PLANTS);
    const garden = repository.sandbox('garden');
    expect(await garden.page({ limit: 10 })).to.deep.equal([]);
    expect(await garden.page({ limit: 10, tags: ['fern'] })).to.deep.equal([]);
    expect(await garden.findById(1)).to.equal(undefined);
    expect(await repository.outbox.state()).to.deep.equal({ pending: 1, oldestPendingAt: T0, failed: [FAILED] });
    expect(await repository.outbox.state('garden')).to.deep.equal({ pending: 0, failed: [] });
    expect(await repository.sandboxes.list(), 'no self-service sandboxes there').to.deep.equal([]);
    expect(await repository.sandboxes.byTokenDigest('digest')).to.equal(undefined);
    expect(await repository.sandboxes.idleBefore(T0, 10)).to.deep.equal([]);
  });
});
