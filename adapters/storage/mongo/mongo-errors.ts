import { MongoError } from 'mongodb';
import { ErrorCode, PlantStoreError } from '../../../core/index.js';

/** MongoDB's duplicate key error: the unique `_id` index refused an insert. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoError && error.code === 11000;
}

/**
 * Runs one driver call under a deadline and reports its failure as StorageUnavailable.
 * The driver (v7) ignores `timeoutMS`, and its socket and server-selection timeouts do not
 * bound everything (a frozen server keeps the TCP connection open), so the deadline is
 * enforced here. `signal` is aborted at the deadline so calls that take one stop too.
 */
export async function withDeadline<T>(timeoutMS: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceeded(`the database did not answer within ${timeoutMS} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMS);
  });
  try {
    const work = call(controller.signal);
    // The loser of the race still settles later; it must not become an unhandled rejection.
    work.catch(() => {});
    return await Promise.race([work, deadline]);
  } catch (error) {
    throw toStoreError(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whatever a driver call throws means the storage could not serve it — down, unreachable,
 * slow, refusing — and the caller gets one domain error; the detail stays in `cause` for
 * logs. Not only MongoError: the driver does not wrap every network failure (v7 can
 * reject with Node's own "socket has been ended" EPIPE error when the server goes away).
 */
export function toStoreError(error: unknown): PlantStoreError {
  if (error instanceof PlantStoreError) return error;
  return new PlantStoreError(ErrorCode.StorageUnavailable, 'storage is unavailable', { cause: error });
}

// Also the reason the driver rejects with when our signal aborts a call.
class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}
