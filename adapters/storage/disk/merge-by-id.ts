import type { Plant } from '../../../core/index.js';

/**
 * The first `limit` plants of several id-ordered, disjoint sequences, in id order. Each
 * sequence is read lazily, one plant ahead, so no more than `limit` plants are taken from
 * any range.
 */
export function mergeById(sequences: Iterable<Plant>[], limit: number): Plant[] {
  const cursors = sequences.map((sequence) => sequence[Symbol.iterator]());
  const heads = cursors.map((cursor) => cursor.next());
  const merged: Plant[] = [];
  while (merged.length < limit) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (!head.done && (best < 0 || head.value.id < (heads[best]!.value as Plant).id)) best = i;
    }
    if (best < 0) break;
    merged.push(heads[best]!.value as Plant);
    heads[best] = cursors[best]!.next();
  }
  for (const cursor of cursors) cursor.return?.();
  return merged;
}
