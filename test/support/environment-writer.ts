// Run by test/storage/disk-environment-kill.test.ts (node:child_process fork) as one process
// of several on one LMDB environment, opened as the disk storage opens it: puts keys from
// the number given second upwards, 16 at a time, and sends its parent each key once its
// commit is synced (what the storage waits for before it acknowledges a create). It runs
// until killed, and ends itself when its parent goes.
import { openEnvironment } from '../../adapters/storage/disk/disk-plant-repository.js';

const [path = '', firstKey = ''] = process.argv.slice(2);
// SIGKILL, since an exit could wait for LMDB's writer thread (see composition/cli.ts).
process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
const root = openEnvironment(path);
let nextKey = Number(firstKey);

async function write(): Promise<void> {
  for (;;) {
    const key = nextKey++;
    await root.put(key, { name: `plant ${key}` });
    await root.flushed;
    process.send!(key);
  }
}

for (let i = 0; i < 16; i++) void write();
