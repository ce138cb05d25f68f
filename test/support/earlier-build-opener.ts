// Run by test/storage/disk-earlier-build-workers.test.ts (node:child_process fork) as one
// worker of a server group: opens the data directory given as its worker would (the parent
// holds the directory's lock), tells its parent whether the open succeeded, and closes.
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';

const [directory = ''] = process.argv.slice(2);
let said: string;
try {
  const repository = DiskPlantRepository.open(directory, { groupWorker: true });
  await repository.close();
  said = 'opened';
} catch (error) {
  said = error instanceof Error ? error.message : String(error);
}
// Once the message is handed over: then the channel, the process's last handle, closes.
process.send!(said, () => process.disconnect());
