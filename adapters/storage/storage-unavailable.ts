import { ErrorCode, PlantStoreError } from '../../core/index.js';

/** How long a storage call may take before it fails as unavailable, unless told otherwise. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5000;

/**
 * Whatever a storage engine or driver throws (down, slow, refusing, a full disk, a closed
 * environment) means the storage could not serve the call: one domain error for the caller,
 * the detail kept in `cause` for the log. Shared by the disk and MongoDB adapters.
 */
export function toStoreError(error: unknown): PlantStoreError {
  if (error instanceof PlantStoreError) return error;
  return new PlantStoreError(ErrorCode.StorageUnavailable, 'storage is unavailable', { cause: error });
}

/**
 * Runs one storage call under a deadline and reports its failure as StorageUnavailable: an
 * engine or database that stops answering gives 50301, not a hung request. `signal` is
 * aborted at the deadline (with `timedOut()`'s error) so calls that take one stop too.
 */
export function withinDeadline<T>(timeoutMS: number, timedOut: () => Error, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  return withinTime(
    timeoutMS,
    () => {
      const error = timedOut();
      controller.abort(error);
      return error;
    },
    () => call(controller.signal),
  );
}

/**
 * withinDeadline for a call that takes no signal (a disk write cannot be called off): no
 * AbortController is made, which cost a create on disk about 22,000 of its 333,000
 * instructions (docs/benchmarks.md, Disk storage).
 */
export async function withinTime<T>(timeoutMS: number, timedOut: () => Error, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMS);
  });
  try {
    const work = call();
    // The loser of the race still settles later; it must not become an unhandled rejection.
    work.catch(() => {});
    return await Promise.race([work, deadline]);
  } catch (error) {
    throw toStoreError(error);
  } finally {
    clearTimeout(timer);
  }
}
