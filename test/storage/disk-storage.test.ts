import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirInUseError, LOCK_FILE_NAME } from '../../adapters/storage/disk/data-dir-lock.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { ErrorCode } from '../../core/index.js';
import { expectStoreError } from '../support/expect-error.js';
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
