import { open } from 'lmdb';
import { join } from 'node:path';
import { DATABASE_FILE_NAME } from '../../adapters/storage/disk/disk-plant-repository.js';
import { SequenceCursors } from '../../adapters/storage/sequence-cursor.js';

/**
 * Reads the sequence numbers in a data directory's feed cursors, which its storage seals (see
 * SequenceCursors): with the log's id and key, read from the directory as a reader beside
 * whatever process writes it. For tests of the log's order.
 */
export function sequencesOf(dataDir: string): (cursor: string) => number {
  const env = open({ path: join(dataDir, DATABASE_FILE_NAME), maxDbs: 32, readOnly: true });
  try {
    const meta = env.openDB<unknown, string>({ name: 'change-log' });
    const cursors = new SequenceCursors(meta.get('id') as string, Buffer.from(meta.get('key') as string, 'hex'));
    return (cursor) => {
      const sequence = cursors.sequenceOf(cursor);
      if (sequence === undefined) throw new Error(`not a cursor of this directory: ${cursor}`);
      return sequence;
    };
  } finally {
    void env.close();
  }
}
