import type { Key, RootDatabase } from 'lmdb';

/**
 * Moves what an earlier development build kept in the database `name` into today's layout,
 * once: `move` runs on each of its entries in one transaction, then the database is
 * dropped. A crash between the two moves the same entries again at the next start, to the
 * same keys. Workers start together: a later one finds nothing to move, or moves the same
 * entries again.
 */
export function adoptEarlierDatabase<V, K extends Key>(root: RootDatabase, name: string, move: (key: K, value: V) => void): void {
  if (!holds(root, name)) return;
  const earlier = root.openDB<V, K>({ name });
  root.transactionSync(() => {
    for (const { key, value } of earlier.getRange()) move(key, value);
  });
  earlier.dropSync();
}

/** Whether the environment holds the named database (LMDB lists them as the keys of its unnamed one). */
function holds(root: RootDatabase, name: string): boolean {
  for (const key of root.getKeys({ start: name, limit: 1 })) return key === name;
  return false;
}
