import { join } from 'node:path';
import { open } from 'lmdb';
import { DATABASE_FILE_NAME } from '../../adapters/storage/disk/disk-plant-repository.js';

type AnyKey = (string | number | boolean)[];

/**
 * Rewrites a closed data directory's tag index of the named sandboxes as an earlier build
 * kept it: `sandbox-plants-by-tag`, keyed `[sandbox, …tag, id]` (today's `sandbox-tags` is
 * `[…tag, sandbox, id]`; the tag part is one element, or two in its escaped form). Answers
 * how many entries it moved.
 */
export async function rewriteAsEarlierTagIndex(directory: string): Promise<number> {
  const root = open({ path: join(directory, DATABASE_FILE_NAME), maxDbs: 32 });
  try {
    const current = root.openDB<string, AnyKey>({ name: 'sandbox-tags' });
    const earlier = root.openDB<string, AnyKey>({ name: 'sandbox-plants-by-tag' });
    return root.transactionSync(() => {
      let moved = 0;
      for (const { key, value } of current.getRange()) {
        void earlier.put([key.at(-2)!, ...key.slice(0, -2), key.at(-1)!], value);
        moved++;
      }
      current.dropSync();
      return moved;
    });
  } finally {
    await root.close();
  }
}
