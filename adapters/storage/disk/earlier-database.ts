import type { Key, RootDatabase } from 'lmdb';

/**
 * Moves what an earlier development build kept in the database `name` into today's layout,
 * once: `move` runs on each of its entries, and the database is dropped, in one write
 * transaction (all or nothing, should the process die). Workers start together: LMDB has one
 * writer at a time, and the database is looked for again inside the transaction, so one of
 * them moves it and the others find it gone.
 */
export function adoptEarlierDatabase<V, K extends Key>(root: RootDatabase, name: string, move: (key: K, value: V) => void): void {
  // Nearly every start has nothing to move: it takes no write lock to find that out.
  if (!holds(root, name)) return;
  root.transactionSync(() => {
    if (!holds(root, name)) return;
    const earlier = root.openDB<V, K>({ name });
    for (const { key, value } of earlier.getRange()) move(key, value);
    earlier.dropSync();
  });
}

/** Whether the environment holds the named database (LMDB lists them as the keys of its unnamed one). */
function holds(root: RootDatabase, name: string): boolean {
  for (const key of root.getKeys({ start: name, limit: 1 })) return key === name;
  return false;
}
