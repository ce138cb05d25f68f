import type { FollowChanges, Plant, PlantUseCases } from '../../core/index.js';
import { ConfigError } from '../config/config-error.js';

/** A change as `store.changes()` hands it out: the feed's event, with the cursor that resumes after it. */
export type StoreChange =
  | { readonly cursor: string; readonly type: 'plant.created'; readonly data: Plant }
  | { readonly cursor: string; readonly type: 'plant.deleted'; readonly data: { readonly id: number } }
  /** The cursor given was unknown or older than the log: re-read the list, then go on from this cursor. */
  | { readonly cursor: string; readonly type: 'feed.reset'; readonly data: Record<string, never> };

export interface ChangesOptions {
  /** A cursor from an earlier change: start after it. Omitted: from now. */
  readonly after?: string | undefined;
  /** Ends the iteration (as does leaving the loop, or closing the store). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The change feed as an async iterable, ended by `options.signal`, by `closing`, or by the
 * loop leaving. Throws ConfigError at once for a storage without a change log.
 */
export function storeChanges(useCases: PlantUseCases, sandbox: string | undefined, options: ChangesOptions, closing: AbortSignal): AsyncIterable<StoreChange> {
  if (!useCases.followChanges.available) throw new ConfigError('this storage keeps no change log');
  return iterate(useCases.followChanges, sandbox, options, closing);
}

async function* iterate(followChanges: FollowChanges, sandbox: string | undefined, options: ChangesOptions, closing: AbortSignal): AsyncGenerator<StoreChange> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  for (const signal of [closing, options.signal]) signal?.addEventListener('abort', onAbort, { once: true });
  if (closing.aborted || options.signal?.aborted) stop.abort();
  try {
    const following = await followChanges.execute(options.after, sandbox, stop.signal);
    if (following.reset) yield { cursor: following.start, type: 'feed.reset', data: {} };
    for await (const { cursor, event } of following.changes) yield { cursor, type: event.type, data: event.data } as StoreChange;
  } finally {
    stop.abort();
    for (const signal of [closing, options.signal]) signal?.removeEventListener('abort', onAbort);
  }
}
