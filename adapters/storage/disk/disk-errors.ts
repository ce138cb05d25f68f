import { toStoreError, withinTime } from '../storage-unavailable.js';

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
export function writing<T>(timeoutMS: number, start: () => Promise<T>): Promise<T> {
  return withinTime(timeoutMS, () => new Error(`the disk did not confirm the write within ${timeoutMS} ms`), start);
}
