import { join } from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import type { ChangeReader, PlantChange, PlantRepository } from '../../core/index.js';
import { DATABASE_FILE_NAME, DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { SequenceCursors } from '../../adapters/storage/sequence-cursor.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

/**
 * The disk change log's layout (adapters/storage/disk/disk-change-log.ts): a sandbox's changes
 * in stretches of 256 sequence numbers shared by every sandbox, found through the blocks of
 * 1,024 in which it has changes. These write more changes than a block holds, with one
 * sandbox's few among another's many, so every read crosses stretches and blocks.
 */
/** A cursor key (hex) written into a directory by a test, to make its cursors with. */
const KEY = '00112233445566778899aabbccddeeff';

describe('disk change log: stretches and blocks', function () {
  this.timeout(60_000);
  let directory: TempDir;
  let repository: DiskPlantRepository;
  beforeEach(() => {
    directory = tempDir('plant-store-disk-log-');
    repository = DiskPlantRepository.open(directory.path);
  });
  afterEach(async () => {
    await repository.close();
    directory.remove();
  });

  const described = (change: PlantChange) => `${change.event.type} ${change.event.data.id}`;
  /** Every change a reader has now, read `limit` at a time. */
  async function drain(reader: ChangeReader, limit: number): Promise<PlantChange[]> {
    const read: PlantChange[] = [];
    for (let batch = await reader.next(limit); batch.length > 0; batch = await reader.next(limit)) {
      expect(batch.length).to.be.at.most(limit);
      read.push(...batch);
    }
    return read;
  }
  /** `count` creates in `sandbox` from id `first` on, 500 at a time (each 500 share a few commits). */
  async function creates(sandbox: PlantRepository, first: number, count: number): Promise<void> {
    for (let from = first; from < first + count; from += 500) {
      const ids = Array.from({ length: Math.min(500, first + count - from) }, (_, i) => from + i);
      const added = await Promise.all(ids.map((id) => sandbox.add({ id, name: `plant ${id}` })));
      expect(added.every(Boolean)).to.equal(true);
    }
  }

  it("a quiet sandbox's changes among 9,000 of another's: read in order, each once, at every limit, from any cursor", async () => {
    const quiet = repository.sandbox('quiet');
    const busy = repository.sandbox('busy');
    const start = await quiet.changes!.open(undefined);
    const busyStart = await busy.changes!.open(undefined);
    // Sequence 1, then about 100, 4,200 and 9,000 (blocks 0, 4 and 8), and a delete.
    await quiet.add({ id: 1, name: 'first' });
    await creates(busy, 1, 100);
    await quiet.add({ id: 2, name: 'second', tag: 'fern' });
    await creates(busy, 101, 4_100);
    await quiet.add({ id: 3, name: 'third' });
    await creates(busy, 4_201, 4_800);
    expect(await quiet.remove(2)).to.equal(true);
    const expected = ['plant.created 1', 'plant.created 2', 'plant.created 3', 'plant.deleted 2'];

    for (const limit of [1, 2, 3, 1000]) {
      const reader = (await quiet.changes!.open(start.reader.position)).reader;
      expect((await drain(reader, limit)).map(described), `limit ${limit}`).to.deep.equal(expected);
    }
    const all = await drain(start.reader, 1);
    expect(all.map(described)).to.deep.equal(expected);
    expect(all[1]!.event.data, 'the change as written').to.deep.equal({ id: 2, name: 'second', tag: 'fern' });
    // From each change's own cursor: what came after it, nothing before.
    for (let i = 0; i < all.length; i++) {
      const from = await quiet.changes!.open(all[i]!.cursor);
      expect(from.reset).to.equal(false);
      expect((await drain(from.reader, 2)).map(described), `after change ${i}`).to.deep.equal(expected.slice(i + 1));
    }
    // The busy sandbox's 9,000, 7 at a time, across every stretch and block boundary.
    const busyRead = await drain(busyStart.reader, 7);
    expect(busyRead.map((change) => change.event.data.id)).to.deep.equal(Array.from({ length: 9_000 }, (_, i) => i + 1));

    // A reader that has read everything reads nothing more, then the next change alone.
    expect(await start.reader.next(10)).to.deep.equal([]);
    await creates(busy, 9_001, 300);
    expect(await start.reader.next(10), 'nothing of its own since').to.deep.equal([]);
    await quiet.add({ id: 4, name: 'fourth' });
    expect((await start.reader.next(10)).map(described)).to.deep.equal(['plant.created 4']);
  });

  it("retention removes the notes of the blocks it has wholly pruned, and a sandbox's changes past them still read", async () => {
    const quiet = repository.sandbox('quiet');
    const busy = repository.sandbox('busy');
    await quiet.add({ id: 1, name: 'old' });
    await creates(busy, 1, 9_000);
    // At sequence 9,001, the last change retention prunes.
    const cursor = (await quiet.changes!.open(undefined)).reader.position;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cut = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await quiet.add({ id: 2, name: 'kept' });
    const retention = repository.changeRetention!;
    let pruned = 0;
    for (let removed = await retention.pruneBefore(cut, 1_000); removed > 0; removed = await retention.pruneBefore(cut, 1_000)) pruned += removed;
    expect(pruned).to.equal(9_001);

    const fromStart = await quiet.changes!.open(cursor);
    expect(fromStart.reset, 'a cursor at the last pruned change has missed nothing').to.equal(false);
    expect((await drain(fromStart.reader, 10)).map(described)).to.deep.equal(['plant.created 2']);

    await repository.close();
    const env = open({ path: join(directory.path, DATABASE_FILE_NAME), maxDbs: 32, readOnly: true });
    try {
      const blocks = [...env.openDB<true, [string, number]>({ name: 'change-blocks' }).getKeys()];
      const byBlock = [...env.openDB<true, [number, string]>({ name: 'change-block-sandboxes' }).getKeys()];
      // Sequences 1-9,001 pruned: blocks 0-7 (to 8,191) wholly; block 8 holds 9,002 still.
      expect(blocks).to.deep.equal([['busy', 8], ['quiet', 8]]);
      expect(byBlock).to.deep.equal([[8, 'busy'], [8, 'quiet']]);
      expect([...env.openDB({ name: 'change-stretches' }).getKeys()]).to.deep.equal([[35, 'quiet', 9_002]]);
    } finally {
      await env.close();
      repository = DiskPlantRepository.open(directory.path);
    }
  });

  it('a directory from before sealed cursors gets a key once, kept across opens; its clear cursors reset', async () => {
    await repository.add({ id: 1, name: 'one' });
    await repository.close();
    const env = open({ path: join(directory.path, DATABASE_FILE_NAME), maxDbs: 32 });
    let id: string;
    try {
      const meta = env.openDB<unknown, string>({ name: 'change-log' });
      id = meta.get('id') as string;
      // As the release before wrote it: an id, no key, and cursors `<id>-<sequence in base 36>`.
      await meta.remove('key');
    } finally {
      await env.close();
    }
    repository = DiskPlantRepository.open(directory.path);
    const clear = await repository.changes!.open(`${id}-1`);
    expect(clear.reset, 'a clear cursor of the release before').to.equal(true);
    await repository.add({ id: 2, name: 'two' });
    const [change] = await drain(clear.reader, 1);
    await repository.close();
    repository = DiskPlantRepository.open(directory.path);
    const resumed = await repository.changes!.open(change!.cursor);
    expect(resumed.reset, 'a sealed cursor, after a restart: the same key').to.equal(false);
    await repository.add({ id: 3, name: 'three' });
    expect((await drain(resumed.reader, 1)).map(described)).to.deep.equal(['plant.created 3']);
  });

  it('a directory whose changes an earlier build kept by sandbox and sequence (`sandbox-changes`) reads them from its cursors, once moved', async () => {
    await repository.close();
    // As that build wrote them: the log's id, `changes` by sequence, `sandbox-changes` by [sandbox, sequence].
    const env = open({ path: join(directory.path, DATABASE_FILE_NAME), maxDbs: 32 });
    const at = Date.now();
    try {
      await env.openDB({ name: 'change-log' }).put('id', 'feedface');
      // Not that build's: the cursor key this release makes on open, put here so the test can make cursors.
      await env.openDB({ name: 'change-log' }).put('key', KEY);
      const bySequence = env.openDB<[string, number], number>({ name: 'changes' });
      const earlier = env.openDB<object, [string, number]>({ name: 'sandbox-changes' });
      const written: [string, number, object][] = [
        ['garden', 1, { t: 'c', i: 1, n: 'one', a: at }],
        ['default', 2, { t: 'c', i: 1, n: 'default one', a: at }],
        ['garden', 3, { t: 'c', i: 2, n: 'two', g: 'fern', a: at }],
        ['garden', 4, { t: 'd', i: 1, a: at }],
      ];
      for (const [sandbox, sequence, change] of written) {
        await bySequence.put(sequence, [sandbox, at]);
        await earlier.put([sandbox, sequence], change);
      }
    } finally {
      await env.close();
    }
    repository = DiskPlantRepository.open(directory.path);
    const cursors = new SequenceCursors('feedface', Buffer.from(KEY, 'hex'));
    const garden = await repository.sandbox('garden').changes!.open(cursors.of(0));
    expect(garden.reset).to.equal(false);
    expect((await drain(garden.reader, 2)).map(described)).to.deep.equal(['plant.created 1', 'plant.created 2', 'plant.deleted 1']);
    const fromDefault = await repository.changes!.open(cursors.of(1));
    expect((await drain(fromDefault.reader, 10)).map((change) => change.event.data)).to.deep.equal([{ id: 1, name: 'default one' }]);
    // The next change follows them, and the earlier database is gone.
    await repository.sandbox('garden').add({ id: 3, name: 'three' });
    expect((await drain(garden.reader, 10)).map(described)).to.deep.equal(['plant.created 3']);
    expect(garden.reader.position).to.equal(cursors.of(5));
    await repository.close();
    const names = open({ path: join(directory.path, DATABASE_FILE_NAME), maxDbs: 32, readOnly: true });
    try {
      expect([...names.getKeys()].map(String)).to.not.include('sandbox-changes');
    } finally {
      await names.close();
      repository = DiskPlantRepository.open(directory.path);
    }
  });
});
