import { ErrorCode, PlantStoreError } from '../../core/index.js';

/**
 * Whatever a storage engine or driver throws (down, slow, refusing, a full disk, a closed
 * environment) means the storage could not serve the call: one domain error for the caller,
 * the detail kept in `cause` for the log. Shared by the disk and MongoDB adapters.
 */
export function toStoreError(error: unknown): PlantStoreError {
  if (error instanceof PlantStoreError) return error;
  return new PlantStoreError(ErrorCode.StorageUnavailable, 'storage is unavailable', { cause: error });
}
