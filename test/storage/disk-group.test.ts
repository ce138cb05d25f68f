import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError } from '../../adapters/storage/disk/data-dir.js';
import { LOCK_FILE_NAME } from '../../adapters/storage/disk/data-dir-lock.js';
import { DATABASE_FILE_NAME, DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { open } from 'lmdb';
import { Subscriptions, type OutboxRecord, type PlantChange } from '../../core/index.js';
import { sequencesOf } from '../support/disk-cursors.js';
import { groupDirectory } from '../support/disk-group.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import type { StorageFactory } from './storage-contract.js';
import { storageContract } from './storage-contract.js';
import { changeLogContract } from './change-log-contract.js';
import { outboxContract } from './outbox-contract.js';

// The disk storage as a worker of a server group opens it (--workers): the primary holds the
// directory's lock, and every worker writes to the one environment. Two repositories on one
// directory in this process stand for two workers: they share the database as processes do.

const groupWorker: StorageFactory = async () => {
  const directory = groupDirectory();
  const repository = directory.openWorker();
  return {
    repository,
    close: async () => {
      await repository.close();
      directory.remove();
    },
  };
};

storageContract('disk, a worker of a group', groupWorker, { sandboxes: true, selfService: true });
changeLogContract('disk, a worker of a group', groupWorker, true);

outboxContract(
  'disk, workers of a group',
  async () => {
    const directory = groupDirectory('plant-store-group-outbox-');
    const opened: DiskPlantRepository[] = [];
    const open = () => {
      const repository = directory.openWorker();
      opened.push(repository);
      return { repository, outbox: repository.outbox };
    };
    const first = open();
    return {
      first,
      another: async () => open(),
      reopen: async () => {
        await Promise.all(opened.splice(0).map((repository) => repository.close()));
        return open();
      },
      close: async () => {
        await Promise.all(opened.map((repository) => repository.close()));
        directory.remove();
      },
    };
  },
  { severalProcesses: true, durable: true, sandboxes: true },
);

/**
 * lmdb-js renews a repository's read snapshot at most once an event-loop turn (a timer), and
 * at once only after its own writes: a commit made through the other repository is read
 * from a later turn, as another process's is.
 */
const laterTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('disk storage shared by the workers of a group', function () {
  this.timeout(30_000);
  let directory: ReturnType<typeof groupDirectory>;
  let a: DiskPlantRepository;
  let b: DiskPlantRepository;
  beforeEach(() => {
    directory = groupDirectory();
    a = directory.openWorker();
    b = directory.openWorker();
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    directory.remove();
  });

  it('a worker opens only a directory whose lock names its parent (the primary); other failures name the directory', () => {
    using other = tempDir('plant-store-group-other-');
    expect(() => DiskPlantRepository.open(other.path, { groupWorker: true })).to.throw(DataDirError, /is not held by this worker's server .* names no process/);
    writeFileSync(join(other.path, LOCK_FILE_NAME), `${process.pid}\n`);
    expect(() => DiskPlantRepository.open(other.path, { groupWorker: true })).to.throw(DataDirError, new RegExp(`names process ${process.pid}`));
  });

  it('creates of one id through both workers at once: exactly one is taken, whichever worker it came through', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).add({ id: 7, name: `from ${i % 2 === 0 ? 'a' : 'b'}` })));
    expect(results.filter(Boolean)).to.have.length(1);
    expect(await a.findById(7)).to.deep.equal(await b.findById(7));
  });

  it("writes through both workers get one sequence in commit order: a reader on either reads every change once, in that order, the other's included", async () => {
    const startA = await a.changes!.open(undefined);
    const startB = await b.changes!.open(undefined);
    const adds: Promise<boolean>[] = [];
    const removes: Promise<boolean>[] = [];
    for (let id = 1; id <= 200; id++) {
      const through = id % 3 === 0 ? b : a;
      adds.push(through.add({ id, name: `plant ${id}` }));
      // A delete of an earlier plant now and then, through the other worker, once its create
      // is acknowledged: each worker commits its own queue, so two writes in flight at once
      // through different workers commit in either order (1 run in 30 had a delete first).
      if (id % 10 === 0) {
        const other = through === a ? b : a;
        removes.push(adds[id - 6]!.then(() => other.remove(id - 5)));
      }
    }
    expect(await Promise.all(adds)).to.not.include(false);
    expect(await Promise.all(removes), 'every delete finds its plant').to.not.include(false);
    await laterTurn();
    const readAll = async (reader: { next(limit: number): Promise<PlantChange[]> }) => {
      const all: PlantChange[] = [];
      for (let page = await reader.next(64); page.length > 0; page = await reader.next(64)) all.push(...page);
      return all;
    };
    const [fromA, fromB] = [await readAll(startA.reader), await readAll(startB.reader)];
    expect(fromA.map((c) => c.cursor)).to.deep.equal(fromB.map((c) => c.cursor));
    expect(fromA).to.have.length(220);
    const sequenceOf = sequencesOf(directory.path);
    const sequences = fromA.map((c) => sequenceOf(c.cursor));
    expect(sequences).to.deep.equal(Array.from({ length: 220 }, (_, i) => sequences[0]! + i));
    // Each plant's own changes in the order they were made: created, then (perhaps) deleted.
    const seen = new Map<number, string[]>();
    for (const { event } of fromA) seen.set(event.data.id, [...(seen.get(event.data.id) ?? []), event.type]);
    for (const [id, types] of seen) expect(types, `plant ${id}`).to.deep.equal(id % 10 === 5 ? ['plant.created', 'plant.deleted'] : ['plant.created']);
  });

  it("a follower on one worker is woken by the other worker's write (its poll), and reads it", async () => {
    const opened = await b.changes!.open(undefined);
    let woken = 0;
    const stop = b.changes!.watch(() => woken++);
    try {
      await a.add({ id: 1, name: 'through a' });
      await eventually(() => woken > 0, { timeoutMs: 2_000 });
      expect((await opened.reader.next(10)).map((c) => c.event.data.id)).to.deep.equal([1]);
    } finally {
      stop();
    }
  });

  it("a cursor from one worker resumes on the other; a purge on one resets the sandbox's cursors on both", async () => {
    await a.sandbox('garden').add({ id: 1, name: 'one' });
    const opened = await a.sandbox('garden').changes!.open(undefined);
    await b.sandbox('garden').add({ id: 2, name: 'two' });
    await laterTurn();
    const [two] = await opened.reader.next(1);
    expect(two!.event.data.id).to.equal(2);
    expect((await b.sandbox('garden').changes!.open(two!.cursor)).reset).to.equal(false);
    while ((await a.sandbox('garden').purge(100)) > 0);
    await laterTurn();
    expect((await b.sandbox('garden').changes!.open(two!.cursor)).reset, 'on the other worker').to.equal(true);
    expect((await a.sandbox('garden').changes!.open(two!.cursor)).reset).to.equal(true);
  });

  it("a delivery recorded through either worker is claimed by one of them; a claim names its process, and one of a process that is gone is taken over at once", async () => {
    const T0 = 1_700_000_000_000;
    const subscriptions = new Subscriptions(['https://hooks.example.org/a'], ['plant.created'], () => T0);
    for (let id = 1; id <= 20; id++) {
      const plant = { id, name: `plant ${id}` };
      await (id % 2 === 0 ? a : b).add(plant, subscriptions.deliveriesFor({ type: 'plant.created', data: plant }));
    }
    const [fromA, fromB] = await Promise.all([a.outbox.claim(T0, 60_000, 100), b.outbox.claim(T0, 60_000, 100)]);
    const claimed = [...fromA, ...fromB].map((claim) => claim.plantId).sort((x, y) => x - y);
    expect(claimed, 'each plant claimed by one worker').to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const claim of [...fromA, ...fromB]) expect(claim.lease.startsWith(`${process.pid}:`)).to.equal(true);
    expect(await a.outbox.claim(T0 + 1_000, 60_000, 100), 'all held').to.deep.equal([]);

    // Plant 1's lease rewritten to name a process that does not run (a worker killed mid-delivery).
    const gone = 4_194_304 + 12_345; // above Linux's largest pid
    const env = open({ path: join(directory.path, DATABASE_FILE_NAME), maxDbs: 32 });
    try {
      const records = env.openDB<OutboxRecord, number>({ name: 'outbox' });
      await records.put(1, { ...records.get(1)!, lease: `${gone}:lost`, leaseUntil: T0 + 60_000 });
    } finally {
      await env.close();
    }
    const c = directory.openWorker();
    try {
      expect((await c.outbox.claim(T0 + 1_000, 60_000, 100)).map((claim) => claim.plantId), 'only the dead worker\'s').to.deep.equal([1]);
    } finally {
      await c.close();
    }
  });
});
