import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE_NAME } from '../../adapters/storage/disk/data-dir-lock.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { tempDir, type TempDir } from './temp-dir.js';

/**
 * A data directory held as a server group's primary holds it: its lock file names this
 * process's parent, which is what a worker checks. Repositories opened on it with
 * `groupWorker` act as the group's workers do, in this one process (lmdb-js shares the
 * environment between them, as processes share its file).
 */
export function groupDirectory(prefix = 'plant-store-group-'): TempDir & { openWorker(): DiskPlantRepository } {
  const directory = tempDir(prefix);
  writeFileSync(join(directory.path, LOCK_FILE_NAME), `${process.ppid}\n`);
  return Object.assign(directory, { openWorker: () => DiskPlantRepository.open(directory.path, { groupWorker: true }) });
}
