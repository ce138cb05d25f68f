import { toStoreError } from '../storage-unavailable.js';

/** Runs a synchronous engine call (reads are synchronous in LMDB), reporting failures as StorageUnavailable. */
export function reading<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw toStoreError(error);
  }
}

/**
 * Waits for a write at most `timeoutMS`: a disk that stops answering (a hung fsync on a
 * failing device or a network mount) gives StorageUnavailable, not a hung request.
 */
export async function writing<T>(timeoutMS: number, start: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let write: Promise<T>;
  try {
    write = start();
  } catch (error) {
    throw toStoreError(error);
  }
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the disk did not confirm the write within ${timeoutMS} ms`)), timeoutMS);
  });
  // The loser of the race still settles later; it must not become an unhandled rejection.
  write.catch(() => {});
  try {
    return await Promise.race([write, deadline]);
  } catch (error) {
    throw toStoreError(error);
  } finally {
    clearTimeout(timer);
  }
}
