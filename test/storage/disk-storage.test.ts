import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirInUseError, LOCK_FILE_NAME, WORKERS_FILE_NAME } from '../../adapters/storage/disk/data-dir-lock.js';
import { bootId, startTicks } from '../../adapters/storage/disk/process-alive.js';
import { open as openLmdb } from 'lmdb';
import { DATABASE_FILE_NAME, DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { ErrorCode, MAX_PLANT_ID, type Plant, type PlantRepository } from '../../core/index.js';
import { expectStoreError } from '../support/expect-error.js';
import { rewriteAsEarlierTagIndex } from '../support/earlier-tag-index.js';
import { projectRoot } from '../support/project-root.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

describe('disk storage specifics', () => {
  let made: TempDir;
  /** The data directory: the one made for the test, or a path inside it. */
  let directory: string;
  const open: DiskPlantRepository[] = [];
  const openRepository = (options = {}) => {
    const repository = DiskPlantRepository.open(directory, options);
    open.push(repository);
    return repository;
  };
  beforeEach(() => {
    made = tempDir('plant-store-disk-');
    directory = made.path;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((repository) => repository.close()));
    made.remove();
  });

  it('plants added and removed are as left after the store is closed and opened again', async () => {
    const first = openRepository();
    await first.add({ id: 1, name: 'a', tag: 'fern' });
    await first.add({ id: 2, name: 'b', tag: 'fern' });
    await first.addMany!([{ id: 3, name: 'c' }]);
    await first.remove(1);
    await first.close();

    const again = openRepository();
    expect(await again.page({ limit: 10 })).to.deep.equal([
      { id: 2, name: 'b', tag: 'fern' },
      { id: 3, name: 'c' },
    ]);
    expect(await again.page({ limit: 10, tags: ['fern'] })).to.deep.equal([{ id: 2, name: 'b', tag: 'fern' }]);
  });

  it('creates a missing data directory, nested too', async () => {
    directory = join(directory, 'a', 'b');
    const repository = openRepository();
    await repository.add({ id: 1, name: 'a' });
    expect(existsSync(join(directory, LOCK_FILE_NAME))).to.equal(true);
  });

  it('a second open of a directory in use fails at once, naming the directory and the holding pid', async () => {
    openRepository();
    expect(() => openRepository()).to.throw(DataDirInUseError, `data directory ${directory} is in use by process ${process.pid}`);
  });

  it('closing releases the directory for the next process', async () => {
    await openRepository().close();
    expect(existsSync(join(directory, LOCK_FILE_NAME))).to.equal(false);
    openRepository();
  });

  it('a lock left by a process killed with SIGKILL is stale and taken over', async function () {
    this.timeout(20_000);
    const module = join(projectRoot, 'dist', 'adapters', 'storage', 'disk', 'disk-plant-repository.js');
    const script = `const { DiskPlantRepository } = await import(${JSON.stringify(module)});
      const repository = DiskPlantRepository.open(process.argv[1]);
      await repository.add({ id: 7, name: 'from the killed process' });
      process.stdout.write('ready\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, directory], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout!, 'data');
    expect(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8').trim()).to.equal(String(child.pid));
    expect(() => openRepository()).to.throw(DataDirInUseError, `process ${child.pid}`);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    const repository = openRepository();
    expect(await repository.findById(7)).to.deep.equal({ id: 7, name: 'from the killed process' });
    expect(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8').trim()).to.equal(String(process.pid));
  });

  describe('a stale lock of a server group whose workers still run', () => {
    /** A pid that ran and is gone: a process started and reaped. */
    const deadPid = async () => {
      const child = spawn(process.execPath, ['-e', '']);
      await once(child, 'exit');
      return child.pid!;
    };
    /** A process standing for a worker left behind by its killed primary: it lives `ms`. */
    const workerFor = async (ms: number) => {
      const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${ms}); process.stdout.write('up')`], { stdio: ['ignore', 'pipe', 'ignore'] });
      await once(child.stdout!, 'data');
      return child;
    };
    /** The lock and the workers' list a killed primary leaves, as noteWorkers writes it (`lines` instead, when given). */
    const leftByGroup = (primary: number, workers: readonly number[], lines?: readonly string[]) => {
      writeFileSync(join(directory, LOCK_FILE_NAME), `${primary}\n`);
      const listed = lines ?? [`boot ${bootId()}`, ...workers.map((pid) => `${pid} ${startTicks(pid) ?? ''}`.trim())];
      writeFileSync(join(directory, WORKERS_FILE_NAME), listed.map((line) => `${line}\n`).join(''));
    };

    it('is taken over only once every listed worker is gone, and the list goes with it', async function () {
      this.timeout(20_000);
      const gone = await deadPid();
      const worker = await workerFor(600);
      leftByGroup(await deadPid(), [gone, worker.pid!]);
      const started = performance.now();
      openRepository();
      const waited = performance.now() - started;
      console.log(`      waited ${Math.round(waited)} ms for the worker to stop`);
      expect(waited, 'the start did not wait for the worker').to.be.greaterThan(300);
      expect(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8').trim()).to.equal(String(process.pid));
      expect(existsSync(join(directory, WORKERS_FILE_NAME)), 'the stale list was left').to.equal(false);
    });

    it('is refused, naming the worker and its stopped primary, while a listed worker runs past the wait', async function () {
      this.timeout(20_000);
      const worker = await workerFor(15_000);
      const primary = await deadPid();
      leftByGroup(primary, [worker.pid!]);
      try {
        const started = performance.now();
        expect(() => openRepository()).to.throw(
          DataDirInUseError,
          `data directory ${directory} is in use by process ${worker.pid} (a worker of process ${primary}, which stopped; ${join(directory, WORKERS_FILE_NAME)})`,
        );
        const waited = performance.now() - started;
        expect(waited).to.be.within(2_500, 6_000);
        expect(readFileSync(join(directory, LOCK_FILE_NAME), 'utf8').trim(), 'the stale lock was taken').to.equal(String(primary));
      } finally {
        worker.kill('SIGKILL');
      }
    });

    it('a listed pid held by another process than the one listed (another start time, another boot), or by this one, delays nothing', async function () {
      this.timeout(20_000);
      const other = await workerFor(15_000);
      const ticks = startTicks(other.pid!)!;
      const quickly = async (lines: string[]) => {
        made.remove();
        made = tempDir('plant-store-disk-');
        directory = made.path;
        leftByGroup(await deadPid(), [], lines);
        const started = performance.now();
        const repository = openRepository();
        const took = performance.now() - started;
        await repository.close();
        return took;
      };
      try {
        // The same list, right, does wait: the other cases differ from it in one thing each.
        leftByGroup(await deadPid(), [], [`boot ${bootId()}`, `${other.pid} ${ticks}`]);
        expect(() => openRepository(), 'the list as written').to.throw(DataDirInUseError, `process ${other.pid}`);
        expect(await quickly([`boot ${bootId()}`, `${other.pid} ${ticks + 1}`]), 'another start time').to.be.lessThan(1_000);
        expect(await quickly([`boot 00000000-0000-0000-0000-000000000000`, `${other.pid} ${ticks}`]), 'another boot').to.be.lessThan(1_000);
        expect(await quickly([`boot ${bootId()}`, `${process.pid} ${startTicks(process.pid)}`]), 'this process').to.be.lessThan(1_000);
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('a list of workers all gone delays nothing', async () => {
      leftByGroup(await deadPid(), [await deadPid(), await deadPid()]);
      const started = performance.now();
      openRepository();
      expect(performance.now() - started).to.be.lessThan(1_000);
    });
  });

  it('an unreadable lock file (empty, after a crash while writing it) is stale too', async () => {
    writeFileSync(join(directory, LOCK_FILE_NAME), '');
    openRepository();
  });

  it('a read-only open takes no lock, sees what the writer committed, and needs an existing store', async () => {
    const writer = openRepository();
    await writer.add({ id: 1, name: 'a' });
    const reader = openRepository({ readOnly: true });
    expect(await reader.page({ limit: 10 })).to.deep.equal([{ id: 1, name: 'a' }]);
    using empty = tempDir('plant-store-disk-');
    expect(() => DiskPlantRepository.open(empty.path, { readOnly: true })).to.throw(/holds no plant store/);
  });

  it('tags that are prefixes of one another or hold control characters stay apart', async () => {
    const repository = openRepository();
    const tags = ['a', 'a\u0000', 'a\u0001b', 'ab', 'a b', '\u0000', 'b'];
    let id = 1;
    const byTag = new Map<string, number[]>();
    for (let round = 0; round < 3; round++) {
      for (const tag of tags) {
        byTag.set(tag, [...(byTag.get(tag) ?? []), id]);
        await repository.add({ id: id++, name: `p${id}`, tag });
      }
    }
    for (const tag of tags) {
      const page = await repository.page({ limit: 10, tags: [tag] });
      expect(page.map((plant) => plant.id), JSON.stringify(tag)).to.deep.equal(byTag.get(tag));
      expect(page.every((plant) => plant.tag === tag)).to.equal(true);
    }
  });

  describe('sandboxes: each range holds one sandbox only, in id order', () => {
    // Names that are prefixes of one another or differ in their last byte, at both ends of
    // the rule's length, with the same ids in each (and in the default) so their keys
    // interleave as closely as they can; ids where the numbers' encoding changes length or
    // exponent, up to the largest; tags that are prefixes of one another or hold control
    // characters (which ordered-binary escapes).
    const names = ['a', 'a-b', 'a0', 'ab', 'b', '0', '-', '--', 'a'.repeat(63), 'a'.repeat(64), 'z'.repeat(64)];
    const ids = [1, 2, 3, 15, 16, 17, 255, 256, 65_535, 65_536, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 52, MAX_PLANT_ID - 1, MAX_PLANT_ID];
    const tags = ['a', 'a\u0000', 'a\u0001b', 'ab', '\u0000', '\u0004', 'b', undefined];
    const plantsOf = (sandbox: string): Plant[] =>
      ids.map((id, i) => {
        const tag = tags[i % tags.length];
        return tag === undefined ? { id, name: `${sandbox} ${id}` } : { id, name: `${sandbox} ${id}`, tag };
      });
    const walk = async (repository: PlantRepository, request: { tags?: string[] }) => {
      const seen: Plant[] = [];
      for (let after = 0; ; ) {
        const page = await repository.page({ ...request, limit: 4, after });
        if (page.length === 0) return seen;
        seen.push(...page);
        after = page[page.length - 1]!.id;
      }
    };

    it('pages, tag filters and cursors of the default and of every named sandbox find exactly their own plants', async () => {
      const repository = openRepository();
      const all = ['default', ...names];
      for (const [k, sandbox] of all.entries()) {
        // Half by addMany, half by add, in an order of their own.
        const plants = plantsOf(sandbox);
        const box = repository.sandbox(sandbox);
        expect(await box.addMany!(plants.filter((_, i) => (i + k) % 2 === 0))).to.satisfy((added: boolean[]) => added.every(Boolean));
        for (const plant of plants.filter((_, i) => (i + k) % 2 === 1).reverse()) expect(await box.add(plant)).to.equal(true);
      }
      for (const sandbox of all) {
        const box = repository.sandbox(sandbox);
        const mine = plantsOf(sandbox);
        expect(await box.page({ limit: 1000 }), sandbox).to.deep.equal(mine);
        expect(await walk(box, {}), sandbox).to.deep.equal(mine);
        expect(await box.page({ limit: 10, after: MAX_PLANT_ID - 1 }), sandbox).to.deep.equal([mine[mine.length - 1]]);
        expect(await box.page({ limit: 10, after: MAX_PLANT_ID }), sandbox).to.deep.equal([]);
        for (const tag of tags) {
          if (tag === undefined) continue;
          const tagged = mine.filter((plant) => plant.tag === tag);
          expect(await box.page({ limit: 1000, tags: [tag] }), `${sandbox} ${JSON.stringify(tag)}`).to.deep.equal(tagged);
          expect(await walk(box, { tags: [tag] }), `${sandbox} ${JSON.stringify(tag)}`).to.deep.equal(tagged);
        }
        expect(await walk(box, { tags: ['a', 'a\u0000', 'b'] }), sandbox).to.deep.equal(mine.filter((plant) => ['a', 'a\u0000', 'b'].includes(plant.tag!)));
        for (const id of ids) expect(await box.findById(id), `${sandbox} ${id}`).to.deep.equal(mine.find((plant) => plant.id === id));
      }
      // Removing from one sandbox leaves the same id in every other.
      expect(await repository.sandbox('a').remove(1)).to.equal(true);
      expect(await repository.sandbox('a').findById(1)).to.equal(undefined);
      for (const sandbox of all.filter((name) => name !== 'a')) expect(await repository.sandbox(sandbox).findById(1), sandbox).to.deep.include({ id: 1 });
      expect(await repository.sandbox('a').page({ limit: 1000, tags: ['a'] })).to.deep.equal(plantsOf('a').filter((plant) => plant.id !== 1 && plant.tag === 'a'));
    });

    it("the default sandbox's databases hold its own keys only: named sandboxes write none there", async () => {
      const repository = openRepository();
      await repository.addMany!(plantsOf('default'));
      for (const name of names) await repository.sandbox(name).addMany!(plantsOf(name));
      await repository.close();
      const root = openLmdb({ path: join(directory, DATABASE_FILE_NAME), readOnly: true });
      try {
        const plantKeys = [...root.openDB({ name: 'plants' }).getKeys()];
        expect(plantKeys.filter((key) => typeof key !== 'symbol'), 'ids, and the shared structures').to.deep.equal(ids);
        const tagKeys = [...root.openDB({ name: 'plants-by-tag' }).getKeys()] as unknown as [string, number][];
        expect(tagKeys.every((key) => key.length === 2 && typeof key[1] === 'number')).to.equal(true);
        expect(tagKeys).to.have.length(plantsOf('default').filter((plant) => plant.tag !== undefined).length);
      } finally {
        await root.close();
      }
    });

    it("an earlier build's tag index (sandbox first) is moved, tag first, at the next open", async () => {
      // A long tag with a control character is keyed in its escaped form (tag-key.ts).
      const long = `${'t'.repeat(70)}\u0001`;
      const plantsWithLong = (sandbox: string): Plant[] => [...plantsOf(sandbox), { id: 7, name: `${sandbox} 7`, tag: long }];
      let repository = openRepository();
      for (const name of names) await repository.sandbox(name).addMany!(plantsWithLong(name));
      await repository.close();
      // The directory as the earlier build left it.
      expect(await rewriteAsEarlierTagIndex(directory)).to.equal(names.length * plantsWithLong('a').filter((plant) => plant.tag !== undefined).length);
      repository = openRepository();
      for (const name of names) {
        const mine = plantsWithLong(name);
        for (const tag of [...tags, long]) {
          if (tag === undefined) continue;
          expect(await walk(repository.sandbox(name), { tags: [tag] }), `${name} ${JSON.stringify(tag)}`).to.deep.equal(mine.filter((plant) => plant.tag === tag));
        }
      }
      // A removal finds the moved entry: the tag's page no longer holds the plant.
      expect(await repository.sandbox('a').remove(7)).to.equal(true);
      expect(await repository.sandbox('a').page({ limit: 10, tags: [long] })).to.deep.equal([]);
      await repository.close();
      const root = openLmdb({ path: join(directory, DATABASE_FILE_NAME), maxDbs: 32, readOnly: true });
      try {
        expect([...root.getKeys()].map(String)).to.include('sandbox-tags').and.not.include('sandbox-plants-by-tag');
      } finally {
        await root.close();
      }
    });

    it('sandbox() answers the repository itself for "default", the same view for the same name, and refuses names outside the rule', () => {
      const repository = openRepository();
      expect(repository.sandbox('default')).to.equal(repository);
      expect(repository.sandbox('garden')).to.equal(repository.sandbox('garden'));
      for (const name of ['', 'A', 'a/b', 'a b', 'a'.repeat(65), '\u0000', 'é']) expect(() => repository.sandbox(name), JSON.stringify(name)).to.throw(RangeError, /sandbox name/);
    });
  });

  it('after close, every call fails as storage unavailable (50301), never with the engine error', async () => {
    const repository = openRepository();
    await repository.close();
    await expectStoreError(repository.ping(), ErrorCode.StorageUnavailable);
    await expectStoreError(repository.add({ id: 1, name: 'a' }), ErrorCode.StorageUnavailable);
    await expectStoreError(repository.page({ limit: 1 }), ErrorCode.StorageUnavailable);
    await expectStoreError(repository.findById(1), ErrorCode.StorageUnavailable);
    await expectStoreError(repository.remove(1), ErrorCode.StorageUnavailable);
  });
});
