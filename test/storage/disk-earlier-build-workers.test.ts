import { expect } from 'chai';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DataDirLock } from '../../adapters/storage/disk/data-dir-lock.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import type { Plant } from '../../core/index.js';
import { rewriteAsEarlierTagIndex } from '../support/earlier-tag-index.js';
import { projectRoot } from '../support/project-root.js';
import { tempDir } from '../support/temp-dir.js';

// A server group's workers start together, each opening the data directory. A directory of
// an earlier development build has an index to move into today's layout
// (adapters/storage/disk/earlier-database.ts): one worker must move it, and none fail. Moved,
// then dropped in a second transaction, a worker that found the index before another dropped
// it failed with MDB_NOTFOUND: 6 rounds of 20, three processes each, in a probe.

const opener = join(projectRoot, 'dist', 'test', 'support', 'earlier-build-opener.js');
const ROUNDS = 12;
const WORKERS = 3;
const SANDBOXES = ['a', 'b', 'c'];
const TAGS = ['fern', 'herb'];
const plantsOf = (sandbox: string): Plant[] => Array.from({ length: 2_000 }, (_, i) => ({ id: i + 1, name: `${sandbox} ${i + 1}`, tag: TAGS[i % TAGS.length]! }));

/** A data directory as the earlier build left it: the named sandboxes' tag index sandbox first. */
async function earlierBuildDirectory(directory: string): Promise<void> {
  const repository = DiskPlantRepository.open(directory);
  for (const sandbox of SANDBOXES) await repository.sandbox(sandbox).addMany!(plantsOf(sandbox));
  await repository.close();
  await rewriteAsEarlierTagIndex(directory);
}

describe("disk storage: a server group's workers opening an earlier build's directory together", function () {
  this.timeout(120_000);

  it(`each opens it, and its index is moved once (${ROUNDS} rounds of ${WORKERS} workers)`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      using directory = tempDir('plant-store-earlier-build-');
      await earlierBuildDirectory(directory.path);
      const lock = DataDirLock.prepareAndAcquire(directory.path);
      let said: unknown[];
      try {
        said = await Promise.all(
          Array.from({ length: WORKERS }, async () => {
            const child = fork(opener, [directory.path], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
            const exited = once(child, 'exit');
            const [message] = (await once(child, 'message')) as [unknown];
            await exited;
            return message;
          }),
        );
      } finally {
        lock.release();
      }
      expect(said, `round ${round}`).to.deep.equal(Array(WORKERS).fill('opened'));
      const repository = DiskPlantRepository.open(directory.path);
      try {
        for (const sandbox of SANDBOXES) {
          for (const tag of TAGS) {
            const page = await repository.sandbox(sandbox).page({ limit: 5_000, tags: [tag] });
            expect(page, `round ${round}, ${sandbox} ${tag}`).to.deep.equal(plantsOf(sandbox).filter((plant) => plant.tag === tag));
          }
        }
      } finally {
        await repository.close();
      }
    }
  });
});
