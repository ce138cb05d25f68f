import { expect } from 'chai';
import { FollowChanges, type PlantChange, type PlantRepository } from '../../core/index.js';
import { freshRepositoryEach, type StorageFactory } from './storage-contract.js';

/** Every change a reader has, read until it has `count` or `timeoutMs` passes. */
async function readAll(open: Awaited<ReturnType<NonNullable<PlantRepository['changes']>['open']>>, count: number, timeoutMs = 5_000): Promise<PlantChange[]> {
  const changes: PlantChange[] = [];
  const deadline = Date.now() + timeoutMs;
  while (changes.length < count && Date.now() < deadline) {
    const batch = await open.reader.next(1000);
    changes.push(...batch);
    if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return changes;
}

const described = (change: PlantChange) => `${change.event.type} ${change.event.data.id}`;

/**
 * The change log every storage with a change feed keeps (ChangeLog, ChangeRetention).
 * `exactly`: a reader gets each change once (memory, disk); otherwise at least once.
 */
export function changeLogContract(adapterName: string, factory: StorageFactory, exactly: boolean): void {
  describe(`${adapterName} change log contract`, () => {
    const repository = freshRepositoryEach(factory);
    let repo: PlantRepository;
    beforeEach(() => {
      repo = repository();
    });
    const log = (repository: PlantRepository = repo) => repository.changes!;

    it('records every create and delete, refused ones not, in commit order; a reader from a cursor gets what came after it', async () => {
      const start = await log().open(undefined);
      expect(start.reset).to.equal(false);
      await repo.add({ id: 2, name: 'two', tag: 'green' });
      expect(await repo.add({ id: 2, name: 'again' }), 'a taken id').to.equal(false);
      await repo.add({ id: 1, name: 'one' });
      expect(await repo.remove(2)).to.equal(true);
      expect(await repo.remove(2), 'a missing id').to.equal(false);
      const changes = await readAll(start, 3);
      expect(changes.map((change) => change.event)).to.deep.equal([
        { type: 'plant.created', data: { id: 2, name: 'two', tag: 'green' } },
        { type: 'plant.created', data: { id: 1, name: 'one' } },
        { type: 'plant.deleted', data: { id: 2 } },
      ]);
      const resumed = await log().open(changes[0]!.cursor);
      expect(resumed.reset).to.equal(false);
      const after = await readAll(resumed, 2);
      if (exactly) expect(after.map(described)).to.deep.equal(['plant.created 1', 'plant.deleted 2']);
      else expect(after.map(described)).to.include.members(['plant.created 1', 'plant.deleted 2']);
    });

    it('a bulk load (addMany: an import, a sandbox\'s seed) records no change; the writes around it do', async () => {
      if (repo.addMany === undefined) return;
      for (const target of [repo, ...(repo.sandbox ? [repo.sandbox('loaded')] : [])]) {
        const start = await log(target).open(undefined);
        await target.add({ id: 1, name: 'before' });
        expect(await target.addMany!([{ id: 2, name: 'loaded' }, { id: 3, name: 'loaded', tag: 'x' }])).to.deep.equal([true, true]);
        await target.remove(2);
        const changes = await readAll(start, 2);
        // A little longer for any stray change to show.
        changes.push(...(await readAll(start, 1, 300)));
        expect(changes.map(described)).to.deep.equal(['plant.created 1', 'plant.deleted 2']);
      }
    });

    it('concurrent writes: a reader reading all along gets every one, each once, none before it settled', async () => {
      const start = await log().open(undefined);
      const seen: PlantChange[] = [];
      let writing = true;
      const reading = (async () => {
        while (writing) {
          seen.push(...(await start.reader.next(50)));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await Promise.all(Array.from({ length: 300 }, (_, i) => repo.add({ id: i + 1, name: `p${i + 1}` })));
      await Promise.all(Array.from({ length: 100 }, (_, i) => repo.remove(i + 1)));
      writing = false;
      await reading;
      seen.push(...(await readAll(start, 400 - seen.length)));
      const unique = new Map(seen.map((change) => [change.cursor, described(change)]));
      expect(unique.size).to.equal(400);
      if (exactly) expect(seen.length, 'no change twice').to.equal(400);
      for (let id = 1; id <= 100; id++) {
        const order = [...unique.values()].filter((change) => change.endsWith(` ${id}`));
        expect(order, `plant ${id}'s changes in order`).to.deep.equal([`plant.created ${id}`, `plant.deleted ${id}`]);
      }
    });

    it('a cursor that is malformed, forged or another log\'s opens as a reset at the newest change', async () => {
      await repo.add({ id: 1, name: 'one' });
      for (const cursor of ['', 'garbage', '0', 'ffffffff-1', 'm1.x', '-'.repeat(200)]) {
        const opened = await log().open(cursor);
        expect(opened.reset, JSON.stringify(cursor)).to.equal(true);
        expect(await opened.reader.next(10), 'nothing from before').to.deep.equal([]);
      }
    });

    it('retention: a cursor older than what is kept resets; one within it does not', async function () {
      const start = await log().open(undefined);
      const beforeOld = start.reader.position;
      await repo.add({ id: 1, name: 'old' });
      const [old] = await readAll(start, 1);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const cut = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await repo.add({ id: 2, name: 'recent' });
      const [recent] = await readAll(start, 1);
      expect(await repo.changeRetention!.pruneBefore(cut, 1000), 'changes pruned').to.equal(1);
      expect((await log().open(start.reader.position)).reset, 'the newest cursor').to.equal(false);
      expect((await log().open(recent!.cursor)).reset, 'a cursor within retention').to.equal(false);
      expect((await log().open(beforeOld)).reset, 'a cursor from before the pruned change: it would miss it').to.equal(true);
      if (exactly) {
        // The pruned change's own cursor has seen it: it misses nothing, and reads what followed.
        const behind = await log().open(old!.cursor);
        expect(behind.reset).to.equal(false);
        expect((await readAll(behind, 1, 200)).map(described)).to.deep.equal(['plant.created 2']);
      }
    });

    it('each sandbox has its own log: the same ids, no change of another sandbox read', async () => {
      const a = repo.sandbox!('garden-a');
      const b = repo.sandbox!('garden-b');
      const [fromA, fromB, fromDefault] = await Promise.all([log(a).open(undefined), log(b).open(undefined), log().open(undefined)]);
      await a.add({ id: 1, name: 'a' });
      await b.add({ id: 1, name: 'b' });
      await b.remove(1);
      expect((await readAll(fromA, 1)).map((change) => change.event)).to.deep.equal([{ type: 'plant.created', data: { id: 1, name: 'a' }, sandbox: 'garden-a' }]);
      expect((await readAll(fromB, 2)).map(described)).to.deep.equal(['plant.created 1', 'plant.deleted 1']);
      expect(await fromDefault.reader.next(10)).to.deep.equal([]);
      // b's cursor read in a: nothing of b's.
      const crossed = await log(a).open(fromB.reader.position);
      await a.add({ id: 2, name: 'a2' });
      // At least once, a's first change may come again (MongoDB re-reads a window); never one of b's.
      const read = await readAll(crossed, exactly ? 1 : 2);
      expect(read.map(described)).to.include('plant.created 2');
      expect(read.map((change) => change.event.sandbox)).to.deep.equal(read.map(() => 'garden-a'));
    });

    // Memory and disk number every sandbox's changes in one sequence; MongoDB's cursors are
    // times and random ids, which count nothing.
    if (exactly) {
      it('a sandbox\'s cursors carry nothing of another\'s writes: a position differs each time it is made, an event\'s cursor is the same each time read', async () => {
        const a = repo.sandbox!('garden-a');
        const b = repo.sandbox!('garden-b');
        await a.add({ id: 1, name: 'a' });
        const [before, again] = [await log(a).open(undefined), await log(a).open(undefined)];
        expect(before.reader.position, 'no write between them, yet two positions').to.not.equal(again.reader.position);
        for (let id = 1; id <= 10; id++) await b.add({ id, name: 'b' });
        const after = await log(a).open(undefined);
        await a.add({ id: 2, name: 'a2' });
        // Each resumes to a's next change, whatever b wrote in between, and reads its one cursor.
        const read = await Promise.all([before, again, after].map((opened) => readAll(opened, 1)));
        expect(read.map((changes) => changes.map(described))).to.deep.equal([['plant.created 2'], ['plant.created 2'], ['plant.created 2']]);
        expect(new Set(read.map((changes) => changes[0]!.cursor)).size, 'one cursor for one event').to.equal(1);
        const resumed = await log(a).open(before.reader.position);
        expect(resumed.reset).to.equal(false);
        expect(resumed.reader.position, 'a given cursor is where the reader starts, as given').to.equal(before.reader.position);
      });
    }

    it('a purged sandbox forgets its changes: its cursors reset, a sandbox made anew under its name starts empty', async () => {
      const gone = repo.sandbox!('short-lived');
      const opened = await log(gone).open(undefined);
      await gone.add({ id: 1, name: 'x' });
      const [change] = await readAll(opened, 1);
      await gone.add({ id: 2, name: 'y' });
      while ((await gone.purge!(10)) > 0);
      expect((await log(gone).open(change!.cursor)).reset).to.equal(true);
      // Retention reaching the purged changes one at a time leaves their cursors reset.
      await repo.changeRetention!.pruneBefore(Date.now() + 1, 1);
      expect((await log(gone).open(change!.cursor)).reset, 'after retention pruned part of them').to.equal(true);
      const anew = await log(repo.sandbox!('short-lived')).open(undefined);
      expect(await anew.reader.next(10)).to.deep.equal([]);
    });

    it('a sandbox whose plants were all deleted before its purge forgets its changes too', async () => {
      const gone = repo.sandbox!('emptied');
      const opened = await log(gone).open(undefined);
      await gone.add({ id: 1, name: 'x' });
      await gone.remove(1);
      const [change] = await readAll(opened, 1);
      while ((await gone.purge!(10)) > 0);
      expect((await log(gone).open(change!.cursor)).reset).to.equal(true);
    });

    it('FollowChanges: a follower waits for the next change and is woken by it', async () => {
      const stop = new AbortController();
      const following = await new FollowChanges(repo).execute(undefined, undefined, stop.signal);
      const iterator = following.changes[Symbol.asyncIterator]();
      const next = iterator.next();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await repo.add({ id: 9, name: 'nine' });
      const { value } = await next;
      expect(value.event).to.deep.equal({ type: 'plant.created', data: { id: 9, name: 'nine' } });
      stop.abort();
      expect((await iterator.next()).done, 'ends when aborted').to.equal(true);
    });

    it('FollowChanges: a follower left before its changes are iterated (at feed.reset, say) stops watching when aborted', async () => {
      let watching = 0;
      const changes = log();
      const counted = {
        changes: {
          open: (cursor: string | undefined) => changes.open(cursor),
          watch: (wake: () => void) => {
            watching++;
            const unwatch = changes.watch(wake);
            return () => {
              watching--;
              unwatch();
            };
          },
        },
      } as unknown as PlantRepository;
      const stop = new AbortController();
      const following = await new FollowChanges(counted).execute('forged', undefined, stop.signal);
      expect([following.reset, watching]).to.deep.equal([true, 1]);
      stop.abort();
      expect(watching, 'unwatched on abort, its changes never iterated').to.equal(0);
    });
  });
}
